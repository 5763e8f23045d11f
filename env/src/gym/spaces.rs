//! Declared observation and action spaces, so agents can be written once for any workload.

use serde::Serialize;

use crate::cluster::{Ladder, Resource};

/// Rounds of usage history each node carries in the observation.
pub const HISTORY: usize = 10;
/// Per round of history: used and allocated CPU, memory, GPU as shares of the node's capacity.
pub const HISTORY_FEATURES: usize = 6;
/// Per node: the history, then gradient variance `ln(1 + var)`, update delay (in rounds),
/// batch / base batch, staleness / (tau + 1), throughput `ln(1 + samples/s)` over the last
/// round, background CPU and memory share over the next round, speed factor, and CPU, memory
/// and GPU capacity relative to the largest node.
pub const NODE_FEATURES: usize = HISTORY * HISTORY_FEATURES + 11;
/// Where the per-node scalars start within a node's features, in the order above.
pub const NODE_VARIANCE: usize = HISTORY * HISTORY_FEATURES;
pub const NODE_DELAY: usize = NODE_VARIANCE + 1;
pub const NODE_BATCH: usize = NODE_VARIANCE + 2;
pub const NODE_STALENESS: usize = NODE_VARIANCE + 3;
pub const NODE_THROUGHPUT: usize = NODE_VARIANCE + 4;
/// For the job: validation loss / initial loss, progress to the target in [0, 1], elapsed
/// share of the time limit, elapsed share of the round limit, HB-ASGD's learning-rate factor.
pub const JOB_FEATURES: usize = 5;

/// The observation is a flat `f32` vector: `nodes x NODE_FEATURES` node-major, then the job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ObservationSpace {
    pub nodes: usize,
    pub node_features: usize,
    pub job_features: usize,
}

impl ObservationSpace {
    pub fn len(&self) -> usize {
        self.nodes * self.node_features + self.job_features
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Multi-discrete: for each node (node-major) and each resource `[cpu, mem, gpu]`, a level
/// of the container ladder, 0 = none. A node runs a worker only if its CPU and memory levels
/// are both non-zero; otherwise the node's levels all count as 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ActionSpace {
    pub nodes: usize,
    /// Choices per resource (levels including 0), the same on every node.
    pub levels: [usize; 3],
}

impl ActionSpace {
    pub fn new(nodes: usize, ladder: &Ladder) -> Self {
        ActionSpace {
            nodes,
            levels: Resource::ALL.map(|r| ladder.levels(r)),
        }
    }

    /// Number of discrete dimensions (`nodes x 3`).
    pub fn dims(&self) -> usize {
        self.nodes * 3
    }

    /// Choices of each dimension, gym's `nvec`.
    pub fn nvec(&self) -> Vec<usize> {
        (0..self.nodes).flat_map(|_| self.levels).collect()
    }

    /// Length of the flat mask: the sum of `nvec`.
    pub fn mask_len(&self) -> usize {
        self.nodes * self.levels.iter().sum::<usize>()
    }

    /// Where dimension `d`'s levels start in the flat mask.
    pub fn mask_offset(&self, dim: usize) -> usize {
        let per_node: usize = self.levels.iter().sum();
        (dim / 3) * per_node + self.levels[..dim % 3].iter().sum::<usize>()
    }
}

/// A flat observation with its action mask: `mask[mask_offset(d) + level]` says whether that
/// level of dimension `d` fits on the node for the whole coming round.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation {
    pub features: Vec<f32>,
    pub action_mask: Vec<bool>,
}

impl Observation {
    /// The feasible levels of one dimension.
    pub fn mask_of(&self, space: &ActionSpace, dim: usize) -> &[bool] {
        let start = space.mask_offset(dim);
        &self.action_mask[start..start + space.levels[dim % 3]]
    }

    /// The allowed levels of one dimension (never empty: level 0 always fits).
    pub fn allowed(&self, space: &ActionSpace, dim: usize) -> Vec<usize> {
        let mask = self.mask_of(space, dim);
        (0..mask.len()).filter(|&l| mask[l]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_offsets_tile_the_mask_exactly() {
        let space = ActionSpace {
            nodes: 3,
            levels: [5, 4, 2],
        };
        let mut next = 0;
        for d in 0..space.dims() {
            assert_eq!(space.mask_offset(d), next);
            next += space.levels[d % 3];
        }
        assert_eq!(next, space.mask_len());
        assert_eq!(space.nvec(), vec![5, 4, 2, 5, 4, 2, 5, 4, 2]);
    }
}
