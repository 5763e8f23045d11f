//! The one interface every scheduler implements.

use schedlab_env::gym::{HISTORY, HISTORY_FEATURES};
use schedlab_env::workload::RewardSpec;
use schedlab_env::{ActionSpace, Observation, ObservationSpace};

/// What a policy may know about the environment it acts in: the declared spaces, the
/// container ladder's size of each level (`level_sizes[r][level]`, level 0 = 0) and each
/// node's capacity `[cpu, mem, gpu]`, and the objective the reward scores (its weights and
/// the resource prices per second).
#[derive(Debug, Clone)]
pub struct PolicyContext {
    pub action_space: ActionSpace,
    pub observation_space: ObservationSpace,
    pub level_sizes: [Vec<f64>; 3],
    pub node_capacity: Vec<[f64; 3]>,
    pub round_interval_s: f64,
    pub reward: RewardSpec,
    pub prices_per_s: [f64; 3],
}

impl PolicyContext {
    pub fn of(env: &schedlab_env::ClusterEnv) -> Self {
        let ladder = &env.scenario().workload.containers;
        let level_sizes = schedlab_env::cluster::Resource::ALL
            .map(|r| (0..ladder.levels(r)).map(|l| ladder.amount(r, l)).collect());
        PolicyContext {
            action_space: env.action_space().clone(),
            observation_space: *env.observation_space(),
            level_sizes,
            node_capacity: env.scenario().nodes.iter().map(|n| n.capacity()).collect(),
            round_interval_s: env.scenario().workload.episode.round_interval_s,
            reward: env.scenario().workload.reward.clone(),
            prices_per_s: env.scenario().workload.prices.per_second(),
        }
    }

    /// Node `n`'s slice of the observation.
    pub fn node_features<'a>(&self, observation: &'a Observation, n: usize) -> &'a [f32] {
        let width = self.observation_space.node_features;
        &observation.features[n * width..(n + 1) * width]
    }

    /// Node `n`'s last round as shares of its capacity: `[used cpu, mem, gpu, allocated
    /// cpu, mem, gpu]`.
    pub fn last_round_shares<'a>(&self, observation: &'a Observation, n: usize) -> &'a [f32] {
        &self.node_features(observation, n)
            [(HISTORY - 1) * HISTORY_FEATURES..HISTORY * HISTORY_FEATURES]
    }

    /// Node `n`'s last round: `[used cpu, mem, gpu, allocated cpu, mem, gpu]` in resource units.
    pub fn last_round(&self, observation: &Observation, n: usize) -> [f64; 6] {
        let entry = self.last_round_shares(observation, n);
        let cap = self.node_capacity[n];
        std::array::from_fn(|k| entry[k] as f64 * cap[k % 3])
    }

    /// The middle level of dimension `dim`, or the largest feasible level below it.
    pub fn middle_feasible(&self, observation: &Observation, dim: usize) -> usize {
        let mask = observation.mask_of(&self.action_space, dim);
        (0..=(mask.len() - 1).div_ceil(2))
            .rev()
            .find(|&l| mask[l])
            .unwrap_or(0)
    }

    /// The smallest feasible non-zero level of dimension `dim` whose size is at least `amount`,
    /// else the largest feasible level.
    pub fn covering_level(&self, observation: &Observation, dim: usize, amount: f64) -> usize {
        let mask = observation.mask_of(&self.action_space, dim);
        let sizes = &self.level_sizes[dim % 3];
        (1..mask.len())
            .find(|&l| mask[l] && sizes[l] >= amount)
            .or_else(|| (0..mask.len()).rev().find(|&l| mask[l]))
            .unwrap_or(0)
    }

    /// The largest feasible level whose size does not exceed `amount` (0 if none).
    pub fn level_within(&self, observation: &Observation, dim: usize, amount: f64) -> usize {
        let mask = observation.mask_of(&self.action_space, dim);
        let sizes = &self.level_sizes[dim % 3];
        (0..mask.len())
            .rev()
            .find(|&l| mask[l] && sizes[l] <= amount + 1e-9)
            .unwrap_or(0)
    }
}

/// An environment the generic policies (random, the learned agents) can act in: its spaces and
/// objective as a [`PolicyContext`].
pub trait SchedulingEnv: schedlab_env::Environment + 'static {
    fn policy_context(&self) -> PolicyContext;
}

impl SchedulingEnv for schedlab_env::ClusterEnv {
    fn policy_context(&self) -> PolicyContext {
        PolicyContext::of(self)
    }
}

/// A scheduler. `act` must return, for every dimension, a level the observation's mask allows.
pub trait Policy: Send {
    fn name(&self) -> &str;
    /// Called at the start of every episode with that episode's seed.
    fn reset(&mut self, seed: u64);
    fn act(&mut self, observation: &Observation) -> Vec<usize>;
}

#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    /// One node with levels `[3, 2, 2]`: the smallest space with every kind of head.
    pub fn one_node_space() -> ActionSpace {
        ActionSpace {
            nodes: 1,
            levels: [3, 2, 2],
        }
    }

    /// Two nodes, levels `[5, 3, 3]`; node 1 cannot take CPU levels above 2 nor any GPU.
    pub fn context_and_observation() -> (PolicyContext, Observation) {
        let action_space = ActionSpace {
            nodes: 2,
            levels: [5, 3, 3],
        };
        let mut mask = vec![true; action_space.mask_len()];
        let node1_cpu = action_space.mask_offset(3);
        mask[node1_cpu + 3] = false;
        mask[node1_cpu + 4] = false;
        let node1_gpu = action_space.mask_offset(5);
        mask[node1_gpu + 1] = false;
        mask[node1_gpu + 2] = false;
        let ctx = PolicyContext {
            action_space,
            observation_space: ObservationSpace {
                nodes: 2,
                node_features: 1,
                job_features: 0,
            },
            level_sizes: [
                vec![0.0, 1.0, 2.0, 4.0, 8.0],
                vec![0.0, 4.0, 8.0],
                vec![0.0, 0.5, 1.0],
            ],
            node_capacity: vec![[8.0, 8.0, 1.0], [2.0, 8.0, 0.0]],
            round_interval_s: 1.0,
            reward: RewardSpec::default(),
            prices_per_s: [1.0, 0.1, 10.0],
        };
        (
            ctx,
            Observation {
                features: vec![0.0, 0.0],
                action_mask: mask,
            },
        )
    }
}

#[cfg(test)]
pub(crate) mod real {
    use std::path::PathBuf;

    use schedlab_env::{ClusterEnv, Scenario};

    /// A fresh env on the shipped small-4node workload.
    pub fn small_env() -> ClusterEnv {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        ClusterEnv::new(Scenario::load(&path).unwrap())
    }
}
