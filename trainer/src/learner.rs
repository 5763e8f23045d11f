//! What the training driver needs of every learned agent: one update at a time, a step
//! count, and checkpoints it can write and restore. The agents themselves are named in
//! [`crate::algorithms`].

use std::fmt::Display;
use std::path::Path;

use schedlab_agents::Policy;
use schedlab_env::{StepInfo, VecStep};

use crate::errors::{CheckpointError, PlayError, Unmet};
use crate::imitation::WarmStartReport;
use crate::reward_scale::ReturnStats;
use crate::run::{Manifest, RunDir};

/// What one update did; `M` is the env's episode metrics.
#[derive(Debug, Clone)]
pub struct UpdateStats<M> {
    /// Env rounds stepped so far, over all copies.
    pub env_steps: u64,
    /// Gradient steps (optimiser updates of the networks) this update took.
    pub gradient_steps: u64,
    /// The learner's own curves by TensorBoard tag (`losses/...`, `charts/epsilon`).
    pub scalars: Vec<(&'static str, f32)>,
    /// Mean training-job minibatch loss over the update's rounds (the `env/train_loss` curve).
    pub train_loss: f64,
    /// Episodes that ended during the update.
    pub finished: Vec<M>,
}

pub trait Learner<M> {
    /// Collects experience and optimises once.
    fn update(&mut self) -> schedlab_env::Result<UpdateStats<M>>;
    /// Env rounds trained so far, over all copies.
    fn env_steps(&self) -> u64;
    /// Writes the record files `manifest` names into the run folder.
    fn save(&self, run: &RunDir, manifest: &Manifest) -> std::io::Result<()>;
    /// Continues from the record files `manifest` names: networks, optimiser state, steps.
    fn restore(&mut self, run: &Path, manifest: &Manifest) -> Result<(), CheckpointError>;
    /// The current agent acting greedily, for evaluation episodes.
    fn greedy_policy(&self) -> Box<dyn Policy>;
    /// How many env steps the whole run will take (for schedules such as learning-rate
    /// annealing).
    fn plan(&mut self, _total_steps: u64) {}
    /// The reward scale's statistics, for learners that scale rewards: kept in checkpoints.
    fn return_stats(&self) -> Option<ReturnStats> {
        None
    }
    /// What a resumed run needs beyond the record files to continue exactly as an
    /// uninterrupted one would (the env copies' histories, counters); None where the learner
    /// cannot, and a resumed run then plays fresh episodes.
    fn resume_state(&self) -> Option<serde_json::Value> {
        None
    }
    /// Whether the run's policy is its best evaluation's network (`keep_best`).
    fn keeps_best(&self) -> bool {
        false
    }
    /// Writes the acting network alone (the record [`crate::run::BestPolicy`] names).
    fn save_policy(&self, _run: &RunDir, _name: &str) -> std::io::Result<()> {
        Err(std::io::Error::other("this learner keeps no best policy"))
    }
    /// Continues from a [`Learner::resume_state`] value, after [`Learner::restore`].
    fn restore_state(&mut self, _state: serde_json::Value) -> Result<(), CheckpointError> {
        Err(CheckpointError::State(
            "this learner keeps no resume state".into(),
        ))
    }
    /// Runs the learner's warm start, if its configuration asks for one, before any update
    /// of a new run.
    fn warm_start(&mut self) -> Result<Option<WarmStartReport>, PlayError> {
        Ok(None)
    }
}

/// One condition of a learner's hyperparameters: the key it is set by, that key's value, the
/// condition, and whether it holds.
pub(crate) type Condition<'a> = (&'a str, &'a dyn Display, &'a str, bool);

/// `Err` naming the key, the value and the condition of the first of `conditions` that does
/// not hold.
pub(crate) fn require(conditions: &[Condition]) -> Result<(), Unmet> {
    match conditions.iter().find(|(.., holds)| !holds) {
        Some((key, value, need, _)) => Err(Unmet {
            key: (*key).to_owned(),
            value: value.to_string(),
            need: (*need).to_owned(),
        }),
        None => Ok(()),
    }
}

/// The conditions every learner's hyperparameters share; `envs` is the key and value of the
/// env copies it steps.
pub(crate) fn check_common(
    (envs_key, envs): (&str, usize),
    lr: f64,
    (gamma, discount_time_s): (f64, f64),
    max_grad_norm: f64,
    hidden: usize,
) -> Result<(), Unmet> {
    let envs_need = format!("1 <= {envs_key} <= 4096");
    require(&[
        (envs_key, &envs, &envs_need, (1..=MAX_ENVS).contains(&envs)),
        ("lr", &lr, "lr > 0", lr > 0.0),
        (
            "gamma",
            &gamma,
            "0 <= gamma <= 1",
            (0.0..=1.0).contains(&gamma),
        ),
        (
            "discount_time_s",
            &discount_time_s,
            "discount_time_s >= 0",
            discount_time_s >= 0.0 && discount_time_s.is_finite(),
        ),
        (
            "max_grad_norm",
            &max_grad_norm,
            "max_grad_norm > 0",
            max_grad_norm > 0.0,
        ),
        (
            "hidden",
            &hidden,
            "1 <= hidden <= 65536",
            (1..=MAX_HIDDEN).contains(&hidden),
        ),
    ])
}

/// Env copies one learner steps: far above what the cores of one machine step usefully.
pub(crate) const MAX_ENVS: usize = 4_096;
/// Units of a hidden layer.
pub(crate) const MAX_HIDDEN: usize = 65_536;
/// Steps one rollout or replay buffer holds per copy.
pub(crate) const MAX_STEPS_HELD: usize = 10_000_000;

/// Why a learner cannot be built: hyperparameters it refuses (a condition unmet, or one the
/// workload cannot train with), or an env that fails.
#[derive(Debug, thiserror::Error)]
pub enum LearnerError {
    #[error("hyperparameters: {0}")]
    Config(String),
    #[error("hyperparameters: {0}")]
    Unmet(#[from] Unmet),
    #[error(transparent)]
    Env(#[from] schedlab_env::EnvError),
}

impl LearnerError {
    /// The hyperparameter `key`, set to `value`, that the learner cannot train with, and why.
    pub(crate) fn setting(key: &str, value: impl Display, why: impl Display) -> Self {
        LearnerError::Config(format!("`{key}` = {value}: {why}"))
    }
}

/// Finished episodes and the job's training loss over the env steps of one update.
pub struct EpisodeTally<M> {
    finished: Vec<M>,
    loss_sum: f64,
    loss_count: usize,
}

impl<M> Default for EpisodeTally<M> {
    fn default() -> Self {
        EpisodeTally {
            finished: Vec::new(),
            loss_sum: 0.0,
            loss_count: 0,
        }
    }
}

impl<M: Clone> EpisodeTally<M> {
    pub fn record<I: StepInfo<M>>(&mut self, step: &VecStep<I>) {
        step.infos.iter().for_each(|info| self.record_info(info));
    }

    /// One copy's step.
    pub fn record_info<I: StepInfo<M>>(&mut self, info: &I) {
        if let Some(m) = info.metrics() {
            self.finished.push(m.clone());
        }
        let loss = info.train_loss();
        if loss.is_finite() {
            self.loss_sum += loss;
            self.loss_count += 1;
        }
    }

    /// The finished episodes and the mean training loss (NaN when the env trains no single
    /// job).
    pub fn finish(self) -> (Vec<M>, f64) {
        let loss = match self.loss_count {
            0 => f64::NAN,
            n => self.loss_sum / n as f64,
        };
        (self.finished, loss)
    }
}
