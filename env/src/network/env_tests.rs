//! The network env: feasibility under any allowed action, the flow ladder, the workload's
//! errors.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::*;
use crate::error::EnvError;
use crate::gym::{CheckOptions, Environment, check_env};

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../data/workloads/{name}.toml"))
}

fn workload(overrides: &[(&str, &str)]) -> Arc<NetworkWorkload> {
    let pairs: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Arc::new(NetworkWorkload::load(&shipped("network-breast-cancer-svm"), &pairs).unwrap())
}

#[test]
fn the_ladder_encodes_both_directions_and_picks_the_nearest_allowed_flow() {
    let ladder = FlowLadder {
        smallest: 0.01,
        levels: 5,
    };
    assert_eq!(ladder.choices(), 11);
    assert_eq!(ladder.flow(ladder.none()), 0.0);
    for choice in 0..ladder.choices() {
        assert_eq!(
            ladder.flow(choice),
            -ladder.flow(ladder.choices() - 1 - choice)
        );
    }
    let all = vec![true; 11];
    assert_eq!(ladder.flow(ladder.nearest(0.04, &all)), 0.04);
    assert_eq!(ladder.flow(ladder.nearest(-0.05, &all)), -0.04);
    assert_eq!(ladder.flow(ladder.nearest(7.0, &all)), 0.16);
    assert_eq!(ladder.nearest(0.007, &all), ladder.none());
    // a disallowed level falls back to the largest allowed one below it
    let mut some = all.clone();
    some[ladder.nearest(0.04, &all)] = false;
    assert_eq!(ladder.flow(ladder.nearest(0.04, &some)), 0.02);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Whatever allowed flows a scheduler picks, on any channel and dropout schedule, the
    /// demand is met to 1e-9 at every iteration and no centre falls below half its lower
    /// bound.
    #[test]
    fn any_allowed_flows_keep_the_demand_and_the_floor(
        seed in 0u64..1000,
        channel in prop_oneof![
            Just("{ kind = \"exact\" }"),
            Just("{ kind = \"log\", rho = 0.2, smallest = 1e-6, largest = 1e3 }"),
            Just("{ kind = \"uniform\", bits = 8, largest = 100.0 }"),
        ],
        dropout in 0.0f64..0.9,
        boldness in 0.0f64..1.0,
    ) {
        let w = workload(&[
            ("channel", channel),
            ("graph.switching", &format!("{{ kind = \"dropout\", p = {dropout}, period = 3 }}")),
            ("episode.iterations", "60"),
        ]);
        let mut env = NetworkEnv::new(w.clone());
        let (mut observation, _) = env.reset(seed).unwrap();
        let choices = w.spec.flows.choices();
        let mut rng = StdRng::seed_from_u64(seed);
        let costs = w.costs(seed);
        loop {
            // the largest allowed flow in a random direction, or a random allowed one
            let action: Vec<usize> = observation
                .action_mask
                .chunks(choices)
                .map(|dim| {
                    let allowed: Vec<usize> = (0..choices).filter(|&c| dim[c]).collect();
                    if rng.random_bool(boldness) {
                        *if rng.random_bool(0.5) { allowed.first() } else { allowed.last() }.unwrap()
                    } else {
                        allowed[rng.random_range(0..allowed.len())]
                    }
                })
                .collect();
            let step = env.step(&action).unwrap();
            let x = env.allocation().unwrap();
            prop_assert!(step.info.residual <= 1e-9, "{}", step.info.residual);
            for (xi, c) in x.iter().zip(&costs) {
                prop_assert!(*xi >= 0.5 * c.min - 1e-12, "{xi} below {}", c.min);
            }
            observation = step.observation;
            if step.terminated {
                let m = step.info.metrics.unwrap();
                prop_assert!(m.residual_max <= 1e-9);
                prop_assert_eq!(m.iterations, 60);
                break;
            }
        }
    }
}

#[test]
fn every_shipped_network_workload_keeps_the_env_contract() {
    for name in ["network-breast-cancer-svm", "network-diabetes-ridge"] {
        let w = NetworkWorkload::load(&shipped(name), &[]).unwrap();
        let report = check_env(&NetworkEnv::new(Arc::new(w)), CheckOptions::default()).unwrap();
        assert!(report.ended, "{name}: {report:?}");
    }
}

#[test]
fn the_same_seed_gives_the_same_episode_and_training_follows_the_channel() {
    let w = workload(&[("episode.iterations", "40")]);
    let play = |seed| {
        let mut env = NetworkEnv::new(w.clone());
        env.reset(seed).unwrap();
        let none = vec![w.spec.flows.none(); w.base.edges().len()];
        loop {
            let step = env.step(&none).unwrap();
            if step.terminated {
                return step.info.metrics.unwrap();
            }
        }
    };
    assert_eq!(play(3), play(3));
    let (a, b) = (play(3), play(4));
    assert_ne!(a.cost_gap, b.cost_gap);
    // the uniform split never moves: its gap is the same at every iteration
    assert!((a.cost_gap - a.cost_gap_mean).abs() <= 1e-12 * a.cost_gap);
    // 11-bit log messages of the model and tracker
    let coordinates = 2.0 * crate::model::Model::num_params(&*w.model) as f64;
    assert_eq!(a.bits_training % (coordinates * 11.0 * 2.0), 0.0);
}

#[test]
fn bad_network_workloads_are_refused_by_key() {
    let refused = |key: &str, value: &str| {
        let err = NetworkWorkload::load(
            &shipped("network-breast-cancer-svm"),
            &[(key.to_owned(), value.to_owned())],
        )
        .unwrap_err();
        match err {
            EnvError::Config { key: named, .. } => named,
            other => panic!("{other}"),
        }
    };
    assert_eq!(
        refused("graph.switching", "{ kind = \"redraw\", every = 5 }"),
        "graph.switching"
    );
    assert_eq!(
        refused("centres.demand_per_centre", "100.0"),
        "centres.demand_per_centre"
    );
    assert_eq!(
        refused(
            "channel",
            "{ kind = \"log\", rho = 0.0, smallest = 1e-6, largest = 1.0 }"
        ),
        "channel"
    );
    assert_eq!(refused("training.model", "softmax"), "training.model");
    // an unknown key is named by the table that does not know it
    assert_eq!(refused("centres.colour", "5"), "centres");
}
