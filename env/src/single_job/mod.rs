//! One cluster of nodes running one real training job: each step is a scheduling round in
//! which the policy sets every node's container (CPU, memory, GPU levels of the workload's
//! ladder) and the workers compute real gradients on a virtual clock. Its workload file is
//! laid out as every kind's: `schema.rs`, `checks.rs`, `load.rs` (ARCHITECTURE.md, "Add a
//! kind of environment").

pub mod cadence;
mod checks;
pub mod compression;
mod env;
pub mod features;
mod load;
mod metrics;
pub mod scenario;
pub mod schema;
pub mod sim;
mod training;

pub use env::{SingleJobEnv, SingleJobInfo};
pub use metrics::SingleJobMetrics;
pub use scenario::Scenario;
/// The schema's path before every kind laid its workload out alike (agents and experiments
/// name `single_job::workload::RewardSpec`, `JobSpec`).
pub use schema as workload;
pub use schema::SingleJobWorkload;
pub use training::PushRecord;
pub(crate) use training::Training;

#[cfg(test)]
mod tests;
