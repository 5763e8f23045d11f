//! The DAG workload file's schema (`kind = "dag"`): a platform and where each episode's DAGs
//! come from (generated, or drawn from an Alibaba v2018 trace), and how a decision is asked.
//! Checking it is `checks.rs`'s, reading it `load.rs`'s.

use serde::{Deserialize, Serialize};

use super::generate::TaskDraw;
use super::platform::PlatformSpec;

/// A DAG workload file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DagWorkloadSpec {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub platform: PlatformSpec,
    pub dags: DagSource,
    /// A second source an episode draws from with probability `share` (a training mix of
    /// generated and real DAGs on one platform); none: every episode from `dags`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<DagMix>,
    /// How a decision is asked: 0 (the default) places the env's next task (HEFT's order) on
    /// a GPU; K > 0 chooses among the K ready tasks of highest upward rank and the GPU.
    #[serde(default)]
    pub ready_tasks: usize,
}

/// The second source of a mixed workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DagMix {
    /// The probability that an episode's DAGs come from here.
    pub share: f64,
    pub dags: DagSource,
}

/// Where an episode's DAGs come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum DagSource {
    /// [`layered`] DAGs of `tasks` tasks.
    Layered {
        tasks: usize,
        #[serde(default = "default_ccr")]
        ccr: f64,
        /// Width over height of the layers.
        #[serde(default = "one")]
        shape: f64,
        #[serde(default = "three")]
        max_parents: usize,
        #[serde(default)]
        task: TaskDraw,
    },
    /// [`fork_join`] DAGs of `tasks` tasks forking `width` ways.
    ForkJoin {
        tasks: usize,
        width: usize,
        #[serde(default = "default_ccr")]
        ccr: f64,
        #[serde(default)]
        task: TaskDraw,
    },
    /// Alibaba v2018 batch DAG jobs (`batch_task` rows): consecutive jobs by arrival, from
    /// a seeded start, until at least `tasks` tasks. A task runs its trace duration on a
    /// speed-1 GPU, of its type letter as kind, needing `plan_mem` percent of
    /// `machine_memory_gb`.
    Alibaba {
        trace: String,
        tasks: usize,
        #[serde(default = "default_ccr")]
        ccr: f64,
        /// `batch`: every job released at 0 (the makespan of a batch); `trace`: released at
        /// its arrival in the trace, relative to the first drawn job's.
        #[serde(default)]
        arrivals: Arrivals,
        #[serde(default = "default_machine_memory")]
        machine_memory_gb: f64,
        /// Only jobs arriving in `[arrival_from_s, arrival_until_s)` seconds of the trace: a
        /// period of it (a training period and a later, held-out one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arrival_from_s: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arrival_until_s: Option<f64>,
    },
}

impl DagSource {
    /// Its section under `dags` in a workload file (`dags.layered.tasks`, ...).
    pub fn section(&self) -> &'static str {
        match self {
            DagSource::Layered { .. } => "layered",
            DagSource::ForkJoin { .. } => "fork-join",
            DagSource::Alibaba { .. } => "alibaba",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    #[default]
    Batch,
    Trace,
}

fn default_ccr() -> f64 {
    1.0
}
fn one() -> f64 {
    1.0
}
fn three() -> usize {
    3
}
fn default_machine_memory() -> f64 {
    96.0
}
