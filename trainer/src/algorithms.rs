//! The learning algorithms `schedlab train` knows, in one place: for each its name,
//! default hyperparameters (checked when set), the learner that trains it, and how a run
//! folder's trained agent is loaded to act (ARCHITECTURE.md, "Add a learning algorithm").

use std::path::Path;

use burn::tensor::Device;
use schedlab_agents::dag::gnn::GnnPolicy;
use schedlab_agents::options::{OptionSpec, OptionType, Options};
use schedlab_agents::{EnvContext, EnvKind, SchedulingEnv};

use crate::dqn::{DqnConfig, DqnTrainer};
use crate::es::{EsConfig, EsTrainer};
use crate::gnn::{GnnConfig, GnnTrainer};
use crate::learner::{Learner, LearnerError};
use crate::ppo::{PpoConfig, PpoTrainer, network};
use crate::run::{Manifest, load_record};
use schedlab_agents::dqn::{BranchingQConfig, DqnAgent};
use schedlab_agents::jobs::{ChoiceRestriction, Restricted};
use schedlab_agents::learned::actor_critic::ActorCriticConfig;
use schedlab_agents::ppo::PpoAgent;

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
    /// The learned DAG scheduler: a message-passing network over the DAG, trained by
    /// REINFORCE against the mean of several episodes on the same instance (DAG envs only).
    Gnn,
    /// Evolution strategies on PPO's per-unit actor: whole greedy episodes of perturbed
    /// weights, ranked on the same windows (per-unit spaces only).
    Es,
}

impl AgentKind {
    pub const NAMES: [&'static str; 5] = ["ppo", "a2c", "dqn", "gnn", "es"];

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "ppo" => Some(AgentKind::Ppo),
            "a2c" => Some(AgentKind::A2c),
            "dqn" => Some(AgentKind::Dqn),
            "gnn" => Some(AgentKind::Gnn),
            "es" => Some(AgentKind::Es),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Ppo => "ppo",
            AgentKind::A2c => "a2c",
            AgentKind::Dqn => "dqn",
            AgentKind::Gnn => "gnn",
            AgentKind::Es => "es",
        }
    }

    /// Whether its checkpoints hold a target network besides the online one.
    pub fn has_target_network(self) -> bool {
        self == AgentKind::Dqn
    }

    /// The default hyperparameters for envs of `env` with `pairs` set, as JSON (the form
    /// `config.json` keeps): an unknown name, a value of the wrong type or one out of range is
    /// refused here, before any run folder is made.
    pub fn configure(
        self,
        env: EnvKind,
        pairs: &[(String, String)],
    ) -> Result<serde_json::Value, LearnerError> {
        let mut config = self.default_config(env);
        let map = config.as_object_mut().expect("configs are JSON objects");
        for (key, raw) in pairs {
            if !map.contains_key(key) {
                return Err(LearnerError::Config(format!(
                    "unknown hyperparameter `{key}`; known: {}",
                    map.keys().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
            let parsed = serde_json::from_str(raw)
                .unwrap_or_else(|_| serde_json::Value::String(raw.clone()));
            map.insert(key.clone(), parsed);
        }
        self.check(&config)?;
        Ok(config)
    }

    /// Refuses a config of the wrong shape or with values out of range.
    pub fn check(self, config: &serde_json::Value) -> Result<(), LearnerError> {
        match self {
            AgentKind::Ppo | AgentKind::A2c => parse::<PpoConfig>(config)?
                .check()
                .map_err(LearnerError::Unmet),
            AgentKind::Dqn => parse::<DqnConfig>(config)?
                .check()
                .map_err(LearnerError::Unmet),
            AgentKind::Gnn => parse::<GnnConfig>(config)?
                .check()
                .map_err(LearnerError::Unmet),
            AgentKind::Es => parse::<EsConfig>(config)?
                .check()
                .map_err(LearnerError::Unmet),
        }
    }

    /// The default hyperparameters on envs of `env`, as JSON (the form `--set` edits and
    /// `config.json` keeps). Jobs workloads have episodes of thousands of decisions and get
    /// their own (`PpoConfig::jobs`; DQN discounts per virtual hour there).
    pub fn default_config(self, env: EnvKind) -> serde_json::Value {
        let jobs = env == EnvKind::Jobs;
        let config = match self {
            AgentKind::Ppo if jobs => serde_json::to_value(PpoConfig::new().jobs()),
            AgentKind::Ppo => serde_json::to_value(PpoConfig::new()),
            AgentKind::A2c if jobs => serde_json::to_value(PpoConfig::a2c().jobs()),
            AgentKind::A2c => serde_json::to_value(PpoConfig::a2c()),
            AgentKind::Dqn if jobs => {
                serde_json::to_value(DqnConfig::new().with_discount_time_s(3600.0))
            }
            AgentKind::Dqn => serde_json::to_value(DqnConfig::new()),
            AgentKind::Gnn => serde_json::to_value(GnnConfig::new()),
            AgentKind::Es => serde_json::to_value(EsConfig::new()),
        };
        config.expect("configs serialise")
    }

    /// `config` with every hyperparameter it predates (a run folder written before that
    /// hyperparameter existed) at its single-job default, so that old runs still load to play
    /// and resume: a run that predates a hyperparameter trained without it, which its
    /// single-job default reproduces (0 for `discount_time_s` and `same_window`).
    pub fn backfilled(self, config: &serde_json::Value) -> serde_json::Value {
        let mut filled = self.default_config(EnvKind::SingleJob);
        if let (Some(filled), Some(given)) = (filled.as_object_mut(), config.as_object()) {
            filled.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        filled
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
                config.check().map_err(LearnerError::Unmet)?;
                Box::new(PpoTrainer::new(prototype, config, seed, device)?)
            }
            AgentKind::Dqn => {
                let config: DqnConfig = parse(config)?;
                config.check().map_err(LearnerError::Unmet)?;
                Box::new(DqnTrainer::new(prototype, config, seed, device)?)
            }
            AgentKind::Gnn => {
                let config: GnnConfig = parse(config)?;
                config.check().map_err(LearnerError::Unmet)?;
                Box::new(GnnTrainer::new(prototype, config, seed, device)?)
            }
            AgentKind::Es => {
                let config: EsConfig = parse(config)?;
                config.check().map_err(LearnerError::Unmet)?;
                Box::new(EsTrainer::new(prototype, config, seed, device)?)
            }
        })
    }
}

fn parse<C: serde::de::DeserializeOwned>(config: &serde_json::Value) -> Result<C, LearnerError> {
    serde_json::from_value(config.clone()).map_err(|e| LearnerError::Config(e.to_string()))
}

/// What a trained agent takes when played, inline after its name (`dag-gnn:episodes=64`): the
/// learned DAG scheduler's decoding; the other agents take none.
pub const GNN_PLAY_OPTIONS: &[OptionSpec] = &[OptionSpec {
    key: "episodes",
    kind: OptionType::Count,
    default: "1",
    help: "episodes decoded per instance: the greedy one, then sampled ones; the shortest is played",
}];

/// The trained agent a run folder's manifest names, acting greedily (PPO and A2C: the most
/// probable allowed level; DQN: the highest Q), for acting in `ctx`'s environment, with the
/// play `options` its kind takes ([`GNN_PLAY_OPTIONS`]). A run whose network was built for
/// other observation or action shapes is refused, but for a per-unit network whose weights fit
/// this environment's units (another GPU count).
/// Why a policy trained on another kind of workload than `env`'s cannot play there; `None`
/// where the kinds agree (or the manifest predates recording its kind).
fn other_kind(manifest: &Manifest, env: &EnvContext) -> Option<String> {
    let here = env.kind().name();
    let trained = manifest.env_kind.as_deref().filter(|&k| k != here)?;
    Some(format!(
        "trained on a {trained} workload ({}); this is a {here} workload: play it on a {trained} workload, or train one here",
        manifest.workload
    ))
}

/// Why a network built for the manifest's spaces does not fit `env`'s: the play settings that
/// differ, or else the settings that shape this workload's spaces.
fn other_shapes(manifest: &Manifest, env: &EnvContext) -> String {
    let ctx = env.common();
    let here = env.shape_settings();
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
    format!(
        "trained for observations of {} and actions of {} levels (on {}); this workload has {} and {}, {detail}",
        manifest.observation_len,
        manifest.mask_len,
        manifest.workload,
        ctx.observation_space.len(),
        ctx.action_space.mask_len()
    )
}

pub fn load_agent(
    run: &Path,
    env: &EnvContext,
    device: &burn::tensor::Device,
    options: &[(String, String)],
) -> std::io::Result<Box<dyn schedlab_agents::Policy>> {
    let ctx = env.common();
    let manifest = Manifest::read(run)?;
    let invalid = |m: String| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: {m}", run.display()),
        )
    };
    // a network of another kind of workload can still have weights of fitting shapes (a
    // per-unit one): the kind it trained on is checked first, in the project's words
    if let Some(refusal) = other_kind(&manifest, env) {
        return Err(invalid(refusal));
    }
    let kind = AgentKind::from_name(&manifest.agent).ok_or_else(|| {
        invalid(format!(
            "agent `{}` is not one of {}",
            manifest.agent,
            AgentKind::NAMES.join(", ")
        ))
    })?;
    let declared = if kind == AgentKind::Gnn {
        GNN_PLAY_OPTIONS
    } else {
        &[]
    };
    let options =
        Options::parse(&manifest.agent, declared, options).map_err(|e| invalid(e.to_string()))?;
    if kind == AgentKind::Gnn {
        let episodes = options.count("episodes") as usize;
        return load_gnn(run, &manifest, env, device, &invalid)
            .map(|policy| Box::new(policy.with_samples(episodes - 1)) as Box<_>);
    }
    let (obs, mask) = (ctx.observation_space.len(), ctx.action_space.mask_len());
    let other_shapes = || invalid(other_shapes(&manifest, env));
    // a per-unit network's weights do not depend on the number of units: it plays other
    // counts (GPUs of a DAG platform) when its weights fit the network built for this one
    let per_unit = kind == AgentKind::Es
        || (matches!(kind, AgentKind::Ppo | AgentKind::A2c)
            && manifest.config.get("per_unit") == Some(&serde_json::Value::Bool(true)));
    let other_spaces = (manifest.observation_len, manifest.mask_len) != (obs, mask);
    if other_spaces && !per_unit {
        return Err(other_shapes());
    }
    let hidden = manifest
        .config
        .get("hidden")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| invalid("config has no `hidden`".into()))? as usize;
    // PPO's and ES's actor, greedy, restricted as it trained: `(starts_only, grow_only)`
    let greedy_actor = |net: Result<ActorCriticConfig, String>, restricted: (bool, bool)| {
        let net = match net {
            Ok(net) => net.init_for_record(device),
            // spaces a per-unit network cannot even lay out (another interface)
            Err(_) if other_spaces => return Err(other_shapes()),
            Err(e) => return Err(invalid(e)),
        };
        let shapes = net.weight_shapes();
        let net =
            load_record(net, run, manifest.policy_model()).map_err(|e| invalid(e.to_string()))?;
        if net.weight_shapes() != shapes {
            return Err(other_shapes());
        }
        let mut agent = PpoAgent::new(net, ctx, manifest.seed);
        agent.deterministic = true;
        let restriction = ChoiceRestriction::of_options(env, restricted.0, restricted.1)
            .map_err(|e| invalid(e.to_string()))?;
        Ok(Restricted::wrap(Box::new(agent), restriction))
    };
    Ok(match kind {
        AgentKind::Dqn => {
            let net = BranchingQConfig::new(obs, mask)
                .with_hidden(hidden)
                .init(device);
            let net = load_record(net, run, manifest.policy_model())
                .map_err(|e| invalid(e.to_string()))?;
            // epsilon starts at 0: greedy
            Box::new(DqnAgent::new(net, ctx, manifest.seed))
        }
        AgentKind::Ppo | AgentKind::A2c => {
            let config = kind.backfilled(&manifest.config);
            let config: PpoConfig = parse(&config).map_err(|e| invalid(e.to_string()))?;
            greedy_actor(
                network(&config, ctx).map_err(|e| e.to_string()),
                (config.starts_only, config.grow_only),
            )?
        }
        AgentKind::Es => {
            let config: EsConfig = parse(&manifest.config).map_err(|e| invalid(e.to_string()))?;
            greedy_actor(
                config.network(ctx).map_err(|e| e.to_string()),
                (config.starts_only, config.grow_only),
            )?
        }
        AgentKind::Gnn => unreachable!("loaded above"),
    })
}

/// The learned DAG scheduler of a run folder: its network's weights do not depend on the
/// DAG's size or GPU count, so it plays any DAG workload.
fn load_gnn(
    run: &Path,
    manifest: &Manifest,
    env: &EnvContext,
    device: &burn::tensor::Device,
    invalid: &dyn Fn(String) -> std::io::Error,
) -> std::io::Result<GnnPolicy> {
    let EnvContext::Dag(ctx) = env else {
        return Err(invalid(format!(
            "a gnn scheduler plays DAG workloads; this is a {} workload",
            env.kind().name()
        )));
    };
    let config: GnnConfig = parse(&manifest.config).map_err(|e| invalid(e.to_string()))?;
    let net = config.network().init_for_record(device);
    let net = load_record(net, run, manifest.policy_model()).map_err(|e| invalid(e.to_string()))?;
    Ok(GnnPolicy::new(
        net,
        std::sync::Arc::clone(&ctx.workload),
        ctx.action_space.clone(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run folder written before a hyperparameter existed still loads: the missing key gets
    /// its default, and what the folder does hold is kept.
    #[test]
    fn a_config_from_before_a_hyperparameter_existed_is_backfilled() {
        let mut old = AgentKind::Ppo.default_config(EnvKind::Jobs);
        let map = old.as_object_mut().unwrap();
        map.remove("warm_start_dagger_rounds");
        map.insert("hidden".into(), serde_json::json!(64));
        assert!(parse::<PpoConfig>(&old).is_err());
        let config: PpoConfig = parse(&AgentKind::Ppo.backfilled(&old)).unwrap();
        assert_eq!(config.warm_start_dagger_rounds, 0);
        assert_eq!(config.hidden, 64);
        assert_eq!(config.rollout_steps, PpoConfig::new().jobs().rollout_steps);
    }
}
