use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::error::EnvError;
use crate::gym::{CheckOptions, Environment, check_env};
use crate::workload_file::WorkloadFile;

const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/workloads/bandit.toml");

fn shipped(overrides: &[(&str, &str)]) -> crate::error::Result<BanditWorkload> {
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    BanditWorkload::load(Path::new(SHIPPED), &overrides)
}

#[test]
fn the_shipped_bandit_passes_the_env_checker() {
    let env = BanditEnv::new(Arc::new(shipped(&[]).unwrap()));
    check_env(&env, CheckOptions::default()).unwrap();
}

#[test]
fn odd_states_mask_the_best_level_so_the_optimum_is_the_best_allowed() {
    let w = shipped(&[]).unwrap();
    let b = &w.spec.bandit;
    for state in 0..b.states {
        let optimum = w.optimum(state);
        for (dim, &best) in optimum.iter().enumerate() {
            let allowed = w.allowed(state, dim);
            assert!(allowed[best]);
            let unmasked_best = (0..b.levels)
                .max_by(|&a, &c| w.mean(state, dim, a).total_cmp(&w.mean(state, dim, c)))
                .unwrap();
            assert_eq!(
                best == unmasked_best,
                state % 2 == 0,
                "state {state} dim {dim}"
            );
            for level in (0..b.levels).filter(|&l| allowed[l]) {
                assert!(w.mean(state, dim, level) <= w.mean(state, dim, best));
            }
        }
        assert_eq!(w.regret(state, &optimum), 0.0);
    }
}

#[test]
fn playing_the_optimum_has_no_regret_and_a_masked_level_is_refused() {
    let w = Arc::new(shipped(&[]).unwrap());
    let mut env = BanditEnv::new(Arc::clone(&w));
    let (mut observation, _) = env.reset(7).unwrap();
    let mut odd_seen = false;
    loop {
        let state = env.state().unwrap();
        if state % 2 == 1 && !odd_seen {
            odd_seen = true;
            let mut unmasked = w.optimum(state);
            unmasked[0] = (0..w.spec.bandit.levels)
                .find(|&l| !observation.action_mask[l])
                .unwrap();
            assert!(matches!(env.step(&unmasked), Err(EnvError::BadAction(_))));
        }
        let step = env.step(&w.optimum(state)).unwrap();
        observation = step.observation;
        if step.terminated {
            let m = step.info.metrics.unwrap();
            assert_eq!(m.regret, 0.0);
            assert_eq!(m.optimal_share, 1.0);
            break;
        }
    }
    assert!(odd_seen, "the episode showed an odd state");
}

#[test]
fn the_same_seed_gives_the_same_states_and_rewards() {
    let w = Arc::new(shipped(&[]).unwrap());
    let walk = |seed| {
        let mut env = BanditEnv::new(Arc::clone(&w));
        env.reset(seed).unwrap();
        let mut seen = Vec::new();
        for _ in 0..w.spec.bandit.steps {
            let step = env.step(&w.optimum(env.state().unwrap())).unwrap();
            seen.push((step.info.state, step.reward.to_bits()));
        }
        seen
    };
    assert_eq!(walk(3), walk(3));
    assert_ne!(walk(3), walk(4));
}

#[test]
fn bad_values_are_refused_naming_their_key() {
    for (key, value) in [
        ("bandit.levels", "1"),
        ("bandit.states", "0"),
        ("bandit.noise", "-1.0"),
        ("kind", "\"jobs\""),
    ] {
        let err = shipped(&[(key, value)]).unwrap_err().to_string();
        assert!(err.contains(key), "{key}={value}: {err}");
    }
    let text = "kind = \"bandit\"\nname = \"b\"\n[bandit]\nstates = 2\ndims = 1\nlevels = 2\nsteps = 1\nnoise = 0.0\nseed = 0\narms = 3\n";
    let file = WorkloadFile {
        path: "inline.toml".into(),
        text: text.into(),
    };
    let err = BanditWorkload::load_file(&file, &[])
        .unwrap_err()
        .to_string();
    assert!(err.contains("arms"), "{err}");
}
