//! Why training stops: the env, a checkpoint that cannot be resumed, a warm start,
//! hyperparameters, divergence, files, another writer of the run folder.

use std::path::{Path, PathBuf};

use schedlab_artifacts::LockError;
use schedlab_env::EnvError;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Env(#[from] EnvError),
    /// A checkpoint that cannot be resumed: corrupt, of another agent or another workload.
    #[error("cannot resume {run}: {message}")]
    Checkpoint { run: PathBuf, message: String },
    #[error("warm start: {0}")]
    WarmStart(String),
    #[error("{agent} hyperparameters: {message}")]
    Config {
        agent: &'static str,
        message: String,
    },
    /// A loss became NaN or infinite: training cannot go on from here.
    #[error(
        "training diverged at step {step}: {tag} is {value}; the last checkpoint is kept (try a lower lr or max_grad_norm)"
    )]
    Diverged {
        step: u64,
        tag: &'static str,
        value: f32,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Locked(#[from] LockError),
}

/// An I/O error on `path`, as the driver reports it.
pub(super) fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A run folder that cannot be resumed, and why.
pub(super) fn invalid(run: &Path, message: String) -> TrainError {
    TrainError::Checkpoint {
        run: run.to_owned(),
        message,
    }
}
