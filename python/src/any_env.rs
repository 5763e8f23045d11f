//! One env of any kind behind one type: the binding's only match on kinds. A workload file
//! names its kind (`kind = "jobs"`, `"dag"`, `"network"`; single-job files name none), as it
//! does for the command line.

use std::path::Path;
use std::sync::Arc;

use schedlab_env::dag::{DagEnv, DagWorkload};
use schedlab_env::jobs::{JobsEnv, JobsSetup};
use schedlab_env::network::{NetworkEnv, NetworkWorkload};
use schedlab_env::workload::file_kind;
use schedlab_env::{EnvError, Environment, Observation, Scenario, SingleJobEnv, VecEnv};

use crate::jobs_table::read_jobs_parquet;

/// What one step gives Python: the observation, reward, flags and the info as JSON.
pub struct StepOut {
    pub observation: Observation,
    pub reward: f64,
    pub terminated: bool,
    pub truncated: bool,
    pub info_json: String,
}

pub enum AnyEnv {
    SingleJob(SingleJobEnv),
    Jobs(JobsEnv),
    Dag(DagEnv),
    Network(NetworkEnv),
}

/// Runs `$body` with `$e` bound to what `$any` (an `$Enum` with one variant per kind) holds.
macro_rules! each_kind {
    ($Enum:ident, $any:expr, $e:ident => $body:expr) => {
        match $any {
            $Enum::SingleJob($e) => $body,
            $Enum::Jobs($e) => $body,
            $Enum::Dag($e) => $body,
            $Enum::Network($e) => $body,
        }
    };
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String, EnvError> {
    serde_json::to_string(value).map_err(|e| EnvError::Contract(format!("info to JSON: {e}")))
}

impl AnyEnv {
    /// Loads a workload file of any kind, `overrides` (dotted `section.key=value`) applied.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<AnyEnv, EnvError> {
        Ok(match file_kind(path)?.as_deref() {
            Some("jobs") => {
                AnyEnv::Jobs(JobsSetup::load(path, overrides, &read_jobs_parquet)?.env())
            }
            Some("dag") => AnyEnv::Dag(DagEnv::new(Arc::new(DagWorkload::load(path, overrides)?))),
            Some("network") => AnyEnv::Network(NetworkEnv::new(Arc::new(NetworkWorkload::load(
                path, overrides,
            )?))),
            _ => AnyEnv::SingleJob(SingleJobEnv::new(Scenario::load_with_overrides(
                path, overrides,
            )?)),
        })
    }

    /// The Gymnasium id suffix of the kind: `schedlab/<kind>-v0`.
    pub fn kind(&self) -> &'static str {
        match self {
            AnyEnv::SingleJob(_) => "SingleJob",
            AnyEnv::Jobs(_) => "Jobs",
            AnyEnv::Dag(_) => "Dag",
            AnyEnv::Network(_) => "Network",
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

    pub fn reset(&mut self, seed: u64) -> Result<(Observation, String), EnvError> {
        each_kind!(AnyEnv, self, e => {
            let (observation, info) = e.reset(seed)?;
            Ok((observation, to_json(&info)?))
        })
    }

    pub fn step(&mut self, action: &[usize]) -> Result<StepOut, EnvError> {
        each_kind!(AnyEnv, self, e => {
            let step = e.step(action)?;
            Ok(StepOut {
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

/// What a batched step gives Python.
pub struct VecStepOut {
    pub observations: Vec<Observation>,
    pub rewards: Vec<f64>,
    pub terminated: Vec<bool>,
    pub truncated: Vec<bool>,
    pub infos_json: Vec<String>,
    pub final_observations: Vec<Option<Observation>>,
}

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

    pub fn reset(&mut self) -> Result<Vec<Observation>, EnvError> {
        each_kind!(AnyVecEnv, self, e => e.reset())
    }

    /// Steps every copy (in parallel where that pays); a copy whose episode ends is reset at
    /// once.
    pub fn step(&mut self, actions: &[Vec<usize>]) -> Result<VecStepOut, EnvError> {
        each_kind!(AnyVecEnv, self, e => {
            let step = e.step(actions)?;
            Ok(VecStepOut {
                infos_json: step.infos.iter().map(to_json).collect::<Result<_, _>>()?,
                observations: step.observations,
                rewards: step.rewards,
                terminated: step.terminated,
                truncated: step.truncated,
                final_observations: step.final_observations,
            })
        })
    }
}
