//! The fingerprint of the sources that decide what training and playing compute: the env,
//! predictors, agents and trainer crates and Cargo.lock's versions (`build.rs`). Training runs
//! and sweep rows record it, so that results of other sources are not taken for this build's.

/// This build's fingerprint (16 hex digits) of the simulation's sources: real execution
/// (`env/src/real/`) left out, since no simulated episode or training run executes it.
pub const SOURCES_FINGERPRINT: &str = env!("SCHEDLAB_TRAINING_SOURCES");

/// The same sources with real execution's: what results measured on real processes or through
/// Slurm record.
pub const REAL_EXECUTION_SOURCES_FINGERPRINT: &str = env!("SCHEDLAB_REAL_EXECUTION_SOURCES");

/// The fingerprint recorded at `record` beside a training run, if any.
pub fn recorded_sources(record: &std::path::Path) -> Option<String> {
    std::fs::read_to_string(record).ok()
}

/// Whether `record` says this build's sources trained the run beside it.
pub fn recorded_as_these_sources(record: &std::path::Path) -> bool {
    recorded_sources(record).as_deref() == Some(SOURCES_FINGERPRINT)
}

/// Records at `record`, atomically, that this build's sources train the run beside it.
pub fn record_these_sources(record: &std::path::Path) -> anyhow::Result<()> {
    crate::output::write_atomic(record, SOURCES_FINGERPRINT.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::{REAL_EXECUTION_SOURCES_FINGERPRINT, SOURCES_FINGERPRINT};

    /// `build.rs` hashed the sources (digests, not placeholders), and left real execution out
    /// of the simulation's: were it in, the two would be one digest.
    #[test]
    fn the_simulation_is_fingerprinted_without_real_execution() {
        for fingerprint in [SOURCES_FINGERPRINT, REAL_EXECUTION_SOURCES_FINGERPRINT] {
            assert_eq!(fingerprint.len(), 16);
            assert!(
                fingerprint
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
                "{fingerprint}"
            );
        }
        assert_ne!(SOURCES_FINGERPRINT, REAL_EXECUTION_SOURCES_FINGERPRINT);
    }
}
