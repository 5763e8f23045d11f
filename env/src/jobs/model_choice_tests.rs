//! The model field of the action and the model groups of the observation, with
//! `[heterogeneity]` on: a start goes to the machines of the model it names, the observation
//! reads the matrix and the free GPUs per model, and the env keeps its contract through both
//! interfaces.

use std::path::Path;
use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::heterogeneity_tests::{figure, heterogeneous};
use super::tests::{job, random_workload};
use super::*;
use crate::gym::{CheckOptions, check_env};

/// `heterogeneity.models` in its order: the model field's levels 1..=4.
const MODELS: [&str; 4] = ["K80", "P100", "T4", "V100"];

/// Nothing starts: every slot at workers level 0 and its requested size.
fn idle(env: &JobsEnv) -> Vec<usize> {
    let space = env.action_space();
    let mut action = vec![0; space.dims()];
    for slot in 0..space.units() {
        action[space.dim(slot, observe::FIELD_SIZE)] =
            env.workload().scaling.requested_size_level();
    }
    action
}

/// Starts the job of `slot` at its request on model level `model`.
fn start(env: &JobsEnv, action: &mut [usize], slot: usize, model: usize) {
    let space = env.action_space();
    action[space.dim(slot, observe::FIELD_WORKERS)] =
        env.workload().scaling.requested_workers_level();
    action[space.dim(slot, observe::FIELD_MODEL)] = model;
}

#[test]
fn a_start_goes_to_the_model_it_names_and_the_observation_reads_the_matrix() {
    // template t0 is ResNet-50 at batch 64; two jobs of one GPU each
    let w = heterogeneous(vec![
        job("a", 0.0, 100.0, 1, 1000),
        job("b", 0.0, 100.0, 1, 1000),
    ]);
    w.validate(Path::new("het.toml")).unwrap();
    let mut env = JobsEnv::new(Arc::new(w));
    let space = env.action_space().clone();
    assert_eq!(space.field_choices(observe::FIELD_MODEL), 1 + MODELS.len());
    let (observation, _) = env.reset(0).unwrap();
    let groups = env.observation_space().clone();
    let speeds = groups
        .group(observe::MODEL_SPEED_GROUP)
        .block(&observation.features, 0);
    let measured = ["k80", "p100", "p100", "v100"]
        .map(|m| figure(m, "ResNet-50 (batch size 64)", 1))
        .to_vec();
    let ratios = [measured[0], measured[1], 0.871 * measured[2], measured[3]];
    // over the reference, the V100
    for (k, ratio) in ratios.iter().enumerate() {
        assert!(
            (f64::from(speeds[k]) - ratio / measured[3]).abs() < 1e-6,
            "{k}: {speeds:?}"
        );
    }
    // machines: 2 K80, 2 P100, 2 V100, 1 T4, of 8 GPUs each; all free at the start
    let expected = [16.0, 16.0, 8.0, 16.0].map(|g| g / 56.0);
    for group in [observe::MODEL_FREE_GROUP, observe::MODEL_GPUS_GROUP] {
        let shares = groups.group(group).block(&observation.features, 0);
        for (k, share) in expected.iter().enumerate() {
            assert!(
                (f64::from(shares[k]) - share).abs() < 1e-6,
                "{group}: {shares:?}"
            );
        }
    }
    // a to the T4 (machine 6), b to a P100 (machines 2-3)
    let mut action = idle(&env);
    for (slot, model) in [(0, "T4"), (1, "P100")] {
        start(
            &env,
            &mut action,
            slot,
            1 + MODELS.iter().position(|m| *m == model).unwrap(),
        );
    }
    let step = env.step(&action).unwrap();
    assert!(step.info.rejected.is_empty(), "{:?}", step.info.rejected);
    assert_eq!(env.machines_of(0), vec![6]);
    assert!(matches!(env.machines_of(1).as_slice(), [2] | [3]));
    // each holds its one GPU on its model, and the free GPUs fall by it
    let held_of = |id: &str| {
        let slot = step
            .info
            .window
            .iter()
            .position(|j| j.as_deref() == Some(id));
        groups
            .group(observe::MODEL_HELD_GROUP)
            .block(&step.observation.features, slot.unwrap())
            .to_vec()
    };
    let one = 1.0 / 56.0;
    for (id, model) in [("a", 2), ("b", 1)] {
        let held = held_of(id);
        for (k, share) in held.iter().enumerate() {
            let want = if k == model { one } else { 0.0 };
            assert!((f64::from(*share) - want).abs() < 1e-6, "{id}: {held:?}");
        }
    }
    let free = groups
        .group(observe::MODEL_FREE_GROUP)
        .block(&step.observation.features, 0);
    assert!(
        (f64::from(free[2]) - (8.0 / 56.0 - one)).abs() < 1e-6,
        "{free:?}"
    );
}

/// A model whose machines are all taken is masked in the model field; "any" stays allowed.
#[test]
fn a_model_without_room_is_masked_in_the_model_field() {
    // the T4 machine holds 8 GPUs: one job of 8 takes it
    let w = heterogeneous(vec![
        job("a", 0.0, 100.0, 1, 8000),
        job("b", 0.0, 100.0, 1, 8000),
    ]);
    let mut env = JobsEnv::new(Arc::new(w));
    let space = env.action_space().clone();
    env.reset(0).unwrap();
    let mut action = idle(&env);
    start(&env, &mut action, 0, 3);
    let step = env.step(&action).unwrap();
    assert_eq!(env.machines_of(0), vec![6]);
    let slot = step
        .info
        .window
        .iter()
        .position(|j| j.as_deref() == Some("b"))
        .unwrap();
    let mask = step
        .observation
        .mask_of(&space, space.dim(slot, observe::FIELD_MODEL));
    assert_eq!(mask, [true, true, true, false, true]);
}

/// The one-choice interface offers each model of a start, exactly: a start on the T4 lands
/// there, and once the T4 is full the next job's T4 starts are masked.
#[test]
fn one_choice_starts_name_their_model_and_its_mask_is_exact() {
    let mut w = heterogeneous(vec![
        job("a", 0.0, 100.0, 1, 8000),
        job("b", 0.0, 100.0, 1, 8000),
    ]);
    w.window.interface = Interface::OneChoice;
    let mut env = JobsEnv::new(Arc::new(w));
    let layout = env.choice_layout().unwrap().clone();
    let (observation, _) = env.reset(0).unwrap();
    let scaling = env.workload().scaling.clone();
    let on = |slot: usize, model: usize| {
        layout.encode(Choice::Set {
            slot,
            workers_level: scaling.requested_workers_level(),
            size_level: scaling.requested_size_level(),
            placement: Placement::BestFit,
            model,
        })
    };
    let t4 = 3;
    assert!(observation.action_mask[on(0, t4)] && observation.action_mask[on(1, t4)]);
    let step = env.step(&[on(0, t4)]).unwrap();
    assert_eq!(env.machines_of(0), vec![6]);
    let mask = &step.observation.action_mask;
    assert!(
        !mask[on(1, t4)] && mask[on(1, 0)] && mask[on(1, 1)],
        "{mask:?}"
    );
}

#[test]
fn a_heterogeneous_env_keeps_the_contract_through_both_interfaces() {
    let mut rng = StdRng::seed_from_u64(3);
    let random = random_workload(&mut rng);
    for interface in [Interface::PerSlot, Interface::OneChoice] {
        let mut w = heterogeneous(random.jobs.clone());
        w.episode = random.episode.clone();
        w.window.interface = interface;
        w.validate(Path::new("het.toml")).unwrap();
        let env = JobsEnv::new(Arc::new(w));
        let report = check_env(&env, CheckOptions::default()).unwrap();
        assert!(report.ended, "{interface:?}: {report:?}");
    }
}
