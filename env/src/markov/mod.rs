//! Chain MDPs with known answers, for checking the learners' credit assignment:
//! - the chain: walk forward along `length` states to a reward of 1 at the end, or go back
//!   to the start for a small reward at once (the answer: forward in every state);
//! - the semi-Markov chain: each decision point is `choices` same-time choices, then one
//!   timed step whose cost is the share of bad choices made, the shape of a jobs decision
//!   point (the answer: the good level at every choice; the first choice's credit must cross
//!   all the same-time steps after it).
//!
//! Its workload file (`kind = "markov"`) is laid out as every kind's: `schema.rs`,
//! `checks.rs`, `load.rs`.

mod checks;
mod env;
mod load;
mod metrics;
mod schema;
mod workload;

pub use env::{MarkovEnv, MarkovInfo};
pub use metrics::MarkovMetrics;
pub use schema::{MarkovSpec, MarkovWorkloadSpec};
pub use workload::MarkovWorkload;

#[cfg(test)]
mod tests;
