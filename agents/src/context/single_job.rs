//! What a single-job scheduler knows of its env beyond the spaces: the container ladder,
//! each node's capacity, the round length and the resource prices; and the observation
//! decoded node by node.

use std::ops::Deref;

use schedlab_env::Observation;
use schedlab_env::SingleJobEnv;
use schedlab_env::single_job::features::{HISTORY, HISTORY_FEATURES, NODE_GROUP};
use schedlab_env::single_job::workload::RewardSpec;

use super::common::PolicyContext;
use schedlab_env::EnvKind;

/// The spaces (node-major, fields `[cpu, mem, gpu]`) plus the container ladder's size of each
/// level (`level_sizes[r][level]`, level 0 = 0), each node's capacity `[cpu, mem, gpu]`, the
/// round length, the resource prices per second and the reward's weights (eq. 21).
#[derive(Debug, Clone)]
pub struct SingleJobContext {
    pub common: PolicyContext,
    pub level_sizes: [Vec<f64>; 3],
    pub node_capacity: Vec<[f64; 3]>,
    pub round_interval_s: f64,
    pub prices_per_s: [f64; 3],
    pub reward: RewardSpec,
}

impl Deref for SingleJobContext {
    type Target = PolicyContext;
    fn deref(&self) -> &PolicyContext {
        &self.common
    }
}

impl SingleJobContext {
    /// The kind of env this context is of.
    pub fn kind(&self) -> EnvKind {
        EnvKind::SingleJob
    }

    /// What sets the shapes of this env's spaces, as `(setting, value)`.
    pub fn shape_settings(&self) -> Vec<(String, String)> {
        let levels = self.level_sizes.iter().map(|l| l.len().to_string());
        vec![
            ("nodes".into(), self.node_capacity.len().to_string()),
            (
                "container levels".into(),
                levels.collect::<Vec<_>>().join("/"),
            ),
        ]
    }

    pub fn of(env: &SingleJobEnv) -> Self {
        let workload = &env.scenario().workload;
        let ladder = &workload.containers;
        let level_sizes = schedlab_env::cluster::Resource::ALL
            .map(|r| (0..ladder.levels(r)).map(|l| ladder.amount(r, l)).collect());
        SingleJobContext {
            common: PolicyContext::new(env.action_space().clone(), env.observation_space().clone()),
            level_sizes,
            node_capacity: env.scenario().nodes.iter().map(|n| n.capacity()).collect(),
            round_interval_s: workload.episode.round_interval_s,
            prices_per_s: workload.prices.per_second(),
            reward: workload.reward.clone(),
        }
    }

    pub fn nodes(&self) -> usize {
        self.action_space.units()
    }

    /// The dimension of resource `r` (0 cpu, 1 mem, 2 gpu) at node `n`.
    pub fn dim(&self, n: usize, r: usize) -> usize {
        self.action_space.dim(n, r)
    }

    /// Node `n`'s block of the observation.
    pub fn node_features<'a>(&self, observation: &'a Observation, n: usize) -> &'a [f32] {
        self.observation_space
            .group(NODE_GROUP)
            .block(&observation.features, n)
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
        let sizes = &self.level_sizes[self.action_space.field_of(dim)];
        (1..mask.len())
            .find(|&l| mask[l] && sizes[l] >= amount)
            .or_else(|| (0..mask.len()).rev().find(|&l| mask[l]))
            .unwrap_or(0)
    }

    /// The largest feasible level whose size does not exceed `amount` (0 if none).
    pub fn level_within(&self, observation: &Observation, dim: usize, amount: f64) -> usize {
        let mask = observation.mask_of(&self.action_space, dim);
        let sizes = &self.level_sizes[self.action_space.field_of(dim)];
        (0..mask.len())
            .rev()
            .find(|&l| mask[l] && sizes[l] <= amount + 1e-9)
            .unwrap_or(0)
    }

    /// The size of `level` in dimension `dim`.
    pub fn size_of(&self, dim: usize, level: usize) -> f64 {
        self.level_sizes[self.action_space.field_of(dim)][level]
    }
}
