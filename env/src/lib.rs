//! # schedlab-env
//!
//! The cluster environment: nodes with capacities and background load on a virtual clock,
//! a **real** distributed training job (HB-ASGD and baseline optimisers computing real
//! gradients of real models on real data), and a gym-like API over it: `reset(seed)`,
//! `step(action)`, declared spaces, action masks, reward and metrics (DESIGN §2).
//!
//! It owns data loading, models, the cluster performance model, workload files and the
//! simulation. It must know nothing of schedulers, predictors, learning agents, logging or
//! the command line: those crates depend on it, never the reverse.

pub mod cluster;
pub mod data;
pub mod error;
pub mod gym;
pub mod jobs;
pub mod model;
pub mod scenario;
pub mod sim;
pub mod workload;

#[cfg(test)]
mod testkit;

pub use error::{EnvError, Result};
pub use gym::{
    ActionSpace, ClusterEnv, Environment, EpisodeMetrics, EpisodeSummary, Info, Observation,
    ObservationSpace, Step, StepInfo, VecEnv, VecStep,
};
pub use scenario::Scenario;
pub use workload::Workload;
