//! A masked contextual bandit with a known optimum: each step shows one of a few states and
//! takes one level per choice dimension; each level pays a fixed mean reward (evenly spaced in
//! [0, 1], ordered once by the workload's seed) plus Gaussian noise, and in odd states every
//! dimension's best level
//! is masked, so the optimum is the best allowed level. It is a task with a known answer for
//! the learners (a greedy policy of a correct learner plays [`BanditWorkload::optimum`]) and
//! the proof that a kind is added in one place: outside its own modules it is named only in
//! its row of env's table of kinds and its `mod` lines (`tests/tests/architecture.rs`). Its
//! workload file (`kind = "bandit"`) is laid out as every kind's: `schema.rs`, `checks.rs`,
//! `load.rs`.

mod checks;
mod env;
mod instance;
mod load;
mod metrics;
mod schema;

pub use env::{BanditEnv, BanditInfo};
pub use instance::BanditWorkload;
pub use metrics::BanditMetrics;
pub use schema::{BanditSpec, BanditWorkloadSpec};

#[cfg(test)]
mod tests;
