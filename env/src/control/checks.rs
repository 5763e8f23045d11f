//! A control workload's checks, each fault refused naming its key (run by `load.rs`).

use std::path::Path;

use super::schema::ControlWorkloadSpec;
use crate::error::{EnvError, Result};

/// The longest time limit an episode may have.
const MAX_STEPS: usize = 1_000_000;

pub(super) fn check(path: &Path, spec: &ControlWorkloadSpec) -> Result<()> {
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    if spec.kind != "control" {
        return bad("kind", format!("`{}`: a control workload", spec.kind));
    }
    let steps = spec.control.max_steps;
    if !(1..=MAX_STEPS).contains(&steps) {
        return bad(
            "control.max_steps",
            format!("{steps}: must be in 1..={MAX_STEPS}"),
        );
    }
    Ok(())
}
