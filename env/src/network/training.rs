//! Distributed training by consensus with gradient tracking (DIGing: Nedić, Olshevsky and
//! Shi 2017) over the allocation's graph and channel: centre `i` holds a shard of a real data
//! set, a model copy `y_i` and a tracker `s_i` of the network's mean gradient,
//!
//! `y_i <- y_i - sum_j w_ij (q(y_i) - q(y_j)) - alpha s_i`,
//! `s_i <- s_i - sum_j w_ij (q(s_i) - q(s_j)) + grad_i(y_i new) - grad_i(y_i old)`,
//!
//! each exchange applied along an edge to both ends (so `sum_i s_i` stays `sum_i grad_i(y_i)`
//! exactly), with `grad_i` the gradient of `g_i(y) = (1 / N) sum_{r in shard i} loss_r(y) +
//! l2 / (2 n) |w|^2`: the `g_i` sum to the centralised regularised mean loss.

use std::sync::Arc;

use super::graph::Graph;
use super::quantize::Quantizer;
use crate::data::Dataset;
use crate::model::Model;

pub struct ConsensusTraining {
    model: Arc<dyn Model>,
    data: Arc<Dataset>,
    shards: Vec<Vec<usize>>,
    l2: f32,
    /// `alpha`.
    pub step: f32,
    quantizer: Quantizer,
    y: Vec<Vec<f32>>,
    s: Vec<Vec<f32>>,
    grad: Vec<Vec<f32>>,
    /// Scratch: the quantised copies sent, and the mixing of each.
    sent_y: Vec<Vec<f32>>,
    sent_s: Vec<Vec<f32>>,
}

impl ConsensusTraining {
    /// Every centre starts from `initial` with its own gradient as its tracker.
    pub fn new(
        model: Arc<dyn Model>,
        data: Arc<Dataset>,
        shards: Vec<Vec<usize>>,
        l2: f32,
        step: f32,
        quantizer: Quantizer,
        initial: &[f32],
    ) -> Self {
        let n = shards.len();
        let mut training = ConsensusTraining {
            model,
            data,
            l2,
            step,
            quantizer,
            y: vec![initial.to_vec(); n],
            s: Vec::new(),
            grad: Vec::new(),
            sent_y: vec![vec![0.0; initial.len()]; n],
            sent_s: vec![vec![0.0; initial.len()]; n],
            shards,
        };
        training.grad = (0..n)
            .map(|i| training.local_grad(i, &training.y[i]))
            .collect();
        training.s = training.grad.clone();
        training
    }

    /// `grad g_i` at `params`.
    pub fn local_grad(&self, centre: usize, params: &[f32]) -> Vec<f32> {
        let mut grad = vec![0.0; params.len()];
        self.model
            .accumulate_grad(params, &self.data, &self.shards[centre], &mut grad);
        let scale = 1.0 / self.data.len() as f32;
        grad.iter_mut().for_each(|g| *g *= scale);
        self.model
            .add_l2(params, self.l2 / self.shards.len() as f32, &mut grad);
        grad
    }

    /// One iteration on `graph`; returns the bits sent (both vectors, every coordinate, to
    /// each neighbour).
    pub fn step(&mut self, graph: &Graph) -> u64 {
        let q = self.quantizer;
        for i in 0..self.y.len() {
            for (sent, &v) in self.sent_y[i].iter_mut().zip(&self.y[i]) {
                *sent = q.quantize(f64::from(v)) as f32;
            }
            for (sent, &v) in self.sent_s[i].iter_mut().zip(&self.s[i]) {
                *sent = q.quantize(f64::from(v)) as f32;
            }
        }
        // the descent uses the trackers before they mix
        for (y, s) in self.y.iter_mut().zip(&self.s) {
            for (yk, sk) in y.iter_mut().zip(s) {
                *yk -= self.step * sk;
            }
        }
        for &(i, j, w) in graph.edges() {
            let w = w as f32;
            for k in 0..self.y[i].len() {
                let flow = w * (self.sent_y[i][k] - self.sent_y[j][k]);
                self.y[i][k] -= flow;
                self.y[j][k] += flow;
                let flow = w * (self.sent_s[i][k] - self.sent_s[j][k]);
                self.s[i][k] -= flow;
                self.s[j][k] += flow;
            }
        }
        for i in 0..self.y.len() {
            let fresh = self.local_grad(i, &self.y[i]);
            for ((s, new), old) in self.s[i].iter_mut().zip(&fresh).zip(&self.grad[i]) {
                *s += new - old;
            }
            self.grad[i] = fresh;
        }
        let coordinates = 2 * self.y[0].len() as u64;
        2 * graph.edges().len() as u64 * coordinates * u64::from(q.bits())
    }

    /// The centres' mean model.
    pub fn mean_params(&self) -> Vec<f32> {
        let n = self.y.len() as f32;
        let mut mean = vec![0.0; self.y[0].len()];
        for y in &self.y {
            for (m, v) in mean.iter_mut().zip(y) {
                *m += v / n;
            }
        }
        mean
    }

    /// The largest distance of a centre's model from the mean, over the mean's norm.
    pub fn disagreement(&self) -> f64 {
        let mean = self.mean_params();
        let norm = mean
            .iter()
            .map(|v| f64::from(*v).powi(2))
            .sum::<f64>()
            .sqrt();
        let far = self
            .y
            .iter()
            .map(|y| {
                y.iter()
                    .zip(&mean)
                    .map(|(a, b)| f64::from(a - b).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .fold(0.0, f64::max);
        far / norm.max(f64::MIN_POSITIVE)
    }

    /// The trackers' sum and the local gradients' sum, per coordinate (equal by design).
    pub fn tracking_sums(&self) -> (Vec<f64>, Vec<f64>) {
        let sum = |vs: &[Vec<f32>]| {
            let mut total = vec![0.0f64; vs[0].len()];
            for v in vs {
                for (t, x) in total.iter_mut().zip(v) {
                    *t += f64::from(*x);
                }
            }
            total
        };
        (sum(&self.s), sum(&self.grad))
    }
}

/// The regularised mean loss over every row at `params`, and its gradient: the centralised
/// objective the centres' `g_i` sum to.
pub fn centralised_objective(
    model: &dyn Model,
    data: &Dataset,
    params: &[f32],
    l2: f32,
) -> (f64, Vec<f32>) {
    let rows: Vec<usize> = (0..data.len()).collect();
    crate::model::batch_objective(model, params, data, &rows, l2)
}

/// `iterations` steps of full-batch gradient descent with `step` on the centralised objective,
/// from `params`: the reference the consensus runs are set against.
pub fn centralised_descent(
    model: &dyn Model,
    data: &Dataset,
    l2: f32,
    step: f32,
    iterations: usize,
    params: &mut [f32],
) {
    for _ in 0..iterations {
        let (_, grad) = centralised_objective(model, data, params, l2);
        params
            .iter_mut()
            .zip(&grad)
            .for_each(|(w, g)| *w -= step * g);
    }
}

/// Rows dealt to one shard per weight, in proportion to the weights (every shard at least
/// one row), as contiguous blocks of a seeded permutation.
pub fn shards(rows: usize, weights: &[f64], seed: u64) -> Vec<Vec<usize>> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let n = weights.len();
    assert!(rows >= n, "{rows} rows for {n} shards");
    let mut order: Vec<usize> = (0..rows).collect();
    order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(seed ^ 0x5aa2d));
    let total: f64 = weights.iter().sum();
    let mut start = 0;
    let mut cumulative = 0.0;
    (0..n)
        .map(|c| {
            cumulative += weights[c];
            let proportional = (rows as f64 * cumulative / total).floor() as usize;
            let end = proportional.clamp(start + 1, rows - (n - 1 - c));
            let shard = order[start..end].to_vec();
            start = end;
            shard
        })
        .collect()
}
