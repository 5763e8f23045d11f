//! One cluster of nodes running one real training job: each step is a scheduling round in
//! which the policy sets every node's container (CPU, memory, GPU levels of the workload's
//! ladder) and the workers compute real gradients on a virtual clock.

pub mod cadence;
pub mod compression;
mod env;
pub mod features;
mod load;
mod metrics;
pub mod scenario;
pub mod sim;
mod training;
pub mod workload;

pub use env::{SingleJobEnv, SingleJobInfo};
pub use metrics::SingleJobMetrics;
pub use scenario::Scenario;
pub use training::PushRecord;
pub(crate) use training::Training;
pub use workload::SingleJobWorkload;

#[cfg(test)]
mod tests;
