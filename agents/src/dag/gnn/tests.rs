use std::path::Path;
use std::sync::Arc;

use burn::tensor::{Device, Tensor};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use schedlab_env::Environment;
use schedlab_env::dag::{DagEnv, DagWorkload, GPU_FEATURES};

use super::*;
use crate::run_episode;

fn workload(tasks: usize, ready_tasks: usize) -> Arc<DagWorkload> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/dag-layered.toml");
    let overrides = [
        ("dags.layered.tasks".to_owned(), tasks.to_string()),
        ("ready_tasks".to_owned(), ready_tasks.to_string()),
    ];
    Arc::new(DagWorkload::load(&path, &overrides).unwrap())
}

fn rows(t: Tensor<2>) -> Vec<Vec<f32>> {
    let [n, w] = t.dims();
    let flat = t.into_data().try_into_vec::<f32>().unwrap();
    (0..n).map(|i| flat[i * w..(i + 1) * w].to_vec()).collect()
}

/// Relabelling an instance's tasks relabels the embeddings, and so the scores of every
/// (task, GPU) choice, which see a task only through its embedding and the env's features of
/// the pair: no weight belongs to a task's index.
#[test]
fn embeddings_and_so_scores_permute_with_the_tasks() {
    let device = Device::flex();
    let net = DagGnnConfig::new(32, 3, 64).init(&device);
    let problem = workload(30, 0).instance(3);
    let mut order: Vec<usize> = (0..problem.len()).collect();
    order.shuffle(&mut StdRng::seed_from_u64(9));
    let renumbered = problem.renumbered(&order);
    let original = rows(net.embed(&TaskInputs::of(&problem), &device));
    let relabelled = rows(net.embed(&TaskInputs::of(&renumbered), &device));
    for (k, &t) in order.iter().enumerate() {
        for (a, b) in relabelled[k].iter().zip(&original[t]) {
            assert!((a - b).abs() < 1e-5, "task {t} as {k}: {a} against {b}");
        }
    }
    assert!(
        original.iter().any(|row| row != &original[0]),
        "tasks embed alike: the test would not see a permutation"
    );
}

/// A follower fed the choices made knows the task of every row: the env's own features of
/// each offered task (its mean execution and upward rank) are those of the follower's task,
/// whichever allowed choice is taken, in both interfaces.
#[test]
fn the_follower_knows_the_task_of_every_choice_row() {
    let mut rng = StdRng::seed_from_u64(4);
    for ready_tasks in [0, 1, 3] {
        let workload = workload(40, ready_tasks);
        let mut env = DagEnv::new(Arc::clone(&workload));
        let (mut observation, _) = env.reset(2).unwrap();
        let problem = workload.instance(2);
        let inputs = TaskInputs::of(&problem);
        let mut follower = Follower::new(&problem, ready_tasks);
        let gpus = problem.gpus();
        loop {
            let tasks = follower.row_tasks(&problem).to_vec();
            let rows = choice_rows(&observation, ready_tasks, gpus);
            for (row, &task) in tasks.iter().enumerate() {
                if !observation.action_mask[row] {
                    continue;
                }
                let seen = &rows[row * CHOICE_INPUTS + GPU_FEATURES..][..2];
                let own = &inputs.features[task * TASK_INPUTS..][..2];
                assert!(
                    (seen[0] - own[0]).abs() < 1e-5 && (seen[1] - own[1]).abs() < 1e-5,
                    "window {ready_tasks}, row {row}: the env offers {seen:?}, task {task} is {own:?}"
                );
            }
            let allowed: Vec<usize> = (0..observation.action_mask.len())
                .filter(|&c| observation.action_mask[c])
                .collect();
            let choice = allowed[rng.random_range(0..allowed.len())];
            follower.chose(choice);
            let step = env.step(&[choice]).unwrap();
            assert_eq!(step.info.task, tasks[choice]);
            if step.terminated {
                break;
            }
            observation = step.observation;
        }
    }
}

/// Following the env's window from its own choices, the policy plays whole episodes in both
/// interfaces (every choice allowed), on DAGs of any size.
#[test]
fn the_policy_plays_any_size_in_both_interfaces() {
    let device = Device::flex();
    let net = DagGnnConfig::new(32, 3, 64).init(&device);
    for (tasks, ready_tasks) in [(12, 0), (40, 0), (40, 3), (90, 6)] {
        let workload = workload(tasks, ready_tasks);
        let mut env = DagEnv::new(Arc::clone(&workload));
        let mut policy = GnnPolicy::new(net.clone(), workload, env.action_space().clone());
        for seed in 0..3 {
            let metrics = run_episode(&mut env, &mut policy, seed).unwrap();
            assert_eq!(metrics.tasks, tasks, "{tasks} tasks, window {ready_tasks}");
            env.schedule()
                .unwrap()
                .validate(env.problem().unwrap())
                .unwrap();
        }
    }
}

/// Decoding several episodes keeps the shortest: never longer than the greedy episode, shorter
/// on some instance (an untrained network's softmax is wide), a valid schedule, and the same
/// makespans again from the same seeds.
#[test]
fn sampled_decoding_is_never_longer_than_greedy_and_repeats() {
    let device = Device::flex();
    // a seeded network: how wide an untrained softmax is depends on its draw
    device.seed(11);
    let net = DagGnnConfig::new(32, 3, 64).init(&device);
    for ready_tasks in [0, 3] {
        let workload = workload(40, ready_tasks);
        let mut env = DagEnv::new(Arc::clone(&workload));
        let space = env.action_space().clone();
        let mut greedy = GnnPolicy::new(net.clone(), Arc::clone(&workload), space.clone());
        let sampled = |samples| {
            let mut policy = GnnPolicy::new(net.clone(), Arc::clone(&workload), space.clone())
                .with_samples(samples);
            let mut env = DagEnv::new(Arc::clone(&workload));
            (0..4)
                .map(|seed| {
                    let m = run_episode(&mut env, &mut policy, seed).unwrap();
                    env.schedule()
                        .unwrap()
                        .validate(env.problem().unwrap())
                        .unwrap();
                    m.makespan_s
                })
                .collect::<Vec<_>>()
        };
        let best = sampled(15);
        let greedy: Vec<f64> = (0..4)
            .map(|seed| run_episode(&mut env, &mut greedy, seed).unwrap().makespan_s)
            .collect();
        assert!(
            best.iter().zip(&greedy).all(|(b, g)| b <= g),
            "window {ready_tasks}: {best:?} against greedy {greedy:?}"
        );
        assert!(
            best.iter().zip(&greedy).any(|(b, g)| b < g),
            "window {ready_tasks}: sampling found nothing shorter: {best:?}"
        );
        assert_eq!(best, sampled(15), "window {ready_tasks}: not repeatable");
        // three batches, on one thread and on two
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| sampled(140))
        };
        assert_eq!(on(1), on(2), "window {ready_tasks}: thread counts differ");
    }
}
