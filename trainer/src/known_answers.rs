//! Tasks whose answer is known, learned through the same trainer, run folders and loaders as
//! any scheduling env: each learner trains on the masked bandit (data/workloads/bandit.toml,
//! env/src/bandit/) and its greedy policy must play the optimum, the best allowed level of
//! every dimension, which odd states mask; PPO and DQN must walk the chain MDP to its end past
//! the nearby reward (data/workloads/chain.toml, env/src/markov/); λ per decision point or per
//! time must carry a decision point's cost back to its first same-time choice (the semi-Markov
//! chain); PPO with CleanRL's settings must solve CartPole-v1 (data/workloads/cartpole.toml,
//! env/src/control/) as CleanRL's does.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use burn::tensor::Device;
use schedlab_agents::{Policy, SchedulingEnv};
use schedlab_env::Environment;
use schedlab_env::bandit::{BanditEnv, BanditWorkload};
use schedlab_env::markov::{MarkovEnv, MarkovWorkload};

use crate::algorithms::{AgentKind, load_agent};
use crate::train::{TrainSpec, train};

fn shipped(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data/workloads")
        .join(file)
}

fn pairs(settings: &[(&str, &str)]) -> Vec<(String, String)> {
    settings
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A run of `steps` from `seed` with one checkpoint at its end and no evaluations.
fn run_spec<'a>(
    path: &'a Path,
    out: &'a Path,
    seed: u64,
    steps: u64,
    stop: Option<&'a AtomicBool>,
) -> TrainSpec<'a> {
    TrainSpec {
        workload_path: path,
        out,
        seed,
        steps,
        checkpoint_every: steps,
        eval_every: steps,
        eval_episodes: 0,
        resume: None,
        stop,
        play_settings: &[],
        workload_settings: &[],
    }
}

/// The greedy policy of `agent` after training `steps` rounds from `seed` on `env` (the
/// workload at `path`) with `settings` over its defaults, and the run folder it reads its
/// weights from (mapped, so the folder must outlive the policy).
fn trained_greedy<E: SchedulingEnv>(
    agent: &str,
    env: &E,
    path: &Path,
    settings: &[(&str, &str)],
    steps: u64,
    seed: u64,
) -> (tempfile::TempDir, Box<dyn Policy>) {
    let out = tempfile::tempdir().unwrap();
    let kind = AgentKind::named(agent);
    let config = kind
        .configure(env.context().kind(), &pairs(settings))
        .unwrap();
    let spec = run_spec(path, out.path(), seed, steps, None);
    let device = Device::flex();
    let run = train(
        kind,
        env,
        config,
        &spec,
        device.clone().autodiff(),
        &mut |_| {},
    )
    .unwrap();
    let policy = load_agent(&run.path, &env.context(), &device, &[]).unwrap();
    (out, policy)
}

/// The share of (step, dimension) choices of `episodes` greedy episodes that are the
/// optimum, after `agent` trained `steps` rounds from `seed` with its bandit defaults.
fn greedy_optimal_share(agent: &str, steps: u64, seed: u64) -> f64 {
    let path = shipped("bandit.toml");
    let workload = Arc::new(BanditWorkload::load(&path, &[]).unwrap());
    let env = BanditEnv::new(Arc::clone(&workload));
    let (_run, mut policy) = trained_greedy(agent, &env, &path, &[], steps, seed);
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

/// The greedy policy of `agent` after `steps` plays the optimum everywhere, on seeds 0 and 1.
fn plays_the_optimum_on_two_seeds(agent: &str, steps: u64) {
    for seed in [0, 1] {
        let share = greedy_optimal_share(agent, steps, seed);
        assert_eq!(share, 1.0, "{agent} seed {seed}");
    }
}

#[test]
fn ppo_plays_the_bandits_optimum_on_two_seeds() {
    plays_the_optimum_on_two_seeds("ppo", 60_000);
}

#[test]
fn a2c_plays_the_bandits_optimum_on_two_seeds() {
    plays_the_optimum_on_two_seeds("a2c", 200_000);
}

#[test]
fn dqn_plays_the_bandits_optimum_on_two_seeds() {
    plays_the_optimum_on_two_seeds("dqn", 20_000);
}

/// The greedy policy of `agent` (with `settings`) after `steps` walks the chain to its end,
/// past the reward of going back, on seeds 0 and 1: a return of 1 in 7 steps.
fn walks_the_chain_on_two_seeds(agent: &str, settings: &[(&str, &str)], steps: u64) {
    let path = shipped("chain.toml");
    let env = MarkovEnv::new(Arc::new(MarkovWorkload::load(&path, &[]).unwrap()));
    for seed in [0, 1] {
        let (_run, mut policy) = trained_greedy(agent, &env, &path, settings, steps, seed);
        let mut play = env.fresh_copy();
        let (mut observation, _) = play.reset(0).unwrap();
        let (mut total, mut steps_taken) = (0.0, 0);
        loop {
            let step = play.step(&policy.act(&observation)).unwrap();
            total += step.reward;
            steps_taken += 1;
            if step.terminated || step.truncated {
                break;
            }
            observation = step.observation;
        }
        assert_eq!((total, steps_taken), (1.0, 7), "{agent} seed {seed}");
    }
}

#[test]
fn ppo_with_cleanrls_settings_walks_the_chain_past_the_nearby_reward() {
    walks_the_chain_on_two_seeds("ppo", &CLEANRL_PPO, 60_000);
}

#[test]
fn dqn_walks_the_chain_past_the_nearby_reward() {
    walks_the_chain_on_two_seeds("dqn", &[], 30_000);
}

/// The semi-Markov chain's first decision point played with the bad level at each of its 64
/// same-time choices, so the timed step after them costs 1, with every value 0, through
/// `VecEnv` and PPO's own λ and discount per step. By hand, the timed step's own advantage is
/// its cost, -1: λ per decision point or per time carries at least 0.9 of it back to the
/// first choice, λ per choice (the default, which won on the jobs family: docs/learned.md)
/// 0.95^64 = 0.037 of it.
#[test]
fn lambda_per_point_or_time_carries_a_decision_points_cost_to_its_first_choice() {
    use schedlab_agents::learned::gae::{LambdaPer, Transition, gae, step_discount};
    use schedlab_env::VecEnv;
    let path = shipped("semi-markov-chain.toml");
    let env = MarkovEnv::new(Arc::new(MarkovWorkload::load(&path, &[]).unwrap()));
    let first_choice = |per: LambdaPer| {
        let config = crate::ppo::PpoConfig {
            discount_time_s: 3600.0,
            gae_lambda_per: per,
            ..crate::ppo::PpoConfig::default()
        };
        let mut envs = VecEnv::new(&env, 1, 0);
        envs.reset().unwrap();
        let transitions: Vec<Transition> = (0..65)
            .map(|_| {
                let step = envs.step(&[vec![0]]).unwrap();
                let elapsed = step.elapsed_s[0];
                Transition {
                    reward: step.rewards[0] as f32,
                    value: 0.0,
                    next_value: 0.0,
                    terminated: step.terminated[0],
                    truncated: step.truncated[0],
                    discount: step_discount(config.gamma, config.discount_time_s, elapsed),
                    lambda: config.step_lambda(elapsed),
                }
            })
            .collect();
        let (advantages, _) = gae(&transitions);
        (advantages[0], advantages[64])
    };
    for per in [LambdaPer::Point, LambdaPer::Time] {
        let (first, timed_alone) = first_choice(per);
        assert_eq!(timed_alone, -1.0);
        assert!(first <= 0.9 * timed_alone, "{per:?}: {first}");
    }
    let (first, _) = first_choice(LambdaPer::Choice);
    assert!((first + 0.95f32.powi(64)).abs() < 1e-4, "{first}");
    assert_eq!(
        crate::ppo::PpoConfig::default().gae_lambda_per,
        LambdaPer::Choice
    );
}

/// CleanRL ppo.py's settings in this learner's keys (docs/learned.md): `value_coef` 0.25 is
/// CleanRL's `vf_coef` 0.5 on half the squared error; the torsos are tanh, as CleanRL's.
pub(crate) const CLEANRL_PPO: [(&str, &str); 16] = [
    ("envs", "4"),
    ("rollout_steps", "128"),
    ("lr", "2.5e-4"),
    ("anneal_lr", "true"),
    ("epochs", "4"),
    ("minibatches", "4"),
    ("gamma", "0.99"),
    ("gae_lambda", "0.95"),
    ("clip", "0.2"),
    ("clip_value", "true"),
    ("entropy_coef", "0.01"),
    ("value_coef", "0.25"),
    ("max_grad_norm", "0.5"),
    ("hidden", "64"),
    ("tanh", "true"),
    ("normalize_rewards", "false"),
];

/// The env step at which the mean return of the last 20 training episodes first reached
/// `bar`, training `agent` with `settings` on the control workload `file` in a run of
/// `steps` (what schedules such as the learning rate's span) stopped after `within`.
fn steps_to_reach(
    agent: &str,
    file: &str,
    settings: &[(&str, &str)],
    (steps, within): (u64, u64),
    seed: u64,
    bar: f64,
) -> Option<u64> {
    use schedlab_env::EpisodeSummary;
    use schedlab_env::control::{ControlEnv, ControlWorkload};
    let path = shipped(file);
    let env = ControlEnv::new(Arc::new(ControlWorkload::load(&path, &[]).unwrap()));
    let out = tempfile::tempdir().unwrap();
    let stop = AtomicBool::new(false);
    let kind = AgentKind::named(agent);
    let config = kind
        .configure(env.context().kind(), &pairs(settings))
        .unwrap();
    let spec = run_spec(&path, out.path(), seed, steps, Some(&stop));
    let (mut returns, mut reached) = (Vec::new(), None);
    let device = Device::flex().autodiff();
    train(kind, &env, config, &spec, device, &mut |p| {
        returns.extend(p.stats.finished.iter().map(|m| m.episode_return()));
        let last = &returns[returns.len().saturating_sub(20)..];
        if reached.is_none() && last.len() == 20 && last.iter().sum::<f64>() / 20.0 >= bar {
            reached = Some(p.stats.env_steps);
        }
        if p.stats.env_steps >= within || reached.is_some() {
            stop.store(true, Ordering::Relaxed);
        }
    })
    .unwrap();
    reached
}

/// CleanRL's bar for CartPole-v1: PPO with ppo.py's settings (a run of its 500k steps, the
/// rate annealed over them) averages 475 or more over 20 training episodes within 300k
/// steps, on 2 of 2 seeds.
#[test]
fn ppo_with_cleanrls_settings_solves_cartpole_on_two_seeds() {
    for seed in [0, 1] {
        let reached = steps_to_reach(
            "ppo",
            "cartpole.toml",
            &CLEANRL_PPO,
            (500_000, 300_000),
            seed,
            475.0,
        );
        assert!(reached.is_some(), "seed {seed}: never reached 475");
    }
}
