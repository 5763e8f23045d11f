//! The fingerprint of the sources that decide what training and playing compute: the env,
//! predictors, agents and trainer crates and Cargo.lock's versions (`build.rs`). Training runs
//! and sweep rows record it, so that results of other sources are not taken for this build's.

/// This build's fingerprint (16 hex digits).
pub const SOURCES_FINGERPRINT: &str = env!("SCHEDLAB_TRAINING_SOURCES");

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
