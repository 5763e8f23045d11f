//! # schedlab-env
//!
//! The environments and their one contract. [`gym`] holds the contract every env keeps
//! (`reset(seed)`, `step(action)`, neutral declared spaces, action masks, metrics) and the
//! shared env checker; [`single_job`] is a cluster of nodes running one **real** training job
//! (HB-ASGD and baseline optimisers computing real gradients of real models on real data on a
//! virtual clock); [`jobs`] is a cluster of machines that many jobs arrive at; [`dag`] places
//! DAGs of tasks on heterogeneous GPUs; [`network`] holds a network of computing centres
//! allocating CPUs and training by consensus (see ARCHITECTURE.md). [`workload_file`] reads a
//! workload file of any kind and tells its kind; [`kinds`] is the one dispatch over kinds
//! (a workload or env of any kind), which the command line and the Python binding share.
//!
//! It owns data loading, models, the cluster performance model, workload files, the
//! simulation and [`real`] execution (control groups and the processes of a real run); file
//! formats shared with other crates (job tables, atomic writes) are `schedlab_artifacts`'. It
//! must know nothing of schedulers, predictors, learning agents, logging or the command line
//! (a real run starts its workers as the binary's hidden `real-process` subcommand, the one
//! name it knows): those crates depend on it, never the reverse.

pub mod bandit;
pub mod cluster;
pub mod control;
pub mod dag;
pub mod data;
pub mod error;
pub mod execution;
pub mod gym;
pub mod jobs;
pub mod kinds;
pub mod limits;
pub mod markov;
pub mod model;
pub mod network;
pub mod real;
pub mod schema;
pub mod single_job;
pub mod workload_file;

#[cfg(test)]
mod testkit;

pub use error::{EnvError, Result};
pub use gym::{
    ActionSpace, Environment, EpisodeSummary, Observation, ObservationSpace, Step, StepInfo,
    VecEnv, VecEnvHistory, VecStep, check_env, episode_seed,
};
pub use kinds::EnvKind;
pub use single_job::{Scenario, SingleJobEnv, SingleJobInfo, SingleJobMetrics, SingleJobWorkload};
