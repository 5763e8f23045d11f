//! Every kind of env behind one type: the one dispatch over kinds, for the command line and
//! the Python binding alike. [`kinds_table!`] is the table of kinds, one row each (its name,
//! its loaded workload, its env, the context schedulers get of it). Made from it: `EnvKind`
//! (with the kind a file declares), [`AnyWorkload`], [`AnyEnv`],
//! [`AnyVecEnv`] and [`each_kind!`] here, the agents' `EnvContext` and the command line's
//! `Loaded` in their crates. A workload file names its kind (`kind = "jobs"`, `"dag"`,
//! `"network"`; single-job files name none); [`AnyWorkload::load_file`] loads the file, read
//! once, into that kind's [`Workload`]. Adding a kind is its module and a row here
//! (ARCHITECTURE.md, "Add a kind of environment").

use std::path::Path;

use crate::error::{EnvError, Result};
use crate::gym::{Environment, Observation, VecEnv, Workload};
use crate::workload_file::WorkloadFile;

/// The table of kinds, given to the macro `$callback` (after the tokens in brackets) as rows
/// `(Variant, module, "name", "what it is", loaded workload, env, schedulers' context)`. The
/// module is the folder every crate that knows the kind keeps it in (`env/src/jobs/`,
/// `agents/src/jobs/` with its `SCHEDULERS`, `agents/src/context/jobs.rs`,
/// `experiments/src/workloads/jobs.rs`); the context is named only: it is resolved where the
/// callback expands (the agents crate). With `each`, it is the match behind [`each_kind!`].
#[macro_export]
macro_rules! kinds_table {
    (@rows [callback $callback:ident [$($args:tt)*]] $($row:tt),+) => {
        $callback! { [$($args)*] $($row),+ }
    };
    (@rows [each $Enum:path, $any:expr, $x:ident, $body:expr] $(($kind:ident, $($rest:tt)*)),+) => {{
        use $Enum as Kinds;
        match $any {
            $(Kinds::$kind($x) => $body,)+
        }
    }};
    ($($how:tt)*) => {
        $crate::kinds_table! { @rows [$($how)*]
            (SingleJob, single_job, "single-job", "One training job on a cluster of nodes.",
                std::sync::Arc<$crate::single_job::Scenario>, $crate::single_job::SingleJobEnv,
                SingleJobContext),
            (Jobs, jobs, "jobs", "Many jobs arriving at a cluster of machines.",
                $crate::jobs::JobsSetup, $crate::jobs::JobsEnv, JobsContext),
            (Dag, dag, "dag", "DAGs of tasks placed on heterogeneous GPUs.",
                std::sync::Arc<$crate::dag::DagWorkload>, $crate::dag::DagEnv, DagContext),
            (Network, network, "network", "Computing centres sharing CPUs and training by consensus.",
                std::sync::Arc<$crate::network::NetworkWorkload>, $crate::network::NetworkEnv,
                NetworkContext),
            (Bandit, bandit, "bandit", "A masked contextual bandit with a known optimum (tests, calibration).",
                std::sync::Arc<$crate::bandit::BanditWorkload>, $crate::bandit::BanditEnv,
                BanditContext),
            (Control, control, "control", "CartPole-v1 and Acrobot-v1 with Gymnasium's dynamics (calibration).",
                std::sync::Arc<$crate::control::ControlWorkload>, $crate::control::ControlEnv,
                ControlContext),
            (Markov, markov, "markov", "A chain MDP and a semi-Markov chain of same-time choices, with known answers (calibration).",
                std::sync::Arc<$crate::markov::MarkovWorkload>, $crate::markov::MarkovEnv,
                MarkovContext)
        }
    };
}

/// Runs `$body` with `$x` bound to what `$any` (a value of `$Enum`, whose variants are named
/// for the kinds) holds: the one match over kinds.
#[macro_export]
macro_rules! each_kind {
    ($Enum:path, $any:expr, $x:ident => $body:expr) => {
        $crate::kinds_table!(each $Enum, $any, $x, $body)
    };
}

macro_rules! define_kinds {
    ([] $(($kind:ident, $module:ident, $name:literal, $doc:literal, $workload:ty, $env:ty, $context:ident)),+) => {
        /// A workload file of any kind, loaded and ready to make envs from.
        pub enum AnyWorkload {
            $($kind($workload),)+
        }

        impl AnyWorkload {
            /// Loads `file` (read once) as the kind it declares, with `overrides` (dotted
            /// `section.key=value`) set.
            pub fn load_file(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<AnyWorkload> {
                Ok(match EnvKind::of(file)? {
                    $(EnvKind::$kind => AnyWorkload::$kind(<$workload>::load(file, overrides)?),)+
                })
            }

            /// A fresh env with no episode started.
            pub fn env(&self) -> AnyEnv {
                match self {
                    $(AnyWorkload::$kind(w) => AnyEnv::$kind(w.env()),)+
                }
            }
        }

        /// An env of any kind.
        pub enum AnyEnv {
            $($kind($env),)+
        }

        /// Copies of an env of any kind, stepped together.
        pub enum AnyVecEnv {
            $($kind(VecEnv<$env>),)+
        }

        impl AnyEnv {
            pub fn kind(&self) -> EnvKind {
                match self {
                    $(AnyEnv::$kind(_) => EnvKind::$kind,)+
                }
            }

            /// `copies` fresh copies stepped together; copy `i`'s `k`-th episode is seeded by
            /// `episode_seed(base_seed, i, k)` (env/src/gym/vec_env.rs).
            pub fn vectorised(&self, copies: usize, base_seed: u64) -> AnyVecEnv {
                match self {
                    $(AnyEnv::$kind(e) => AnyVecEnv::$kind(VecEnv::new(e, copies, base_seed)),)+
                }
            }
        }
    };
}

kinds_table!(callback define_kinds []);

/// `EnvKind` from the table of kinds (`crate::kinds`).
macro_rules! env_kind {
    ([] $(($kind:ident, $module:ident, $name:literal, $doc:literal, $workload:ty, $env:ty, $context:ident)),+) => {
        /// The kinds of env a workload file can be for.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum EnvKind {
            $(#[doc = $doc] $kind,)+
        }

        impl EnvKind {
            pub const ALL: [EnvKind; [$(EnvKind::$kind),+].len()] = [$(EnvKind::$kind),+];

            /// As the command line and workload files say it.
            pub fn name(self) -> &'static str {
                match self {
                    $(EnvKind::$kind => $name,)+
                }
            }

            /// As type names and Gymnasium ids say it (`schedlab/SingleJob-v0`).
            pub fn type_name(self) -> &'static str {
                match self {
                    $(EnvKind::$kind => stringify!($kind),)+
                }
            }
        }
    };
}

kinds_table!(callback env_kind []);

impl AnyWorkload {
    /// Reads the workload file at `path` and loads it ([`AnyWorkload::load_file`]).
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<AnyWorkload> {
        AnyWorkload::load_file(&WorkloadFile::read(path)?, overrides)
    }
}

impl EnvKind {
    /// The kind the workload file at `path` declares ([`EnvKind::of`]).
    pub fn of_file(path: &Path) -> Result<EnvKind> {
        EnvKind::of(&WorkloadFile::read(path)?)
    }

    /// The kind a workload file declares (`kind = "jobs"`, `"dag"`, `"network"`); a file
    /// that declares none is a single-job workload.
    pub fn of(file: &WorkloadFile) -> Result<EnvKind> {
        let table = file.table(&[])?;
        let Some(kind) = table.get("kind") else {
            return Ok(EnvKind::SingleJob);
        };
        let name = kind.as_str().unwrap_or_default();
        let declared = || {
            EnvKind::ALL
                .into_iter()
                .filter(|k| *k != EnvKind::SingleJob)
        };
        declared().find(|k| k.name() == name).ok_or_else(|| {
            let names: Vec<String> = declared().map(|k| format!("\"{}\"", k.name())).collect();
            EnvError::config(
                &file.path,
                "kind",
                format!(
                    "must be {} (none for a single-job workload), got {kind}",
                    names.join(", ")
                ),
            )
        })
    }
}

/// What one step of an env of any kind gives: its step info as JSON.
pub struct AnyStep {
    pub observation: Observation,
    pub reward: f64,
    pub terminated: bool,
    pub truncated: bool,
    pub info_json: String,
}

/// What a batched step of copies of an env of any kind gives.
pub struct AnyVecStep {
    pub observations: Vec<Observation>,
    pub rewards: Vec<f64>,
    pub terminated: Vec<bool>,
    pub truncated: Vec<bool>,
    pub infos_json: Vec<String>,
    pub final_observations: Vec<Option<Observation>>,
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| EnvError::Contract(format!("info to JSON: {e}")))
}

impl AnyEnv {
    pub fn workload_name(&self) -> String {
        each_kind!(AnyEnv, self, e => e.workload_name().to_owned())
    }

    /// Choices per action dimension.
    pub fn nvec(&self) -> Vec<usize> {
        each_kind!(AnyEnv, self, e => e.action_space().nvec())
    }

    /// `(unit, field)` labels of the action dimensions, e.g. `node 3 cpu`.
    pub fn action_labels(&self) -> Vec<String> {
        each_kind!(AnyEnv, self, e => {
            let space = e.action_space();
            (0..space.dims()).map(|d| space.label(d)).collect()
        })
    }

    /// Observation feature groups: `(name, count, width)`.
    pub fn observation_groups(&self) -> Vec<(String, usize, usize)> {
        each_kind!(AnyEnv, self, e => e
            .observation_space()
            .groups()
            .iter()
            .map(|g| (g.name.to_owned(), g.count, g.width))
            .collect())
    }

    /// The groups read unit by unit by a per-unit network: the first group, then those
    /// declared with one block per unit (`ObservationSpace::unit_groups`).
    pub fn observation_unit_groups(&self) -> Vec<String> {
        each_kind!(AnyEnv, self, e => e
            .observation_space()
            .unit_groups()
            .iter()
            .map(|g| g.name.to_owned())
            .collect())
    }

    pub fn observation_len(&self) -> usize {
        each_kind!(AnyEnv, self, e => e.observation_space().len())
    }

    pub fn step_limit(&self) -> usize {
        each_kind!(AnyEnv, self, e => e.step_limit())
    }

    /// Starts an episode; the info as JSON.
    pub fn reset(&mut self, seed: u64) -> Result<(Observation, String)> {
        each_kind!(AnyEnv, self, e => {
            let (observation, info) = e.reset(seed)?;
            Ok((observation, to_json(&info)?))
        })
    }

    pub fn step(&mut self, action: &[usize]) -> Result<AnyStep> {
        each_kind!(AnyEnv, self, e => {
            let step = e.step(action)?;
            Ok(AnyStep {
                info_json: to_json(&step.info)?,
                observation: step.observation,
                reward: step.reward,
                terminated: step.terminated,
                truncated: step.truncated,
            })
        })
    }
}

impl AnyVecEnv {
    pub fn len(&self) -> usize {
        each_kind!(AnyVecEnv, self, e => e.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn reset(&mut self) -> Result<Vec<Observation>> {
        each_kind!(AnyVecEnv, self, e => e.reset())
    }

    /// Steps every copy (in parallel where that pays); a copy whose episode ends is reset at
    /// once.
    pub fn step(&mut self, actions: &[Vec<usize>]) -> Result<AnyVecStep> {
        each_kind!(AnyVecEnv, self, e => {
            let step = e.step(actions)?;
            Ok(AnyVecStep {
                infos_json: step.infos.iter().map(to_json).collect::<Result<_>>()?,
                observations: step.observations,
                rewards: step.rewards,
                terminated: step.terminated,
                truncated: step.truncated,
                final_observations: step.final_observations,
            })
        })
    }
}
