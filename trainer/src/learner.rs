//! What the training driver needs of every learned agent: one update at a time, a step
//! count, and checkpoints it can write and restore. [`AgentKind`] names the agents and builds
//! their learners from a JSON config.

use std::path::Path;
use std::sync::Arc;

use burn::tensor::Device;
use schedlab_agents::Policy;
use schedlab_env::{EpisodeMetrics, Scenario, VecStep};

use crate::dqn::{DqnConfig, DqnTrainer};
use crate::ppo::{PpoConfig, PpoTrainer};
use crate::run::{Manifest, RunDir};

/// What one update did.
#[derive(Debug, Clone)]
pub struct UpdateStats {
    /// Env rounds stepped so far, over all copies.
    pub env_steps: u64,
    /// The learner's own curves by TensorBoard tag (`losses/...`, `charts/epsilon`).
    pub scalars: Vec<(&'static str, f32)>,
    /// Mean training-job minibatch loss over the update's rounds (the `env/train_loss` curve).
    pub train_loss: f64,
    /// Episodes that ended during the update.
    pub finished: Vec<EpisodeMetrics>,
}

pub trait Learner {
    /// Collects experience and optimises once.
    fn update(&mut self) -> schedlab_env::Result<UpdateStats>;
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

    /// Its learner with `config`'s hyperparameters; a config of the wrong shape is refused.
    pub fn learner(
        self,
        scenario: &Arc<Scenario>,
        config: &serde_json::Value,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner>, LearnerError> {
        Ok(match self {
            AgentKind::Ppo | AgentKind::A2c => {
                let config: PpoConfig = parse(config)?;
                config.check().map_err(LearnerError::Config)?;
                Box::new(PpoTrainer::new(scenario, config, seed, device)?)
            }
            AgentKind::Dqn => {
                let config: DqnConfig = parse(config)?;
                config.check().map_err(LearnerError::Config)?;
                Box::new(DqnTrainer::new(scenario, config, seed, device)?)
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
#[derive(Default)]
pub struct EpisodeTally {
    finished: Vec<EpisodeMetrics>,
    loss_sum: f64,
    loss_count: usize,
}

impl EpisodeTally {
    pub fn record(&mut self, step: &VecStep) {
        for info in &step.infos {
            if let Some(m) = &info.metrics {
                self.finished.push(m.clone());
            }
            if info.train_loss.is_finite() {
                self.loss_sum += info.train_loss;
                self.loss_count += 1;
            }
        }
    }

    /// The finished episodes and the mean training loss.
    pub fn finish(self) -> (Vec<EpisodeMetrics>, f64) {
        (self.finished, self.loss_sum / self.loss_count.max(1) as f64)
    }
}
