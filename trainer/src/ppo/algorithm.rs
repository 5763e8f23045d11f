//! PPO's row of the table of learners (trainer/src/algorithms.rs): its name, defaults and
//! checks, its learner, and how a run folder's trained network plays.

use burn::tensor::Device;
use schedlab_agents::options::Options;
use schedlab_agents::{EnvKind, Policy, SchedulingEnv};

use super::config::PpoConfig;
use super::network::network;
use super::trainer::PpoTrainer;
use crate::algorithm::Algorithm;
use crate::errors::Unmet;
use crate::learner::{Learner, LearnerError};
use crate::trained::TrainedRun;

/// PPO (`--agent ppo`): the clipped objective over minibatches of each rollout.
pub struct Ppo;

impl Algorithm for Ppo {
    const NAME: &'static str = "ppo";
    const HELP: &'static str = "PPO: the clipped objective over minibatches of each rollout";
    type Config = PpoConfig;

    fn default_config(env: EnvKind) -> PpoConfig {
        PpoConfig::default().on(env)
    }

    fn check(config: &PpoConfig) -> Result<(), Unmet> {
        config.check()
    }

    fn learner<E: SchedulingEnv>(
        prototype: &E,
        config: PpoConfig,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        Ok(Box::new(PpoTrainer::new(prototype, config, seed, device)?))
    }

    /// The most probable allowed level, restricted as it trained. A per-unit network plays
    /// other unit counts where its weights fit.
    fn load(
        trained: &TrainedRun,
        config: PpoConfig,
        _: &Options,
    ) -> std::io::Result<Box<dyn Policy>> {
        if !config.per_unit {
            trained.require_same_spaces()?;
        }
        trained.greedy_actor(network(&config, trained.context()), config.play.restriction)
    }
}
