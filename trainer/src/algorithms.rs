//! The learning algorithms `schedlab train` knows, in one table: each is one file
//! implementing [`Algorithm`] (its name, typed hyperparameters with their defaults and checks,
//! the learner that trains it, and how a run folder's trained agent plays) and one row of
//! [`LEARNERS`] (ARCHITECTURE.md, "Add a learning algorithm").

use std::path::Path;

use burn::tensor::Device;
use schedlab_agents::options::{OptionSpec, Options};
use schedlab_agents::{EnvContext, EnvKind, Policy, SchedulingEnv};
use serde::de::DeserializeOwned;

use crate::algorithm::Algorithm;
use crate::learner::{Learner, LearnerError};
use crate::run::Manifest;
use crate::trained::TrainedRun;

/// A row of the table: an [`Algorithm`] with its types erased, but for building its learner
/// (generic over the env: [`AgentKind::learner`]).
pub struct LearnerRow {
    pub name: &'static str,
    pub help: &'static str,
    pub play_options: &'static [OptionSpec],
    pub has_target_network: bool,
    default_config: fn(EnvKind) -> serde_json::Value,
    check: fn(&serde_json::Value) -> Result<(), LearnerError>,
    load: fn(&TrainedRun, &serde_json::Value, &Options) -> std::io::Result<Box<dyn Policy>>,
}

impl LearnerRow {
    pub const fn of<A: Algorithm>() -> LearnerRow {
        LearnerRow {
            name: A::NAME,
            help: A::HELP,
            play_options: A::PLAY_OPTIONS,
            has_target_network: A::HAS_TARGET_NETWORK,
            default_config: default_json::<A>,
            check: check_json::<A>,
            load: load_json::<A>,
        }
    }
}

fn default_json<A: Algorithm>(env: EnvKind) -> serde_json::Value {
    serde_json::to_value(A::default_config(env)).expect("configs serialise")
}

fn check_json<A: Algorithm>(config: &serde_json::Value) -> Result<(), LearnerError> {
    Ok(A::check(&parse::<A::Config>(config)?)?)
}

fn load_json<A: Algorithm>(
    trained: &TrainedRun,
    config: &serde_json::Value,
    options: &Options,
) -> std::io::Result<Box<dyn Policy>> {
    let config = parse::<A::Config>(config).map_err(|e| trained.invalid(e.to_string()))?;
    A::load(trained, config, options)
}

/// Code generic over the algorithm, run on the one a name picks ([`learner_table!`]).
trait Visitor {
    type Output;
    fn visit<A: Algorithm>(self) -> Self::Output;
}

/// The table: [`LEARNERS`] and the visit of the row a name picks, from one list.
macro_rules! learner_table {
    ($($(#[$attr:meta])* $algorithm:path),+ $(,)?) => {
        /// Every learning algorithm, in the order `schedlab train --help` lists them.
        pub const LEARNERS: &[LearnerRow] = &[$($(#[$attr])* LearnerRow::of::<$algorithm>()),+];

        fn visit<V: Visitor>(name: &str, visitor: V) -> Option<V::Output> {
            $($(#[$attr])* {
                if name == <$algorithm as Algorithm>::NAME {
                    return Some(visitor.visit::<$algorithm>());
                }
            })+
            None
        }
    };
}

learner_table![
    crate::ppo::Ppo,
    crate::a2c::A2c,
    crate::dqn::Dqn,
    crate::gnn::Gnn,
    crate::es::Es,
    #[cfg(test)]
    crate::toy::Toy,
];

/// A learning algorithm of the table, by name.
#[derive(Clone, Copy)]
pub struct AgentKind(&'static LearnerRow);

impl PartialEq for AgentKind {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for AgentKind {}

impl std::fmt::Debug for AgentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.name)
    }
}

impl AgentKind {
    /// Every learner's name, in the table's order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        LEARNERS.iter().map(|row| row.name)
    }

    pub fn from_name(name: &str) -> Option<Self> {
        LEARNERS.iter().find(|row| row.name == name).map(AgentKind)
    }

    /// The learner `name`, which the caller knows is in the table.
    pub fn named(name: &str) -> Self {
        Self::from_name(name).unwrap_or_else(|| panic!("no learner `{name}` in the table"))
    }

    pub fn name(self) -> &'static str {
        self.0.name
    }

    pub fn has_target_network(self) -> bool {
        self.0.has_target_network
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
        (self.0.check)(config)
    }

    /// The default hyperparameters on envs of `env`, as JSON (the form `--set` edits and
    /// `config.json` keeps). Jobs workloads have episodes of thousands of decisions, and some
    /// learners have their own defaults there.
    pub fn default_config(self, env: EnvKind) -> serde_json::Value {
        (self.0.default_config)(env)
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
    /// config of the wrong shape or out of range is refused.
    pub fn learner<E: SchedulingEnv>(
        self,
        prototype: &E,
        config: &serde_json::Value,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        let build = BuildLearner {
            prototype,
            config,
            seed,
            device,
        };
        visit(self.name(), build).expect("an AgentKind names a row of the table")
    }
}

struct BuildLearner<'a, E> {
    prototype: &'a E,
    config: &'a serde_json::Value,
    seed: u64,
    device: Device,
}

impl<E: SchedulingEnv> Visitor for BuildLearner<'_, E> {
    type Output = Result<Box<dyn Learner<E::Metrics>>, LearnerError>;

    fn visit<A: Algorithm>(self) -> Self::Output {
        let config: A::Config = parse(self.config)?;
        A::check(&config)?;
        A::learner(self.prototype, config, self.seed, self.device)
    }
}

pub(crate) fn parse<C: DeserializeOwned>(config: &serde_json::Value) -> Result<C, LearnerError> {
    serde_json::from_value(config.clone()).map_err(|e| LearnerError::Config(e.to_string()))
}

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

/// The trained agent a run folder's manifest names, acting greedily, for acting in `env`,
/// with the play `options` its learner takes ([`Algorithm::PLAY_OPTIONS`]). A policy trained
/// on another kind of workload is refused by kind before its weights load; one whose network
/// was built for other spaces is refused by its learner's loader.
pub fn load_agent(
    run: &Path,
    env: &EnvContext,
    device: &Device,
    options: &[(String, String)],
) -> std::io::Result<Box<dyn Policy>> {
    let manifest = Manifest::read(run)?;
    let trained = TrainedRun {
        run,
        manifest: &manifest,
        env,
        device,
    };
    // a network of another kind of workload can still have weights of fitting shapes (a
    // per-unit one): the kind it trained on is checked first, in the project's words
    if let Some(refusal) = other_kind(&manifest, env) {
        return Err(trained.invalid(refusal));
    }
    let kind = AgentKind::from_name(&manifest.agent).ok_or_else(|| {
        trained.invalid(format!(
            "agent `{}` is not one of {}",
            manifest.agent,
            AgentKind::names().collect::<Vec<_>>().join(", ")
        ))
    })?;
    let options = Options::parse(&manifest.agent, kind.0.play_options, options)
        .map_err(|e| trained.invalid(e.to_string()))?;
    (kind.0.load)(&trained, &kind.backfilled(&manifest.config), &options)
}

#[cfg(test)]
mod tests {
    use schedlab_env::{EnvError, Scenario, SingleJobEnv};

    use super::*;
    use crate::errors::Unmet;
    use crate::ppo::PpoConfig;

    fn small() -> SingleJobEnv {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        SingleJobEnv::new(Scenario::load(&path).unwrap())
    }

    /// PPO's learner built with `key` set to `value`, refused.
    fn refused_ppo(key: &str, value: serde_json::Value) -> LearnerError {
        let ppo = AgentKind::named("ppo");
        let mut config = ppo.default_config(EnvKind::SingleJob);
        config[key] = value;
        ppo.learner(&small(), &config, 0, Device::flex().autodiff())
            .err()
            .expect("refused")
    }

    /// A hyperparameter out of range is the learner's configuration error, naming the key and
    /// its value, never an env's refusal of an action.
    #[test]
    fn ppo_with_a_negative_clip_is_refused_naming_clip_and_its_value() {
        let err = refused_ppo("clip", serde_json::json!(-1.0));
        assert!(
            matches!(&err, LearnerError::Unmet(Unmet { key, .. }) if key == "clip"),
            "{err:?}"
        );
        assert!(!matches!(err, LearnerError::Env(EnvError::BadAction(_))));
        assert_eq!(
            err.to_string(),
            "hyperparameters: `clip` = -1: need clip > 0"
        );
    }

    /// What only the workload can refuse (a heuristic that does not build on it) is a
    /// configuration error too.
    #[test]
    fn a_filter_heuristic_that_does_not_build_is_refused_naming_the_key() {
        let err = refused_ppo("filter_heuristic", serde_json::json!("nope"));
        assert!(matches!(err, LearnerError::Config(_)), "{err:?}");
        assert!(
            err.to_string().contains("`filter_heuristic` = nope: "),
            "{err}"
        );
    }

    #[test]
    fn every_learners_check_names_the_key_and_value() {
        for (agent, env, key, value, need) in [
            ("a2c", EnvKind::SingleJob, "clip", "0", "clip > 0"),
            ("dqn", EnvKind::SingleJob, "tau", "0", "0 < tau <= 1"),
            ("es", EnvKind::Jobs, "sigma", "-0.5", "sigma > 0"),
            (
                "gnn",
                EnvKind::Dag,
                "instances",
                "0",
                "1 <= instances <= 4096",
            ),
        ] {
            let err = AgentKind::named(agent)
                .configure(env, &[(key.to_owned(), value.to_owned())])
                .unwrap_err();
            let LearnerError::Unmet(unmet) = &err else {
                panic!("{agent}: {err:?}");
            };
            assert_eq!(
                (
                    unmet.key.as_str(),
                    unmet.value.as_str(),
                    unmet.need.as_str()
                ),
                (key, value, need),
                "{agent}"
            );
        }
    }

    /// A run folder written before a hyperparameter existed still loads: the missing key gets
    /// its default, and what the folder does hold is kept.
    #[test]
    fn a_config_from_before_a_hyperparameter_existed_is_backfilled() {
        let ppo = AgentKind::named("ppo");
        let mut old = ppo.default_config(EnvKind::Jobs);
        let map = old.as_object_mut().unwrap();
        map.remove("warm_start_dagger_rounds");
        map.insert("hidden".into(), serde_json::json!(64));
        assert!(parse::<PpoConfig>(&old).is_err());
        let config: PpoConfig = parse(&ppo.backfilled(&old)).unwrap();
        assert_eq!(config.warm_start.dagger_rounds, 0);
        assert_eq!(config.play.hidden, 64);
        assert_eq!(
            config.rollout_steps,
            PpoConfig::default().jobs().rollout_steps
        );
    }

    #[test]
    fn every_row_is_found_by_its_name_and_names_are_unique() {
        for row in LEARNERS {
            assert_eq!(AgentKind::named(row.name).name(), row.name);
        }
        let mut names: Vec<&str> = AgentKind::names().collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), LEARNERS.len());
        assert!(AgentKind::from_name("nope").is_none());
    }
}
