//! The gym-like API: `reset(seed)`, `step(action)`, declared spaces, action masks, reward,
//! metrics, and a vectorised form.

mod env;
mod environment;
mod metrics;
mod spaces;
mod vec_env;

pub use env::{ClusterEnv, Info};
pub use environment::{Environment, EpisodeSummary, Step, StepInfo};
pub use metrics::EpisodeMetrics;
pub use spaces::{
    ActionSpace, HISTORY, HISTORY_FEATURES, JOB_FEATURES, NODE_BATCH, NODE_DELAY, NODE_FEATURES,
    NODE_STALENESS, NODE_THROUGHPUT, NODE_VARIANCE, Observation, ObservationSpace,
};
pub use vec_env::{VecEnv, VecStep};

#[cfg(test)]
mod tests;
