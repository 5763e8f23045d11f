//! The network workload file's schema (`kind = "network"`): centres and their costs, the
//! graph and how it switches, the channel's quantiser, the data set and model trained by
//! consensus, the episode's length and the flow ladder of the actions. Checking it is
//! `checks.rs`'s, reading it `load.rs`'s.

use serde::{Deserialize, Serialize};

use super::graph::Weights;
use super::ladder::FlowLadder;
use super::quantize::Quantizer;
use super::switching::{GraphKind, Switching};
use crate::schema::{DatasetSpec, ModelKind};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkWorkloadSpec {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub centres: CentresSpec,
    pub graph: GraphSpec,
    /// What every message passes through.
    pub channel: Quantizer,
    pub training: TrainingSpec,
    pub episode: EpisodeSpec,
    pub flows: FlowLadder,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CentresSpec {
    pub count: usize,
    /// Each centre's upper bound is drawn from this range (its lower bound is 4 CPUs).
    pub max_cpus: (f64, f64),
    /// The demand `b` over the centres' count; the episode starts from the even split.
    pub demand_per_centre: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    pub shape: GraphKind,
    #[serde(default = "metropolis")]
    pub weights: Weights,
    #[serde(default)]
    pub switching: Switching,
    /// Draws the base graph, the network's fixed topology (episodes differ in costs and in
    /// which edges drop out).
    #[serde(default)]
    pub seed: u64,
}

fn metropolis() -> Weights {
    Weights::Metropolis
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainingSpec {
    /// A linear model: `svm`, `logistic` or `ridge`.
    pub model: ModelKind,
    pub l2: f32,
    /// Gradient tracking's step `alpha`.
    pub step: f32,
    pub dataset: DatasetSpec,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeSpec {
    /// Iterations (steps) per episode.
    pub iterations: usize,
}
