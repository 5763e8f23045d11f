//! One error type for everything the environment can refuse.

use std::path::PathBuf;

/// Every failure names where it happened: file and line, config key, node and resource.
#[derive(Debug, thiserror::Error)]
pub enum EnvError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A data or trace file with a bad value. `line` is 1-based and counts the header.
    #[error("{path}:{line}: field `{field}`: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        field: String,
        message: String,
    },
    /// A workload file that does not describe a valid episode family.
    #[error("{path}: `{key}`: {message}")]
    Config {
        path: PathBuf,
        key: String,
        message: String,
    },
    /// An action the cluster cannot honour (the mask would have excluded it).
    #[error(
        "infeasible action: node {node} ({node_name}) {resource} level {level} asks {requested} but only {free} is free"
    )]
    Infeasible {
        node: usize,
        node_name: String,
        resource: &'static str,
        level: usize,
        requested: f64,
        free: f64,
    },
    #[error("malformed action: {0}")]
    BadAction(String),
    #[error("step called on a finished episode; call reset first")]
    EpisodeOver,
    /// An env that breaks the [`Environment`](crate::Environment) contract, as
    /// [`check_env`](crate::check_env) found it.
    #[error("env contract violated: {0}")]
    Contract(String),
    /// A DAG schedule that breaks one of its problem's rules (`dag/schedule.rs`).
    #[error("schedule breaks a rule: {0}")]
    BrokenSchedule(String),
    /// Real execution where the control groups it needs are missing or cannot be written.
    #[error("real execution needs the cgroup `{controller}` controller: {path}: {reason}")]
    CgroupUnavailable {
        controller: &'static str,
        path: PathBuf,
        reason: String,
    },
    /// A real run's processes or sockets failed (`real/`).
    #[error("real execution: {message}")]
    RealExecution { message: String },
    /// A loss or gradient that stopped being a finite number.
    #[error(
        "non-finite {what} at virtual time {time_s:.3}s (iteration {iteration}); lower the learning rate"
    )]
    NonFinite {
        what: &'static str,
        time_s: f64,
        iteration: u64,
    },
}

pub type Result<T> = std::result::Result<T, EnvError>;

impl EnvError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EnvError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn parse(
        path: impl Into<PathBuf>,
        line: usize,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        EnvError::Parse {
            path: path.into(),
            line,
            field: field.into(),
            message: message.into(),
        }
    }

    pub(crate) fn config(
        path: impl Into<PathBuf>,
        key: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        EnvError::Config {
            path: path.into(),
            key: key.into(),
            message: message.into(),
        }
    }
}
