//! The gym contract every schedlab environment keeps, so that one rollout loop, one vectorised
//! env, one trainer and one evaluator serve every kind alike: the single job, the jobs cluster,
//! DAGs on GPUs and the network of centres.

use super::spaces::{ActionSpace, Observation, ObservationSpace};
use crate::error::Result;
use crate::gym::columns::MetricColumn;

/// What `step` returns (Gymnasium's 5-tuple), with the env's own diagnostics in `info`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Step<I> {
    pub observation: Observation,
    pub reward: f64,
    /// The episode reached its goal (the job its target loss; every job finished), or its
    /// reward settled what was left (a jobs episode at `max_time_s` charges every unfinished
    /// job its remaining time), so no value follows it.
    pub terminated: bool,
    /// A round, step or time limit ended the episode first.
    pub truncated: bool,
    pub info: I,
}

/// `reset(seed)`, `step(action)` and declared spaces over a discrete multi-dimensional action
/// with a mask inside every observation.
///
/// The contract, which [`check_env`](super::check_env) verifies: everything random in an
/// episode derives from the seed given to `reset`; observations have the declared length and
/// finite features; every dimension of the mask allows at least one level; `step` refuses an
/// action that [`ActionSpace::check`] refuses, with an error, and leaves the env as it was; an
/// episode ends (terminated or truncated) within `step_limit` steps; `step` after the end
/// returns [`EnvError::EpisodeOver`](crate::EnvError::EpisodeOver) until the next `reset`.
pub trait Environment: Send {
    /// The episode's summary, set in the info of its last step.
    type Metrics: EpisodeSummary;
    type Info: StepInfo<Self::Metrics>;

    /// The workload's name (for run folders and labels).
    fn workload_name(&self) -> &str;
    fn action_space(&self) -> &ActionSpace;
    fn observation_space(&self) -> &ObservationSpace;
    /// The most steps one episode can take.
    fn step_limit(&self) -> usize;
    /// Starts an episode; everything random in it derives from `seed`.
    fn reset(&mut self, seed: u64) -> Result<(Observation, Self::Info)>;
    /// Whether two seeds can give different episodes (the env checker asks that they do);
    /// false only for an env with nothing random in it.
    fn draws_from_seed(&self) -> bool {
        true
    }
    fn step(&mut self, action: &[usize]) -> Result<Step<Self::Info>>;
    /// A new env of the same workload with no episode started (cheap: workloads are shared).
    fn fresh_copy(&self) -> Self
    where
        Self: Sized;
}

/// What generic code reads from a step's info.
pub trait StepInfo<M>: Clone + std::fmt::Debug + Send {
    /// Set on the step that ends an episode.
    fn metrics(&self) -> Option<&M>;
    /// The virtual clock after the step, seconds (learners discount by elapsed time).
    fn time_s(&self) -> f64;
    /// The training job's mean minibatch loss over the step, where the env trains exactly one
    /// job (NaN otherwise).
    fn train_loss(&self) -> f64 {
        f64::NAN
    }
}

/// An episode's metrics, as named figures for curves and tables.
pub trait EpisodeSummary:
    Clone + std::fmt::Debug + Send + Sync + serde::Serialize + 'static
{
    /// Every figure as a named column, in the order of the metrics' fields.
    const COLUMNS: &'static [MetricColumn<Self>];
    /// The sum of the episode's rewards.
    fn episode_return(&self) -> f64;
    /// The headline figures by curve name (`charts/NAME` in training, `eval/NAME` in
    /// evaluations), the objective first.
    fn curves(&self) -> Vec<(&'static str, f64)>;
}
