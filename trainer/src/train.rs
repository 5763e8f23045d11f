//! Training a learned scheduler into a run folder: TensorBoard curves (tags in
//! ARCHITECTURE.md), the hyperparameters once at the start, and periodic checkpoints.

mod board;
mod checkpoints;
mod driver;
mod error;
mod evaluations;
mod spec;
mod warm_start;

pub use driver::train;
pub use error::TrainError;
pub use spec::{OnUpdate, Progress, TrainSpec};
pub use warm_start::WarmStartComparison;

#[cfg(test)]
mod tests;
