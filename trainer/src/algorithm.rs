//! What a learning algorithm is to the table of learners (trainer/src/algorithms.rs): one
//! zero-sized type per algorithm, in the algorithm's own file, implementing [`Algorithm`].

use burn::tensor::Device;
use schedlab_agents::options::{OptionSpec, Options};
use schedlab_agents::{EnvKind, Policy, SchedulingEnv};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::errors::Unmet;
use crate::learner::{Learner, LearnerError};
use crate::trained::TrainedRun;

/// One learning algorithm, implemented by a zero-sized type in the algorithm's own file.
pub trait Algorithm: 'static {
    /// `schedlab train --agent NAME`, and the `agent` of its run folders' manifests.
    const NAME: &'static str;
    /// One line on what it is, for `schedlab train --help`.
    const HELP: &'static str;
    /// What a trained agent takes when played, inline after its name (`dag-gnn:episodes=64`).
    const PLAY_OPTIONS: &'static [OptionSpec] = &[];
    /// Whether its checkpoints hold a target network besides the online one.
    const HAS_TARGET_NETWORK: bool = false;
    /// Its hyperparameters, kept in `config.json` and the manifest as JSON.
    type Config: Serialize + DeserializeOwned;

    /// The defaults on workloads of `env`.
    fn default_config(env: EnvKind) -> Self::Config;
    /// Refuses values out of range, naming the condition.
    fn check(config: &Self::Config) -> Result<(), Unmet>;
    /// Its learner, acting in copies of `prototype`.
    fn learner<E: SchedulingEnv>(
        prototype: &E,
        config: Self::Config,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError>;
    /// The trained agent of a run folder, acting greedily with the play `options` it takes.
    fn load(
        trained: &TrainedRun,
        config: Self::Config,
        options: &Options,
    ) -> std::io::Result<Box<dyn Policy>>;
}
