//! One cluster of nodes running one real training job: each step is a scheduling round in
//! which the policy sets every node's container (CPU, memory, GPU levels of the workload's
//! ladder) and the workers compute real gradients on a virtual clock.

mod env;
pub mod features;
mod metrics;

pub use env::{Info, SingleJobEnv};
pub use metrics::EpisodeMetrics;

#[cfg(test)]
mod tests;
