//! Graphs that change over time: a connected base graph drawn from a seed, then either kept,
//! redrawn every `every` iterations, or thinned by edges dropping out independently with
//! probability `p` while no edge stays out `period` iterations in a row (so the union of any
//! `period` consecutive graphs is the connected base graph).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::graph::{Graph, Weights, erdos_renyi, geometric, ring};

/// How the base graph is drawn.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum GraphKind {
    /// A cycle through the centres in a seeded order.
    Ring,
    Geometric {
        radius: f64,
    },
    ErdosRenyi {
        p: f64,
    },
}

/// How the graph changes.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Switching {
    #[default]
    Static,
    /// A new connected graph of the same kind every `every` iterations.
    Redraw { every: usize },
    /// Each base edge out with probability `p` per iteration, never `period` in a row.
    Dropout { p: f64, period: usize },
}

/// Redraws a random graph kind until it is connected, at most this many times.
const TRIES: usize = 1000;

/// Draws of a random graph kind that kept coming out disconnected.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{kind:?} on {nodes} centres came out disconnected in {TRIES} draws; raise its density")]
pub struct Disconnected {
    pub kind: GraphKind,
    pub nodes: usize,
}

/// A connected graph of `kind` on `n` nodes; an error names the kind when draws keep
/// coming out disconnected.
pub fn connected(
    kind: GraphKind,
    n: usize,
    weights: Weights,
    rng: &mut StdRng,
) -> Result<Graph, Disconnected> {
    for _ in 0..TRIES {
        let graph = match kind {
            GraphKind::Ring => {
                let mut order: Vec<usize> = (0..n).collect();
                for i in (1..n).rev() {
                    order.swap(i, rng.random_range(0..=i));
                }
                let cycle = ring(n, weights);
                let pairs: Vec<(usize, usize)> = cycle
                    .edges()
                    .iter()
                    .map(|&(i, j, _)| (order[i], order[j]))
                    .collect();
                Graph::new(n, &pairs, weights)
            }
            GraphKind::Geometric { radius } => geometric(n, radius, weights, rng),
            GraphKind::ErdosRenyi { p } => erdos_renyi(n, p, weights, rng),
        };
        if graph.is_connected() {
            return Ok(graph);
        }
    }
    Err(Disconnected { kind, nodes: n })
}

/// The graph of every iteration, drawn from one seed.
pub struct GraphSequence {
    kind: GraphKind,
    weights: Weights,
    switching: Switching,
    base: Graph,
    current: Graph,
    /// Per base edge, the iterations in a row it has been out.
    out_for: Vec<usize>,
    rng: StdRng,
    iteration: usize,
}

impl GraphSequence {
    pub fn new(
        kind: GraphKind,
        n: usize,
        weights: Weights,
        switching: Switching,
        seed: u64,
    ) -> Result<Self, Disconnected> {
        let mut rng = StdRng::seed_from_u64(seed ^ 0x6e7);
        let base = connected(kind, n, weights, &mut rng)?;
        Ok(Self::on(base, kind, weights, switching, rng))
    }

    /// The sequence on a given base graph (drawn as `kind`, for redraws), switching by `seed`.
    pub fn with_base(
        base: Graph,
        kind: GraphKind,
        weights: Weights,
        switching: Switching,
        seed: u64,
    ) -> Self {
        Self::on(
            base,
            kind,
            weights,
            switching,
            StdRng::seed_from_u64(seed ^ 0x5e9),
        )
    }

    fn on(
        base: Graph,
        kind: GraphKind,
        weights: Weights,
        switching: Switching,
        rng: StdRng,
    ) -> Self {
        GraphSequence {
            kind,
            weights,
            switching,
            out_for: vec![0; base.edges().len()],
            current: base.clone(),
            base,
            rng,
            iteration: 0,
        }
    }

    /// The base graph (the union over any dropout period).
    pub fn base(&self) -> &Graph {
        &self.base
    }

    /// The graph of the current iteration.
    pub fn current(&self) -> &Graph {
        &self.current
    }

    /// Moves to the next iteration's graph.
    pub fn advance(&mut self) -> Result<(), Disconnected> {
        self.iteration += 1;
        match self.switching {
            Switching::Static => {}
            Switching::Redraw { every } => {
                if every > 0 && self.iteration.is_multiple_of(every) {
                    self.current =
                        connected(self.kind, self.base.nodes(), self.weights, &mut self.rng)?;
                }
            }
            Switching::Dropout { p, period } => {
                let mut pairs = Vec::with_capacity(self.out_for.len());
                for (k, &(i, j, _)) in self.base.edges().iter().enumerate() {
                    let forced = self.out_for[k] + 1 >= period.max(1);
                    if !forced && self.rng.random_bool(p) {
                        self.out_for[k] += 1;
                    } else {
                        self.out_for[k] = 0;
                        pairs.push((i, j));
                    }
                }
                self.current = Graph::new(self.base.nodes(), &pairs, self.weights);
            }
        }
        Ok(())
    }
}
