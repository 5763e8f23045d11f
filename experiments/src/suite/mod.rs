//! Versioned benchmark suites (docs/benchmark.md): a suite's files under a SHA-256 manifest
//! (`manifest.rs`), its splits, seeds, metric and reference (`definition.rs`), scoring an entry
//! on it (`score.rs`, on real processes too: `real.rs`) into a result file (`result.rs`),
//! replaying a result to validate it (`validate.rs`), and ranking results (`leaderboard.rs`).

pub mod definition;
pub mod external;
pub mod leaderboard;
pub mod manifest;
pub mod real;
pub mod result;
pub mod score;
pub mod validate;

pub use definition::{Split, Suite};
pub use result::SuiteResult;
