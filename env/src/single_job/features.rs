//! The single-job env's observation layout: feature group `node` (one block per node) then
//! group `job`, and the meaning of each position inside a block.

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
pub const NODE_BACKGROUND_CPU: usize = NODE_VARIANCE + 5;
pub const NODE_SPEED: usize = NODE_VARIANCE + 7;
/// For the job: validation loss / initial loss, progress to the target in [0, 1], elapsed
/// share of the time limit, elapsed share of the round limit, HB-ASGD's learning-rate factor.
pub const JOB_FEATURES: usize = 5;

/// The feature group with one block per node.
pub const NODE_GROUP: &str = "node";
/// The feature group of the job, one block.
pub const JOB_GROUP: &str = "job";
