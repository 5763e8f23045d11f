//! # schedlab-tests
//!
//! End-to-end tests: the `schedlab` binary driven as a user would, and behaviour that spans
//! crates (policies acting in environments). The tests live in `tests/`; this library only
//! holds what they share: where the shipped data are and how to reach the built binary.

use std::path::PathBuf;

/// The repository's `data/` folder.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// A shipped workload file.
pub fn workload(name: &str) -> PathBuf {
    data_dir().join("workloads").join(name)
}
