//! A loaded network workload and the instance each episode's seed draws from it: the
//! centres' costs (the seeded generator [`sampled_costs`]), shards of the data in proportion
//! to their work, and the graph sequence; and the centralised twin the env measures against.
//!
//! The loaded form lives here rather than in `load.rs`: the env (`env.rs`) reads it, and
//! `load.rs` names the env in its `gym::Workload`, so this keeps the files in layers
//! (tests/tests/architecture.rs).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::cost::{CentreCost, optimum, sampled_costs, total_cost};
use super::graph::Graph;
use super::schema::NetworkWorkloadSpec;
use super::switching::GraphSequence;
use super::training::{centralised_descent, centralised_objective, shards};
use crate::data::Dataset;
use crate::model::{LinearModel, Model};

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
    pub(super) central: OnceLock<(f64, f64)>,
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
