//! Tasks whose answer is known, learned through the same trainer, run folders and loaders as
//! any scheduling env: each learner trains on the masked bandit (data/workloads/bandit.toml,
//! env/src/bandit/) and its greedy policy must play the optimum, the best allowed level of
//! every dimension, which odd states mask.

use std::path::PathBuf;
use std::sync::Arc;

use burn::tensor::Device;
use schedlab_agents::SchedulingEnv;
use schedlab_env::Environment;
use schedlab_env::bandit::{BanditEnv, BanditWorkload};

use crate::algorithms::{AgentKind, load_agent};
use crate::train::{TrainSpec, train};

/// The share of (step, dimension) choices of `episodes` greedy episodes that are the
/// optimum, after `agent` trained `steps` rounds from `seed` with its bandit defaults.
fn greedy_optimal_share(agent: &str, steps: u64, seed: u64) -> f64 {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/bandit.toml");
    let workload = Arc::new(BanditWorkload::load(&path, &[]).unwrap());
    let env = BanditEnv::new(Arc::clone(&workload));
    let out = tempfile::tempdir().unwrap();
    let kind = AgentKind::named(agent);
    let config = kind.configure(env.context().kind(), &[]).unwrap();
    let spec = TrainSpec {
        workload_path: &path,
        out: out.path(),
        seed,
        steps,
        checkpoint_every: steps,
        eval_every: steps,
        eval_episodes: 0,
        resume: None,
        stop: None,
        play_settings: &[],
        workload_settings: &[],
    };
    let device = Device::flex();
    let run = train(
        kind,
        &env,
        config,
        &spec,
        device.clone().autodiff(),
        &mut |_| {},
    )
    .unwrap();
    let mut policy = load_agent(&run.path, &env.context(), &device, &[]).unwrap();
    let (mut optimal, mut choices) = (0, 0);
    let mut env = env.fresh_copy();
    for episode in 0..20 {
        let (mut observation, _) = env.reset(1_000 + episode).unwrap();
        loop {
            let state = env.state().unwrap();
            let action = policy.act(&observation);
            let best = workload.optimum(state);
            optimal += action.iter().zip(&best).filter(|(a, b)| a == b).count();
            choices += best.len();
            let step = env.step(&action).unwrap();
            if step.terminated || step.truncated {
                break;
            }
            observation = step.observation;
        }
    }
    optimal as f64 / choices as f64
}

#[test]
fn ppo_plays_the_bandits_optimum_on_two_seeds() {
    for seed in [0, 1] {
        assert_eq!(
            greedy_optimal_share("ppo", 60_000, seed),
            1.0,
            "seed {seed}"
        );
    }
}

#[test]
fn a2c_plays_the_bandits_optimum_on_two_seeds() {
    for seed in [0, 1] {
        assert_eq!(
            greedy_optimal_share("a2c", 200_000, seed),
            1.0,
            "seed {seed}"
        );
    }
}

#[test]
fn dqn_plays_the_bandits_optimum_on_two_seeds() {
    for seed in [0, 1] {
        assert_eq!(
            greedy_optimal_share("dqn", 20_000, seed),
            1.0,
            "seed {seed}"
        );
    }
}
