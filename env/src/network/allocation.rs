//! The all-time-feasible allocation dynamics: each centre moves by the weighted differences
//! of its neighbours' marginal costs, as they reach it through the channel's quantiser,
//! `x_i <- x_i - eta sum_j w_ij (q(g_i) - q(g_j))` with `g = f'`. Each edge's exchange is
//! applied to both ends as one antisymmetric flow, so `sum_i x_i` stays at the demand at
//! every iteration whatever the graph, weights or quantiser.
//!
//! Step size: `eta = 1 / (L lambda)` with `L` the largest curvature of the penalised costs
//! on `[min_i / 2, inf)` and `lambda` Gershgorin's bound on the Laplacian's largest
//! eigenvalue, twice the largest weighted degree (at most 2 with Metropolis weights);
//! [`Dynamics::step`] reports an iterate below `min_i / 2`, where that `L` no longer holds.

use super::cost::CentreCost;
use super::graph::Graph;
use super::quantize::Quantizer;

/// A centre the consensus step pushed below half its lower bound, where the step size, fitted
/// to the costs' curvature above it, no longer holds.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "centre {centre} fell to {cpus} CPUs, below half its minimum {minimum}: the step size does not hold there"
)]
pub struct BelowBound {
    pub centre: usize,
    pub cpus: f64,
    pub minimum: f64,
}

pub struct Dynamics<'a> {
    pub costs: &'a [CentreCost],
    pub quantizer: Quantizer,
    /// `L`: the marginal costs' Lipschitz constant on the iterates' range.
    pub lipschitz: f64,
    sent: Vec<f64>,
}

impl<'a> Dynamics<'a> {
    pub fn new(costs: &'a [CentreCost], quantizer: Quantizer) -> Self {
        Dynamics {
            costs,
            quantizer,
            lipschitz: lipschitz(costs),
            sent: vec![0.0; costs.len()],
        }
    }

    /// The step size on `graph`.
    pub fn step_size(&self, graph: &Graph) -> f64 {
        step_size(self.lipschitz, graph)
    }

    /// One iteration on `graph`; returns the bits sent (each centre's quantised marginal cost
    /// to each neighbour). An error names a centre pushed below half its lower bound.
    pub fn step(&mut self, graph: &Graph, x: &mut [f64]) -> Result<u64, BelowBound> {
        for (i, (cost, &xi)) in self.costs.iter().zip(x.iter()).enumerate() {
            self.sent[i] = self.quantizer.quantize(cost.marginal(xi));
        }
        let eta = self.step_size(graph);
        for &(i, j, w) in graph.edges() {
            let flow = eta * w * (self.sent[i] - self.sent[j]);
            x[i] -= flow;
            x[j] += flow;
        }
        if let Some(i) = (0..x.len()).find(|&i| x[i] < 0.5 * self.costs[i].min) {
            return Err(BelowBound {
                centre: i,
                cpus: x[i],
                minimum: self.costs[i].min,
            });
        }
        Ok(2 * graph.edges().len() as u64 * u64::from(self.quantizer.bits()))
    }
}

/// `L`: the largest curvature of the penalised costs at or above half their lower bounds.
pub fn lipschitz(costs: &[CentreCost]) -> f64 {
    costs
        .iter()
        .map(|c| c.curvature(0.5 * c.min) + c.penalty)
        .fold(0.0, f64::max)
}

/// `1 / (L lambda)` on `graph`.
pub fn step_size(lipschitz: f64, graph: &Graph) -> f64 {
    1.0 / (lipschitz * graph.laplacian_bound().max(f64::MIN_POSITIVE))
}

/// The allocation splitting `demand` evenly.
pub fn uniform(n: usize, demand: f64) -> Vec<f64> {
    vec![demand / n as f64; n]
}

/// The allocation splitting `demand` in proportion to each centre's work.
pub fn proportional(costs: &[CentreCost], demand: f64) -> Vec<f64> {
    let total: f64 = costs.iter().map(|c| c.work_s).sum();
    costs.iter().map(|c| demand * c.work_s / total).collect()
}

/// The allocation the distributed CPU scheduler of Rikos et al. 2021 (finite-time quantised
/// coordination) reaches: every centre loaded to the same share of its capacity, so `demand`
/// is split in proportion to the upper bounds. Computed at its fixed point; its quantised
/// message exchange is not simulated here.
pub fn capacity_proportional(costs: &[CentreCost], demand: f64) -> Vec<f64> {
    let total: f64 = costs.iter().map(|c| c.max).sum();
    costs.iter().map(|c| demand * c.max / total).collect()
}
