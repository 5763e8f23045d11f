use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::error::EnvError;
use crate::gym::{CheckOptions, Environment, Step, check_env};

const WORKLOADS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/workloads");

fn load(file: &str, overrides: &[(&str, &str)]) -> crate::error::Result<MarkovWorkload> {
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    MarkovWorkload::load(&Path::new(WORKLOADS).join(file), &overrides)
}

fn env_of(file: &str) -> MarkovEnv {
    MarkovEnv::new(Arc::new(load(file, &[]).unwrap()))
}

/// Plays `level` at every step (the only one allowed where one is masked) until the episode
/// ends, returning every step.
fn play(env: &mut MarkovEnv, level: impl Fn(usize) -> usize) -> Vec<Step<MarkovInfo>> {
    let (mut observation, _) = env.reset(0).unwrap();
    let mut steps = Vec::new();
    for t in 0.. {
        let wanted = level(t);
        let allowed = if observation.action_mask[wanted] {
            wanted
        } else {
            0
        };
        let step = env.step(&[allowed]).unwrap();
        observation = step.observation.clone();
        let over = step.terminated || step.truncated;
        steps.push(step);
        if over {
            break;
        }
    }
    steps
}

#[test]
fn the_shipped_chains_pass_the_env_checker() {
    for file in ["chain.toml", "semi-markov-chain.toml"] {
        check_env(&env_of(file), CheckOptions::default()).unwrap();
    }
}

#[test]
fn forward_everywhere_is_the_chains_answer_and_back_pays_at_once() {
    let mut env = env_of("chain.toml");
    let forward = play(&mut env, |_| 1);
    assert_eq!(forward.len(), 7);
    assert!(forward.last().unwrap().terminated);
    let m = forward.last().unwrap().info.metrics.clone().unwrap();
    assert_eq!((m.episode_return, m.optimal_share), (1.0, 1.0));
    // back at every step: 0.001 a step, truncated at the limit, never at the end
    let back = play(&mut env, |_| 0);
    assert_eq!(back.len(), 32);
    let last = back.last().unwrap();
    assert!(last.truncated && !last.terminated);
    let m = last.info.metrics.clone().unwrap();
    assert!((m.episode_return - 0.032).abs() < 1e-9 && m.optimal_share == 0.0);
    // one step back from state 3 returns to the first state
    env.reset(0).unwrap();
    for _ in 0..3 {
        env.step(&[1]).unwrap();
    }
    let step = env.step(&[0]).unwrap();
    assert_eq!(step.observation.features[0], 1.0);
    assert_eq!(step.reward, 0.001);
}

#[test]
fn same_time_choices_take_no_time_and_their_cost_comes_with_the_timed_step() {
    let mut env = env_of("semi-markov-chain.toml");
    // bad at the first 16 choices of every point, good after
    let steps = play(&mut env, |t| usize::from(t % 65 >= 16));
    assert_eq!(steps.len(), 8 * 65);
    for (t, step) in steps.iter().enumerate() {
        let timed = t % 65 == 64;
        let points_done = (t + 1) / 65;
        assert_eq!(step.info.time_s, 3600.0 * points_done as f64, "step {t}");
        assert_eq!(step.reward, if timed { -0.25 } else { 0.0 }, "step {t}");
        // the next observation is the timed step (only `advance` allowed) after 64 choices
        let next_timed = t % 65 == 63;
        assert_eq!(
            step.observation.action_mask,
            vec![true, !next_timed],
            "step {t}"
        );
    }
    let last = steps.last().unwrap();
    assert!(last.terminated);
    let m = last.info.metrics.clone().unwrap();
    assert_eq!(m.optimal_share, 0.75);
    assert!((m.episode_return + 2.0).abs() < 1e-9);
    // the good level everywhere is the answer: nothing is paid
    let good = play(&mut env, |_| 1);
    assert_eq!(
        good.last()
            .unwrap()
            .info
            .metrics
            .clone()
            .unwrap()
            .episode_return,
        0.0
    );
}

#[test]
fn the_timed_step_refuses_a_choice_and_a_finished_episode_refuses_steps() {
    let mut env = env_of("semi-markov-chain.toml");
    env.reset(0).unwrap();
    for _ in 0..64 {
        env.step(&[1]).unwrap();
    }
    assert!(matches!(env.step(&[1]), Err(EnvError::BadAction(_))));
    let mut chain = env_of("chain.toml");
    play(&mut chain, |_| 1);
    assert!(matches!(chain.step(&[1]), Err(EnvError::EpisodeOver)));
}

#[test]
fn bad_chain_files_are_refused_naming_the_key() {
    for (file, key, value) in [
        ("chain.toml", "markov.length", "1"),
        ("chain.toml", "markov.back_reward", "nan"),
        ("chain.toml", "markov.max_steps", "0"),
        ("semi-markov-chain.toml", "markov.choices", "0"),
        ("semi-markov-chain.toml", "markov.step_s", "0.0"),
    ] {
        let err = load(file, &[(key, value)]).unwrap_err().to_string();
        assert!(err.contains(key), "{key}={value}: {err}");
    }
    let err = load("chain.toml", &[("markov.choices", "3")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("choices"), "{err}");
}
