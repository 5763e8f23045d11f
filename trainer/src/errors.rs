//! The trainer's errors below [`crate::train::TrainError`]: a hyperparameter condition a
//! configuration does not meet, a checkpoint that cannot be read back, and a teacher or
//! heuristic that could not be played.

use schedlab_agents::PolicyError;
use schedlab_env::EnvError;

/// A hyperparameter condition a configuration does not meet: the key, its value and the
/// condition, so that the refusal says what to change.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("`{key}` = {value}: need {need}")]
pub struct Unmet {
    pub key: String,
    pub value: String,
    pub need: String,
}

/// A checkpoint that cannot be read back into this run.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// A record file burn refuses, or panics on.
    #[error("{file}: {message}")]
    Record { file: String, message: String },
    /// A resume state that does not fit the run: copies, plans or fields of another run.
    #[error("{0}")]
    State(String),
}

/// A teacher or heuristic that could not be played: built from its spec, or stepped.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// `what` names the role and the spec: "warm start teacher `raes`".
    #[error("{what}: {source}")]
    Build {
        what: String,
        #[source]
        source: PolicyError,
    },
    /// `what` names the episode: "DAgger episode", "teacher `raes`".
    #[error("{what}, seed {seed}: {source}")]
    Episode {
        what: String,
        seed: u64,
        #[source]
        source: EnvError,
    },
}
