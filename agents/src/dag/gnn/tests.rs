use std::path::Path;
use std::sync::Arc;

use burn::tensor::{Device, Tensor, TensorData};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use schedlab_env::Environment;
use schedlab_env::dag::{DagEnv, DagWorkload};

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
/// (task, GPU) choice: no weight belongs to a task's index.
#[test]
fn embeddings_and_scores_permute_with_the_tasks() {
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
    // the same choice rows with the embeddings of task t, and of its new label k
    let choices: Vec<f32> = (0..CHOICE_INPUTS).map(|i| i as f32 / 10.0).collect();
    let score = |embedding: &[f32]| {
        let rows = Tensor::<2>::from_data(
            TensorData::new(choices.clone(), [1, CHOICE_INPUTS]),
            &device,
        );
        let e = Tensor::<2>::from_data(
            TensorData::new(embedding.to_vec(), [1, embedding.len()]),
            &device,
        );
        net.score(rows, e)
            .into_data()
            .try_into_vec::<f32>()
            .unwrap()[0]
    };
    for (k, &t) in order.iter().enumerate().take(5) {
        assert!((score(&relabelled[k]) - score(&original[t])).abs() < 1e-5);
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
