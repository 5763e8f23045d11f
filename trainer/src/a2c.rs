//! Advantage actor-critic (`--agent a2c`): one gradient step per rollout on the whole batch.
//! That is the PPO loop with one epoch and one minibatch: the PPO ratio is then exactly 1,
//! where the clip is inactive and its gradient is the policy gradient `A grad log pi` (tested
//! in `schedlab-agents`).

use burn::tensor::Device;
use schedlab_agents::options::Options;
use schedlab_agents::{EnvKind, Policy, SchedulingEnv};

use crate::algorithm::Algorithm;
use crate::errors::Unmet;
use crate::learner::{Learner, LearnerError};
use crate::ppo::{Ppo, PpoConfig};
use crate::trained::TrainedRun;

pub struct A2c;

impl Algorithm for A2c {
    const NAME: &'static str = "a2c";
    const HELP: &'static str = "advantage actor-critic: one gradient step per rollout (the PPO loop with one epoch and one minibatch)";
    type Config = PpoConfig;

    fn default_config(env: EnvKind) -> PpoConfig {
        PpoConfig::a2c().on(env)
    }

    fn check(config: &PpoConfig) -> Result<(), Unmet> {
        Ppo::check(config)
    }

    fn learner<E: SchedulingEnv>(
        prototype: &E,
        config: PpoConfig,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        Ppo::learner(prototype, config, seed, device)
    }

    fn load(
        trained: &TrainedRun,
        config: PpoConfig,
        options: &Options,
    ) -> std::io::Result<Box<dyn Policy>> {
        Ppo::load(trained, config, options)
    }
}
