use std::path::Path;
use std::sync::Arc;

use super::acrobot::Acrobot;
use super::cartpole::CartPole;
use super::env::State;
use super::*;
use crate::gym::{CheckOptions, Environment, check_env};

const WORKLOADS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/workloads");
const RECORDED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../data/fixtures/gymnasium-classic-control.json"
);

fn env_of(file: &str, overrides: &[(&str, &str)]) -> ControlEnv {
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let workload = ControlWorkload::load(&Path::new(WORKLOADS).join(file), &overrides).unwrap();
    ControlEnv::new(Arc::new(workload))
}

/// Gymnasium's own trajectories (examples/record_gymnasium_trajectories.py), replayed from
/// their start states with their actions: every observation within single precision, every
/// reward and flag equal.
#[test]
fn cartpole_and_acrobot_follow_gymnasiums_recorded_trajectories() {
    let text = std::fs::read_to_string(RECORDED).unwrap();
    let record: serde_json::Value = serde_json::from_str(&text).unwrap();
    let episodes = record["episodes"].as_array().unwrap();
    assert_eq!(episodes.len(), 6);
    for episode in episodes {
        let id = episode["env"].as_str().unwrap();
        let start: Vec<f64> = serde_json::from_value(episode["start"].clone()).unwrap();
        let start: [f64; 4] = start.try_into().unwrap();
        let (mut env, state) = match id {
            "CartPole-v1" => (
                env_of("cartpole.toml", &[]),
                State::CartPole(CartPole(start)),
            ),
            "Acrobot-v1" => (env_of("acrobot.toml", &[]), State::Acrobot(Acrobot(start))),
            other => panic!("{other}"),
        };
        env.reset(0).unwrap();
        env.reset_to(state);
        for (t, want) in episode["steps"].as_array().unwrap().iter().enumerate() {
            let action = want["action"].as_u64().unwrap() as usize;
            let step = env.step(&[action]).unwrap();
            let observed: Vec<f64> = serde_json::from_value(want["observation"].clone()).unwrap();
            for (got, want) in step.observation.features.iter().zip(&observed) {
                let tolerance = 1e-5 * want.abs().max(1.0);
                assert!(
                    (f64::from(*got) - want).abs() <= tolerance,
                    "{id} seed {} step {t}: {:?} vs {observed:?}",
                    episode["seed"],
                    step.observation.features
                );
            }
            assert_eq!(
                step.reward,
                want["reward"].as_f64().unwrap(),
                "{id} step {t}"
            );
            assert_eq!(
                step.terminated,
                want["terminated"].as_bool().unwrap(),
                "{id} step {t}"
            );
            assert_eq!(
                step.truncated,
                want["truncated"].as_bool().unwrap(),
                "{id} step {t}"
            );
        }
    }
}

#[test]
fn the_shipped_tasks_pass_the_env_checker() {
    for file in ["cartpole.toml", "acrobot.toml"] {
        check_env(&env_of(file, &[]), CheckOptions::default()).unwrap();
    }
}

/// Gymnasium's TimeLimit: an episode still running at `max_steps` is truncated there, not
/// terminated; balancing by the pole's lean keeps CartPole up for the whole 500 steps.
#[test]
fn an_episode_still_up_at_the_time_limit_is_truncated() {
    let mut env = env_of("cartpole.toml", &[]);
    let (mut observation, _) = env.reset(5).unwrap();
    let mut steps = 0;
    loop {
        let lean = observation.features[2] + 0.5 * observation.features[3];
        let step = env.step(&[usize::from(lean > 0.0)]).unwrap();
        steps += 1;
        if step.terminated || step.truncated {
            assert!(step.truncated && !step.terminated, "fell at step {steps}");
            let metrics = step.info.metrics.unwrap();
            assert_eq!((metrics.steps, metrics.episode_return), (500, 500.0));
            break;
        }
        observation = step.observation;
    }
    let mut short = env_of("cartpole.toml", &[("control.max_steps", "3")]);
    short.reset(0).unwrap();
    let last = (0..3).map(|_| short.step(&[0]).unwrap()).last().unwrap();
    assert!(last.truncated);
}

#[test]
fn bad_values_are_refused_naming_their_key() {
    for (key, value) in [("control.max_steps", "0"), ("control.task", "\"pendulum\"")] {
        let overrides = vec![(key.to_owned(), value.to_owned())];
        let err = ControlWorkload::load(&Path::new(WORKLOADS).join("cartpole.toml"), &overrides)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(key.rsplit('.').next().unwrap()),
            "{key}={value}: {err}"
        );
    }
}
