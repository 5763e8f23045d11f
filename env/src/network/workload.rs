//! The network workload file (`kind = "network"`): centres and their costs, the graph and how
//! it switches, the channel's quantiser, the data set and model trained by consensus, the
//! episode's length and the flow ladder of the actions. Every `reset(seed)` draws an
//! instance: the centres' costs (the seeded generator [`sampled_costs`]), shards of the data
//! in proportion to their work, and the graph sequence.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::{Deserialize, Serialize};

use super::cost::{CentreCost, optimum, sampled_costs, total_cost};
use super::graph::{Graph, Weights};
use super::ladder::FlowLadder;
use super::quantize::Quantizer;
use super::switching::{GraphKind, GraphSequence, Switching, connected};
use super::training::{centralised_descent, centralised_objective, shards};
use crate::data::{Dataset, Prepared};
use crate::error::{EnvError, Result};
use crate::model::{LinearLoss, LinearModel, Model};
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

/// A loaded, validated network workload.
pub struct NetworkWorkload {
    pub spec: NetworkWorkloadSpec,
    pub path: PathBuf,
    pub data: Arc<Dataset>,
    pub model: Arc<LinearModel>,
    /// The base graph: the actions are flows on its edges.
    pub base: Graph,
    /// Rows dropped for missing values.
    pub dropped_rows: usize,
    /// The centralised twin's loss: full-batch gradient descent on all the data with the
    /// mean model's step, for as many iterations as an episode (computed once, when first
    /// asked).
    central: OnceLock<(f64, f64)>,
}

impl std::fmt::Debug for NetworkWorkload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkWorkload")
            .field("name", &self.spec.name)
            .field("path", &self.path)
            .finish()
    }
}

/// What a seed fixes of an episode.
pub struct Instance {
    pub seed: u64,
    pub costs: Vec<CentreCost>,
    pub shards: Vec<Vec<usize>>,
    pub graphs: GraphSequence,
    /// The centralised optimum's allocation and penalised cost.
    pub optimum: Vec<f64>,
    pub optimal_cost: f64,
}

impl NetworkWorkload {
    /// Reads a network workload with `key.path=value` overrides and checks it whole.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<NetworkWorkload> {
        let spec: NetworkWorkloadSpec = crate::workload_file::load_as(path, overrides)?;
        check(path, &spec)?;
        let (prepared, dropped_rows): (Prepared, usize) =
            crate::single_job::scenario::load_dataset(path, &spec.training.dataset)?;
        let data = prepared.train;
        let loss = match spec.training.model {
            ModelKind::Svm => LinearLoss::Hinge,
            ModelKind::Logistic => LinearLoss::Logistic,
            ModelKind::Ridge => LinearLoss::Squared,
            other => {
                return Err(EnvError::config(
                    path,
                    "training.model",
                    format!(
                        "{other:?}: consensus training takes a linear model (svm, logistic, ridge)"
                    ),
                ));
            }
        };
        let model = LinearModel::new(loss, data.features.cols(), data.task).ok_or_else(|| {
            EnvError::config(
                path,
                "training.model",
                format!(
                    "{:?} does not fit a {:?} data set",
                    spec.training.model, data.task
                ),
            )
        })?;
        if data.len() < spec.centres.count {
            return Err(EnvError::config(
                path,
                "centres.count",
                format!(
                    "{} centres for {} training rows: every centre needs a row",
                    spec.centres.count,
                    data.len()
                ),
            ));
        }
        let g = &spec.graph;
        let base = connected(
            g.shape,
            spec.centres.count,
            g.weights,
            &mut StdRng::seed_from_u64(g.seed),
        )
        .map_err(|e| EnvError::config(path, "graph.shape", e.to_string()))?;
        Ok(NetworkWorkload {
            base,
            spec,
            path: path.to_owned(),
            data: Arc::new(data),
            model: Arc::new(model),
            dropped_rows,
            central: OnceLock::new(),
        })
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn centres(&self) -> usize {
        self.spec.centres.count
    }

    /// The demand `b`.
    pub fn demand(&self) -> f64 {
        self.spec.centres.demand_per_centre * self.centres() as f64
    }

    /// The centres' costs `seed` draws (each centre knows its own).
    pub fn costs(&self, seed: u64) -> Vec<CentreCost> {
        sampled_costs(
            self.centres(),
            self.spec.centres.max_cpus,
            &mut StdRng::seed_from_u64(seed),
        )
    }

    /// The instance of `seed`.
    pub fn instance(&self, seed: u64) -> Instance {
        let costs = self.costs(seed);
        let work: Vec<f64> = costs.iter().map(|c| c.work_s).collect();
        let g = &self.spec.graph;
        let graphs =
            GraphSequence::with_base(self.base.clone(), g.shape, g.weights, g.switching, seed);
        let (optimum, _) = optimum(&costs, self.demand());
        Instance {
            seed,
            optimal_cost: total_cost(&costs, &optimum),
            optimum,
            shards: shards(self.data.len(), &work, seed),
            costs,
            graphs,
        }
    }

    /// The centralised twin's final regularised loss and score ([`Self::score`]).
    pub fn central(&self) -> (f64, f64) {
        *self.central.get_or_init(|| {
            let t = &self.spec.training;
            let step = t.step / self.centres() as f32;
            let mut params = vec![0.0f32; self.model.num_params()];
            centralised_descent(
                &*self.model,
                &self.data,
                t.l2,
                step,
                self.spec.episode.iterations,
                &mut params,
            );
            let (loss, _) = centralised_objective(&*self.model, &self.data, &params, t.l2);
            (loss, self.model.score(&params, &self.data))
        })
    }
}

/// The graph's shape has a density, and its switching is static or dropout.
fn check_graph(path: &Path, spec: &NetworkWorkloadSpec) -> Result<()> {
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    match spec.graph.shape {
        GraphKind::Ring => {}
        GraphKind::Geometric { radius } if radius.is_finite() && radius > 0.0 => {}
        GraphKind::ErdosRenyi { p } if p > 0.0 && p <= 1.0 => {}
        other => return bad("graph.shape", format!("{other:?}: a density in (0, 1]")),
    }
    match spec.graph.switching {
        Switching::Static => Ok(()),
        Switching::Dropout { p, period } if (0.0..1.0).contains(&p) && period > 0 => Ok(()),
        Switching::Redraw { .. } => bad(
            "graph.switching",
            "redraw: the env's actions are flows on the base graph's edges, which a redrawn graph leaves; use dropout (`schedlab reproduce network` studies redrawn graphs)".into(),
        ),
        other => bad(
            "graph.switching",
            format!("{other:?}: dropout p in [0, 1) and period >= 1"),
        ),
    }
}

fn check(path: &Path, spec: &NetworkWorkloadSpec) -> Result<()> {
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    let positive = |v: f64| v.is_finite() && v > 0.0;
    if spec.kind != "network" {
        return bad(
            "kind",
            format!(
                "`{}`: a network workload says kind = \"network\"",
                spec.kind
            ),
        );
    }
    let c = &spec.centres;
    if c.count < 2 {
        return bad(
            "centres.count",
            format!("{}: a network needs 2 centres", c.count),
        );
    }
    let (lo, hi) = c.max_cpus;
    if !(lo.is_finite() && hi.is_finite() && 4.0 <= lo && lo <= hi) {
        return bad(
            "centres.max_cpus",
            format!("[{lo}, {hi}]: a range of upper bounds at or above the 4-CPU lower bound"),
        );
    }
    if !(4.0..=lo).contains(&c.demand_per_centre) {
        return bad(
            "centres.demand_per_centre",
            format!(
                "{}: the even split must lie within every centre's bounds, [4, {lo}]",
                c.demand_per_centre
            ),
        );
    }
    check_graph(path, spec)?;
    match spec.channel {
        Quantizer::Exact => {}
        Quantizer::Log {
            rho,
            smallest,
            largest,
        } if positive(rho) && positive(smallest) && largest > smallest && largest.is_finite() => {}
        Quantizer::Uniform { bits, largest } if (2..=32).contains(&bits) && positive(largest) => {}
        other => {
            return bad(
                "channel",
                format!(
                    "{other:?}: rho, smallest > 0 and largest above smallest; uniform bits in 2..=32"
                ),
            );
        }
    }
    let t = &spec.training;
    if !(t.step.is_finite() && t.step > 0.0 && t.l2.is_finite() && t.l2 >= 0.0) {
        return bad(
            "training",
            format!(
                "step {} must be positive and l2 {} not negative",
                t.step, t.l2
            ),
        );
    }
    if spec.episode.iterations == 0 {
        return bad("episode.iterations", "an episode needs an iteration".into());
    }
    let f = &spec.flows;
    if !positive(f.smallest) || !(1..=60).contains(&f.levels) {
        return bad(
            "flows",
            format!(
                "smallest {} must be positive and levels {} in 1..=60",
                f.smallest, f.levels
            ),
        );
    }
    Ok(())
}
