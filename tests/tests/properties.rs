//! Invariants of the environment under any feasible policy, checked over random seeds.

use std::sync::Arc;

use proptest::prelude::*;
use schedlab_agents::{
    Policy, RandomPolicy, SchedulingEnv, SingleJobContext, StaticPolicy, run_episode,
};
use schedlab_env::{Scenario, SingleJobEnv};
use schedlab_tests::workload;

fn small() -> Arc<Scenario> {
    Scenario::load(&workload("small-4node.toml")).unwrap()
}

/// small-4node cut to `max_rounds` rounds an episode.
fn small_env(max_rounds: usize) -> SingleJobEnv {
    let overrides = [("episode.max_rounds".into(), max_rounds.to_string())];
    SingleJobEnv::new(
        Scenario::load_with_overrides(&workload("small-4node.toml"), &overrides).unwrap(),
    )
}

fn episode_json(scenario: &Arc<Scenario>, policy: &str, seed: u64) -> String {
    let mut env = SingleJobEnv::new(scenario.clone());
    let mut policy: Box<dyn Policy> = match policy {
        "random" => Box::new(RandomPolicy::new(env.policy_context())),
        _ => Box::new(StaticPolicy::new(SingleJobContext::of(&env))),
    };
    serde_json::to_string(&run_episode(&mut env, policy.as_mut(), seed).unwrap()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Whatever feasible action a policy takes: allocation plus background never exceeds a
    /// node's capacity, usage never exceeds allocation, and virtual time only moves forward.
    #[test]
    fn capacity_is_never_exceeded_and_time_never_goes_back(env_seed in 0u64..10_000, policy_seed in 0u64..10_000) {
        let scenario = small();
        let mut env = SingleJobEnv::new(scenario.clone());
        let mut policy = RandomPolicy::new(env.policy_context());
        policy.reset(policy_seed);
        let (mut obs, info) = env.reset(env_seed).unwrap();
        let mut time = info.time_s;
        loop {
            let step = env.step(&policy.act(&obs)).unwrap();
            let dt = step.info.time_s - time;
            prop_assert!(dt > 0.0 || step.terminated, "time went from {time} to {}", step.info.time_s);
            for (n, node) in scenario.nodes.iter().enumerate() {
                let alloc = step.info.allocation[n];
                let peak = step.info.background_peak[n];
                prop_assert!(alloc[0] + peak[0] <= node.cpu_cores + 1e-9, "node {n} CPU {alloc:?} + {peak:?}");
                prop_assert!(alloc[1] + peak[1] <= node.mem_gb + 1e-9, "node {n} memory {alloc:?} + {peak:?}");
                prop_assert!(alloc[2] <= f64::from(node.gpus) + 1e-9, "node {n} GPU {alloc:?}");
                let w = &step.info.workers[n];
                prop_assert!(w.cpu_used_s <= alloc[0] * dt + 1e-9);
                prop_assert!(w.mem_used_gb_s <= alloc[1] * dt + 1e-9);
                prop_assert!(w.gpu_used_s <= alloc[2] * dt + 1e-9);
                prop_assert!(w.compute_s <= dt + 1e-9);
            }
            time = step.info.time_s;
            if step.terminated || step.truncated {
                let m = step.info.metrics.unwrap();
                prop_assert!((0.0..=1.0).contains(&m.fragmentation));
                prop_assert!((0.0..=1.0).contains(&m.gpu_util) && (0.0..=1.0).contains(&m.cpu_util));
                prop_assert!((0.0..=1.0).contains(&m.occupancy));
                break;
            }
            obs = step.observation;
        }
    }

    #[test]
    fn the_same_seed_gives_identical_metrics(seed in 0u64..10_000) {
        let scenario = small();
        prop_assert_eq!(episode_json(&scenario, "random", seed), episode_json(&scenario, "random", seed));
    }
}

#[test]
fn different_seeds_give_different_episodes() {
    let scenario = small();
    assert_ne!(
        episode_json(&scenario, "static", 1),
        episode_json(&scenario, "static", 2)
    );
}

/// Gradients run in parallel; the result must not depend on how many threads do it.
#[test]
fn thread_count_does_not_change_results() {
    let overrides = [("episode.max_rounds".to_owned(), "3".to_owned())];
    for (name, policy) in [
        ("small-4node.toml", "random"),
        ("paper-10node.toml", "static"),
    ] {
        let scenario = Scenario::load_with_overrides(&workload(name), &overrides).unwrap();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| episode_json(&scenario, policy, 5))
        };
        let one = run(1);
        assert_eq!(one, run(2), "{name}: 1 vs 2 threads");
        assert_eq!(one, run(3), "{name}: 1 vs 3 threads");
    }
}

#[test]
fn vectorised_env_auto_resets_with_derived_seeds() {
    let prototype = small_env(2);
    let mut vec_env = schedlab_env::VecEnv::new(&prototype, 3, 11);
    let first = vec_env.reset().unwrap();
    let mut policy = StaticPolicy::new(SingleJobContext::of(&vec_env.envs()[0]));
    let actions: Vec<Vec<usize>> = first.iter().map(|o| policy.act(o)).collect();
    let one = vec_env.step(&actions).unwrap();
    assert!(one.final_observations.iter().all(Option::is_none));
    let actions: Vec<Vec<usize>> = one.observations.iter().map(|o| policy.act(o)).collect();
    let two = vec_env.step(&actions).unwrap();
    for i in 0..3 {
        assert!(
            two.truncated[i] || two.terminated[i],
            "max_rounds = 2 ends every episode"
        );
        assert!(two.infos[i].metrics.is_some());
        assert!(two.final_observations[i].is_some());
        // each step's elapsed virtual time adds up to the episode's clock (reset at 0)
        let clock = two.infos[i].time_s;
        assert!(one.elapsed_s[i] > 0.0 && two.elapsed_s[i] > 0.0);
        assert!((one.elapsed_s[i] + two.elapsed_s[i] - clock).abs() < 1e-9 * clock);
        // the returned observation starts a new episode: no history yet
        assert!(two.observations[i].features[..60].iter().all(|&v| v == 0.0));
    }
    // the same base seed replays the same episodes
    let mut again = schedlab_env::VecEnv::new(&prototype, 3, 11);
    assert_eq!(again.reset().unwrap(), first);
}

/// The vectorised env steps its copies one after another on one thread and in parallel once
/// steps are costly (small-4node's train real gradients): the same actions give the same
/// batches either way.
#[test]
fn vectorised_env_gives_the_same_batches_serial_and_parallel() {
    let prototype = small_env(3);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut vec_env = schedlab_env::VecEnv::new(&prototype, 4, 5);
            let mut policy = StaticPolicy::new(SingleJobContext::of(&vec_env.envs()[0]));
            let mut observations = vec_env.reset().unwrap();
            let mut batches = Vec::new();
            for _ in 0..10 {
                let actions: Vec<Vec<usize>> = observations.iter().map(|o| policy.act(o)).collect();
                let step = vec_env.step(&actions).unwrap();
                batches.push(
                    serde_json::to_string(&(
                        &step.observations,
                        &step.rewards,
                        &step.terminated,
                        &step.truncated,
                        &step.final_observations,
                        &step.elapsed_s,
                    ))
                    .unwrap(),
                );
                observations = step.observations;
            }
            batches
        })
    };
    assert_eq!(run(1), run(2));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// A batch rebuilt from its history (what a training checkpoint keeps) is the batch it was:
    /// the same observations now, and the same steps for the same actions from there, across
    /// episode ends.
    #[test]
    fn a_vectorised_env_replayed_from_its_history_continues_as_the_original(
        before in 0usize..9, policy_seed in 0u64..1_000, base_seed in 0u64..1_000,
    ) {
        let prototype = small_env(4);
        let mut original = schedlab_env::VecEnv::new(&prototype, 3, base_seed);
        let mut policy = RandomPolicy::new(prototype.policy_context());
        policy.reset(policy_seed);
        let mut observations = original.reset().unwrap();
        for _ in 0..before {
            let actions: Vec<Vec<usize>> = observations.iter().map(|o| policy.act(o)).collect();
            observations = original.step(&actions).unwrap().observations;
        }
        let history = original.history();
        let json = serde_json::to_string(&history).unwrap();
        let mut replayed = schedlab_env::VecEnv::new(&prototype, 3, base_seed);
        let restored = replayed.replay(&serde_json::from_str(&json).unwrap()).unwrap();
        prop_assert_eq!(&restored, &observations);
        for _ in 0..6 {
            let actions: Vec<Vec<usize>> = observations.iter().map(|o| policy.act(o)).collect();
            let (a, b) = (original.step(&actions).unwrap(), replayed.step(&actions).unwrap());
            prop_assert_eq!(&a.observations, &b.observations);
            prop_assert_eq!(&a.rewards, &b.rewards);
            prop_assert_eq!(&a.truncated, &b.truncated);
            prop_assert_eq!(&a.elapsed_s, &b.elapsed_s);
            observations = a.observations;
        }
        prop_assert_eq!(original.history(), replayed.history());
        // a history is refused on a batch of another size, naming the counts
        let mut other = schedlab_env::VecEnv::new(&prototype, 2, base_seed);
        let err = other.replay(&history).unwrap_err().to_string();
        prop_assert!(err.contains("3 copies replayed on 2"), "{}", err);
    }
}
