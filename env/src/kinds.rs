//! Every kind of env behind one type: the one dispatch over kinds, for the command line and
//! the Python binding alike. A workload file names its kind (`kind = "jobs"`, `"dag"`,
//! `"network"`; single-job files name none); [`AnyWorkload::load`] reads it into that kind's
//! loaded workload, [`AnyEnv`] steps an env of any kind, and [`each_kind!`] is the match
//! that code generic over the kind starts from. Adding a kind is a variant in each enum and an
//! arm in each of their matches here and in [`each_kind!`] (the compiler names any left out;
//! ARCHITECTURE.md, "Add a kind of environment").

use std::path::Path;
use std::sync::Arc;

use crate::dag::{DagEnv, DagWorkload};
use crate::error::{EnvError, Result};
use crate::gym::{Environment, Observation, VecEnv};
use crate::jobs::{JobsEnv, JobsSetup};
use crate::network::{NetworkEnv, NetworkWorkload};
use crate::single_job::{Scenario, SingleJobEnv};
use crate::workload_file::EnvKind;

/// A workload file of any kind, loaded and ready to make envs from.
pub enum AnyWorkload {
    SingleJob(Arc<Scenario>),
    Jobs(JobsSetup),
    Dag(Arc<DagWorkload>),
    Network(Arc<NetworkWorkload>),
}

/// Runs `$body` with `$x` bound to what `$any` (a value of `$Enum`, whose variants are named
/// for the kinds) holds: the one match over kinds.
#[macro_export]
macro_rules! each_kind {
    ($Enum:path, $any:expr, $x:ident => $body:expr) => {{
        use $Enum as Kinds;
        match $any {
            Kinds::SingleJob($x) => $body,
            Kinds::Jobs($x) => $body,
            Kinds::Dag($x) => $body,
            Kinds::Network($x) => $body,
        }
    }};
}

impl AnyWorkload {
    /// Loads the workload file at `path` with `overrides` (dotted `section.key=value`) set.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<AnyWorkload> {
        Ok(match EnvKind::of_file(path)? {
            EnvKind::SingleJob => {
                AnyWorkload::SingleJob(Scenario::load_with_overrides(path, overrides)?)
            }
            EnvKind::Jobs => AnyWorkload::Jobs(JobsSetup::load(path, overrides)?),
            EnvKind::Dag => AnyWorkload::Dag(Arc::new(DagWorkload::load(path, overrides)?)),
            EnvKind::Network => {
                AnyWorkload::Network(Arc::new(NetworkWorkload::load(path, overrides)?))
            }
        })
    }

    /// A fresh env with no episode started.
    pub fn env(&self) -> AnyEnv {
        match self {
            AnyWorkload::SingleJob(s) => AnyEnv::SingleJob(SingleJobEnv::new(Arc::clone(s))),
            AnyWorkload::Jobs(setup) => AnyEnv::Jobs(setup.env()),
            AnyWorkload::Dag(w) => AnyEnv::Dag(DagEnv::new(Arc::clone(w))),
            AnyWorkload::Network(w) => AnyEnv::Network(NetworkEnv::new(Arc::clone(w))),
        }
    }
}

/// An env of any kind.
pub enum AnyEnv {
    SingleJob(SingleJobEnv),
    Jobs(JobsEnv),
    Dag(DagEnv),
    Network(NetworkEnv),
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
    pub fn kind(&self) -> EnvKind {
        match self {
            AnyEnv::SingleJob(_) => EnvKind::SingleJob,
            AnyEnv::Jobs(_) => EnvKind::Jobs,
            AnyEnv::Dag(_) => EnvKind::Dag,
            AnyEnv::Network(_) => EnvKind::Network,
        }
    }

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

    /// `copies` fresh copies stepped together; copy `i`'s `k`-th episode is seeded by
    /// `episode_seed(base_seed, i, k)` (env/src/gym/vec_env.rs).
    pub fn vectorised(&self, copies: usize, base_seed: u64) -> AnyVecEnv {
        match self {
            AnyEnv::SingleJob(e) => AnyVecEnv::SingleJob(VecEnv::new(e, copies, base_seed)),
            AnyEnv::Jobs(e) => AnyVecEnv::Jobs(VecEnv::new(e, copies, base_seed)),
            AnyEnv::Dag(e) => AnyVecEnv::Dag(VecEnv::new(e, copies, base_seed)),
            AnyEnv::Network(e) => AnyVecEnv::Network(VecEnv::new(e, copies, base_seed)),
        }
    }
}

/// Copies of an env of any kind, stepped together.
pub enum AnyVecEnv {
    SingleJob(VecEnv<SingleJobEnv>),
    Jobs(VecEnv<JobsEnv>),
    Dag(VecEnv<DagEnv>),
    Network(VecEnv<NetworkEnv>),
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
