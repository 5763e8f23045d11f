//! The gym contract every env keeps: `reset(seed)`, `step(action)`, declared neutral spaces,
//! action masks, the shared env checker, and a vectorised form.

pub mod check;
pub mod columns;
mod environment;
mod spaces;
mod vec_env;
mod workload;

pub use check::{CheckOptions, CheckReport, check_env};
pub use columns::{Better, MetricColumn};
pub use environment::{Environment, EpisodeSummary, Step, StepInfo};
pub use spaces::{ActionError, ActionSpace, FeatureGroup, Field, Observation, ObservationSpace};
pub use vec_env::{VecEnv, VecEnvHistory, VecStep, episode_seed};
pub use workload::Workload;
