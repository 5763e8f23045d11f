//! The fingerprint of the sources that decide what training and playing compute: the env,
//! predictors, agents and trainer crates and Cargo.lock's versions (`build.rs`). Training runs
//! and sweep rows record it, so that results of other sources are not taken for this build's.

/// This build's fingerprint (16 hex digits).
pub const SOURCES_FINGERPRINT: &str = env!("SCHEDLAB_TRAINING_SOURCES");
