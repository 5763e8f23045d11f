//! What a learner's loader is given to play a run folder's trained agent, and the checks and
//! loading steps the loaders share.

use std::path::Path;

use burn::module::Module;
use burn::tensor::Device;
use schedlab_agents::jobs::{ChoiceRestriction, Restricted};
use schedlab_agents::learned::actor_critic::ActorCriticConfig;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{EnvContext, Policy, PolicyContext};
use schedlab_env::jobs::Restriction;

use crate::run::{Manifest, load_record};

/// A run folder to play, and the env it is to play in.
pub struct TrainedRun<'a> {
    pub run: &'a Path,
    pub manifest: &'a Manifest,
    pub env: &'a EnvContext,
    pub device: &'a Device,
}

impl TrainedRun<'_> {
    /// An error about this run folder, naming it.
    pub fn invalid(&self, message: String) -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: {message}", self.run.display()),
        )
    }

    pub fn context(&self) -> &PolicyContext {
        self.env.common()
    }

    /// Whether the env's observation or action lengths differ from the ones it trained on.
    pub fn other_spaces(&self) -> bool {
        let ctx = self.context();
        (self.manifest.observation_len, self.manifest.mask_len)
            != (ctx.observation_space.len(), ctx.action_space.mask_len())
    }

    /// Refuses an env of other spaces than the run's, for networks whose weights depend on
    /// them.
    pub fn require_same_spaces(&self) -> std::io::Result<()> {
        match self.other_spaces() {
            true => Err(self.other_shapes()),
            false => Ok(()),
        }
    }

    /// Why a network built for the manifest's spaces does not fit the env's: the play
    /// settings that differ, or else the settings that shape this workload's spaces.
    pub fn other_shapes(&self) -> std::io::Error {
        let (manifest, ctx) = (self.manifest, self.context());
        let here = self.env.shape_settings();
        let differing: Vec<String> = here
            .iter()
            .filter_map(|(key, value)| {
                let trained = manifest.play_settings.get(key).filter(|t| *t != value)?;
                Some(format!("{key} is {trained} in training and {value} here"))
            })
            .collect();
        let detail = if differing.is_empty() {
            let settings: Vec<String> = here.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            format!("with {}", settings.join(", "))
        } else {
            format!("where {}", differing.join("; "))
        };
        self.invalid(format!(
            "trained for observations of {} and actions of {} levels (on {}); this workload has {} and {}, {detail}",
            manifest.observation_len,
            manifest.mask_len,
            manifest.workload,
            ctx.observation_space.len(),
            ctx.action_space.mask_len()
        ))
    }

    /// `module` with the weights of the network the run plays (its last, or its best).
    pub fn load_weights<M: Module>(&self, module: M) -> std::io::Result<M> {
        load_record(module, self.run, self.manifest.policy_model())
            .map_err(|e| self.invalid(e.to_string()))
    }

    /// An actor-critic's actor (PPO's, A2C's, ES's), greedy, restricted as it trained. `net` is `Err` where the env's spaces cannot even be laid
    /// out for it (another interface). A per-unit network plays other unit counts (GPUs of a
    /// DAG platform) when its weights fit the network built for this env.
    pub fn greedy_actor<E: std::fmt::Display>(
        &self,
        net: Result<ActorCriticConfig, E>,
        restriction: Option<Restriction>,
    ) -> std::io::Result<Box<dyn Policy>> {
        let net = match net {
            Ok(net) => net.init_for_record(self.device),
            Err(_) if self.other_spaces() => return Err(self.other_shapes()),
            Err(e) => return Err(self.invalid(e.to_string())),
        };
        let shapes = net.weight_shapes();
        // a per-unit network whose unit features differ (another count of GPU models) fails to
        // load: say which spaces differ rather than which tensor
        let net = self
            .load_weights(net)
            .map_err(|e| match self.other_spaces() {
                true => self.other_shapes(),
                false => e,
            })?;
        if net.weight_shapes() != shapes {
            return Err(self.other_shapes());
        }
        let mut agent = PpoAgent::new(net, self.context(), self.manifest.seed);
        agent.deterministic = true;
        let restriction = ChoiceRestriction::of(self.env, restriction)
            .map_err(|e| self.invalid(e.to_string()))?;
        Ok(Restricted::wrap(Box::new(agent), restriction))
    }
}
