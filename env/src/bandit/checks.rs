//! A bandit workload's checks, each fault refused naming its key (run by `load.rs`).

use std::path::Path;

use super::schema::BanditWorkloadSpec;
use crate::error::{EnvError, Result};

/// The most states, dimensions, levels and steps a bandit takes: far above a test's needs.
const MAX_COUNT: usize = 4_096;

/// The kind, the counts (odd states mask a level, so each dimension needs two) and the noise.
pub(super) fn check(path: &Path, spec: &BanditWorkloadSpec) -> Result<()> {
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    if spec.kind != "bandit" {
        return bad("kind", format!("`{}`: a bandit workload", spec.kind));
    }
    let b = &spec.bandit;
    for (key, value, least) in [
        ("bandit.states", b.states, 1),
        ("bandit.dims", b.dims, 1),
        ("bandit.levels", b.levels, 2),
        ("bandit.steps", b.steps, 1),
    ] {
        if !(least..=MAX_COUNT).contains(&value) {
            return bad(key, format!("{value}: must be in {least}..={MAX_COUNT}"));
        }
    }
    if !(b.noise.is_finite() && b.noise >= 0.0) {
        return bad(
            "bandit.noise",
            format!("{}: must be finite and >= 0", b.noise),
        );
    }
    Ok(())
}
