//! What the training driver needs of every learned agent: one update at a time, a step
//! count, and checkpoints it can write and restore. [`AgentKind`] names the agents and builds
//! their learners from a JSON config.

use std::path::Path;

use burn::tensor::Device;
use schedlab_agents::{Policy, SchedulingEnv};
use schedlab_env::{StepInfo, VecStep};

use crate::dqn::{DqnConfig, DqnTrainer};
use crate::ppo::{PpoConfig, PpoTrainer};
use crate::run::{Manifest, RunDir};

/// What one update did; `M` is the env's episode metrics.
#[derive(Debug, Clone)]
pub struct UpdateStats<M> {
    /// Env rounds stepped so far, over all copies.
    pub env_steps: u64,
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
    fn restore(&mut self, run: &Path, manifest: &Manifest) -> Result<(), String>;
    /// The current agent acting greedily, for evaluation episodes.
    fn greedy_policy(&self) -> Box<dyn Policy>;
}

/// The learned agents `schedlab train` knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    Ppo,
    /// Advantage actor-critic: one gradient step per rollout on the whole batch. That is the
    /// PPO loop with one epoch and one minibatch: the PPO ratio is then exactly 1, where the
    /// clip is inactive and its gradient is the policy gradient `A grad log pi` (tested in
    /// `schedlab-agents`).
    A2c,
    Dqn,
}

impl AgentKind {
    pub const NAMES: [&'static str; 3] = ["ppo", "a2c", "dqn"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "ppo" => Some(AgentKind::Ppo),
            "a2c" => Some(AgentKind::A2c),
            "dqn" => Some(AgentKind::Dqn),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Ppo => "ppo",
            AgentKind::A2c => "a2c",
            AgentKind::Dqn => "dqn",
        }
    }

    /// Whether its checkpoints hold a target network besides the online one.
    pub fn has_target_network(self) -> bool {
        self == AgentKind::Dqn
    }

    /// The default hyperparameters, as JSON (the form `--set` edits and `config.json` keeps).
    pub fn default_config(self) -> serde_json::Value {
        let config = match self {
            AgentKind::Ppo => serde_json::to_value(PpoConfig::new()),
            AgentKind::A2c => serde_json::to_value(PpoConfig::a2c()),
            AgentKind::Dqn => serde_json::to_value(DqnConfig::new()),
        };
        config.expect("configs serialise")
    }

    /// Its learner, acting in copies of `prototype`, with `config`'s hyperparameters; a
    /// config of the wrong shape is refused.
    pub fn learner<E: SchedulingEnv>(
        self,
        prototype: &E,
        config: &serde_json::Value,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        Ok(match self {
            AgentKind::Ppo | AgentKind::A2c => {
                let config: PpoConfig = parse(config)?;
                config.check().map_err(LearnerError::Config)?;
                Box::new(PpoTrainer::new(prototype, config, seed, device)?)
            }
            AgentKind::Dqn => {
                let config: DqnConfig = parse(config)?;
                config.check().map_err(LearnerError::Config)?;
                Box::new(DqnTrainer::new(prototype, config, seed, device)?)
            }
        })
    }
}

fn parse<C: serde::de::DeserializeOwned>(config: &serde_json::Value) -> Result<C, LearnerError> {
    serde_json::from_value(config.clone()).map_err(|e| LearnerError::Config(e.to_string()))
}

/// `Err` naming the first of `(name, holds)` that does not hold.
pub(crate) fn require(conditions: &[(&str, bool)]) -> Result<(), String> {
    match conditions.iter().find(|(_, holds)| !holds) {
        Some((name, _)) => Err(format!("need {name}")),
        None => Ok(()),
    }
}

/// The conditions every learner's hyperparameters share.
pub(crate) fn check_common(
    envs: usize,
    lr: f64,
    gamma: f64,
    max_grad_norm: f64,
    hidden: usize,
) -> Result<(), String> {
    require(&[
        ("envs >= 1", envs >= 1),
        ("lr > 0", lr > 0.0),
        ("0 <= gamma <= 1", (0.0..=1.0).contains(&gamma)),
        ("max_grad_norm > 0", max_grad_norm > 0.0),
        ("hidden >= 1", hidden >= 1),
    ])
}

#[derive(Debug, thiserror::Error)]
pub enum LearnerError {
    #[error("hyperparameters: {0}")]
    Config(String),
    #[error(transparent)]
    Env(#[from] schedlab_env::EnvError),
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
        for info in &step.infos {
            if let Some(m) = info.metrics() {
                self.finished.push(m.clone());
            }
            let loss = info.train_loss();
            if loss.is_finite() {
                self.loss_sum += loss;
                self.loss_count += 1;
            }
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
