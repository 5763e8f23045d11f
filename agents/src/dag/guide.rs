//! A policy that proposes whole plans by playing an episode of the DAG env: WORL-RTGS's
//! trained policy (the shipped `dag-gnn` by default, the per-GPU PPO, the paper's Double DQN,
//! or any DAG scheduler, for ablations).

use std::sync::Arc;

use rand::RngExt;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use schedlab_env::Environment;
use schedlab_env::dag::{DagEnv, DagWorkload};

use crate::policy::Policy;

pub struct Guide {
    env: DagEnv,
    policy: Box<dyn Policy>,
}

impl Guide {
    pub fn new(workload: Arc<DagWorkload>, policy: Box<dyn Policy>) -> Self {
        Guide {
            env: DagEnv::new(workload),
            policy,
        }
    }

    pub fn name(&self) -> &str {
        self.policy.name()
    }

    /// The plan (a GPU per task) of one episode of the guide on the instance of `seed`; with
    /// probability `epsilon` per step a GPU drawn uniformly among those that hold the task the
    /// guide chose replaces its GPU, and the guide sees the consequences. In an env that asks
    /// for a task as well (`ready_tasks`), a choice is `slot x GPUs + GPU` and the task stays
    /// the guide's, so a guide that follows the env's window from its choices stays in step.
    pub fn rollout(&mut self, seed: u64, epsilon: f64, rng: &mut StdRng) -> Vec<usize> {
        let (mut observation, _) = self.env.reset(seed).expect("a DAG env resets on any seed");
        self.policy.reset(seed);
        let mut plan = vec![usize::MAX; self.env.problem().map_or(0, |p| p.len())];
        let gpus = self.env.problem().map_or(1, |p| p.gpus());
        loop {
            let mut choice = self.policy.act(&observation)[0];
            if epsilon > 0.0 && rng.random_bool(epsilon) {
                let slot = choice / gpus;
                let fitting: Vec<usize> = (slot * gpus..(slot + 1) * gpus)
                    .filter(|&c| observation.action_mask[c])
                    .collect();
                choice = *fitting.choose(rng).expect("a task fits a GPU");
            }
            let step = self
                .env
                .step(&[choice])
                .expect("the guide chooses among the allowed GPUs");
            plan[step.info.task] = step.info.gpu.expect("a step places its task");
            if step.terminated || step.truncated {
                return plan;
            }
            observation = step.observation;
        }
    }
}
