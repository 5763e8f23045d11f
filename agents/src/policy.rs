//! The one interface every scheduler implements.

use schedlab_env::{ActionSpace, Observation, ObservationSpace};

/// What a policy may know about the environment it acts in: the declared spaces and the
/// container ladder's size of each level (`sizes[r][level]`, level 0 = 0).
#[derive(Debug, Clone)]
pub struct PolicyContext {
    pub action_space: ActionSpace,
    pub observation_space: ObservationSpace,
    pub level_sizes: [Vec<f64>; 3],
    pub round_interval_s: f64,
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
            round_interval_s: env.scenario().workload.episode.round_interval_s,
        }
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
            round_interval_s: 1.0,
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
