//! What a single-job scheduler knows of its env beyond the spaces: the container ladder,
//! each node's capacity, the round length and the resource prices; and the observation
//! decoded node by node.

use std::ops::Deref;

use schedlab_env::Observation;
use schedlab_env::SingleJobEnv;
use schedlab_env::single_job::features::{HISTORY, HISTORY_FEATURES, NODE_GROUP};
use schedlab_env::workload::RewardSpec;

use crate::policy::{EnvContext, PolicyContext};

/// The single-job part of `ctx`; a registry row of this kind is only built with one.
pub fn single_job_context(ctx: &EnvContext) -> &SingleJobContext {
    match ctx {
        EnvContext::SingleJob(ctx) => ctx,
        other => unreachable!("a single-job scheduler built for {:?}", other.kind()),
    }
}

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

#[cfg(test)]
pub(crate) mod fixtures {
    use schedlab_env::{ActionSpace, ObservationSpace};

    use super::*;

    /// A node-major `[cpu, mem, gpu]` action space of `nodes` nodes.
    pub fn node_space(nodes: usize, levels: [usize; 3]) -> ActionSpace {
        use schedlab_env::gym::Field;
        ActionSpace::grid(
            "node",
            nodes,
            vec![
                Field::new("cpu", levels[0]),
                Field::new("mem", levels[1]),
                Field::new("gpu", levels[2]),
            ],
        )
    }

    /// One node with levels `[3, 2, 2]`: the smallest space with every kind of head.
    pub fn one_node_space() -> ActionSpace {
        node_space(1, [3, 2, 2])
    }

    /// Two nodes, levels `[5, 3, 3]`; node 1 cannot take CPU levels above 2 nor any GPU.
    pub fn context_and_observation() -> (SingleJobContext, Observation) {
        let action_space = node_space(2, [5, 3, 3]);
        let mut mask = vec![true; action_space.mask_len()];
        let node1_cpu = action_space.mask_offset(action_space.dim(1, 0));
        mask[node1_cpu + 3] = false;
        mask[node1_cpu + 4] = false;
        let node1_gpu = action_space.mask_offset(action_space.dim(1, 2));
        mask[node1_gpu + 1] = false;
        mask[node1_gpu + 2] = false;
        let ctx = SingleJobContext {
            common: PolicyContext::new(action_space, ObservationSpace::new(&[(NODE_GROUP, 2, 1)])),
            level_sizes: [
                vec![0.0, 1.0, 2.0, 4.0, 8.0],
                vec![0.0, 4.0, 8.0],
                vec![0.0, 0.5, 1.0],
            ],
            node_capacity: vec![[8.0, 8.0, 1.0], [2.0, 8.0, 0.0]],
            round_interval_s: 1.0,
            prices_per_s: [1.0, 0.1, 10.0],
            reward: RewardSpec::default(),
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

    use schedlab_env::{Scenario, SingleJobEnv};

    /// A fresh env on the shipped small-4node workload.
    pub fn small_env() -> SingleJobEnv {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        SingleJobEnv::new(Scenario::load(&path).unwrap())
    }
}
