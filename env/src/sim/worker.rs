//! A worker: one container on one node, running iterations of pull, compute, push.

use std::sync::Arc;

use rand::rngs::StdRng;

use crate::cluster::Amounts;
use crate::data::Dataset;
use crate::model::Model;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Idle,
    Pulling,
    Computing,
    Pushing,
    /// Pushed its gradient; waits for the synchronous step to close.
    AtBarrier,
}

/// The real result of an iteration's minibatch.
#[derive(Debug, Clone)]
pub(crate) struct GradResult {
    pub grad: Vec<f32>,
    pub loss: f64,
    /// Per-sample gradient variance (trace of the covariance), estimated from two half-batches.
    pub variance: f64,
}

#[derive(Debug, Clone)]
pub(crate) struct Iteration {
    pub snapshot: Arc<Vec<f32>>,
    pub version: u64,
    pub rows: Vec<usize>,
    pub batch: usize,
    pub pulled_at: f64,
    /// GFLOP still to compute.
    pub work_left: f64,
    pub compute_started: f64,
    pub compute_time: f64,
    pub result: Option<GradResult>,
}

/// What a worker did during one scheduling round.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct WorkerRound {
    /// Seconds spent computing.
    pub compute_s: f64,
    /// Core-seconds of CPU actually used (effective cores while computing).
    pub cpu_used_s: f64,
    /// GPU-seconds actually used (share x saturation while computing).
    pub gpu_used_s: f64,
    /// GB-seconds of memory occupied by the model and batch.
    pub mem_used_gb_s: f64,
    pub samples: u64,
    /// Gradients pushed (applied, buffered or discarded).
    pub gradients: u64,
    /// Gradients discarded as too stale.
    pub discarded: u64,
    /// Sum over pushes of (push arrival - pull start): the update delay `delta_i`.
    pub delay_sum_s: f64,
    pub staleness_sum: u64,
    pub variance_sum: f64,
    pub loss_sum: f64,
    /// Bits sent: the model pulled (32 a parameter) and the gradients pushed (compressed).
    pub bits_sent: u64,
    /// The batch of the worker's latest iteration.
    pub batch: usize,
    /// The allocation's memory could not hold the model (the worker did not run).
    pub out_of_memory: bool,
}

impl WorkerRound {
    fn per_push(&self, sum: f64) -> f64 {
        if self.gradients == 0 {
            0.0
        } else {
            sum / self.gradients as f64
        }
    }
    pub fn mean_delay_s(&self) -> f64 {
        self.per_push(self.delay_sum_s)
    }
    pub fn mean_variance(&self) -> f64 {
        self.per_push(self.variance_sum)
    }
    pub fn mean_staleness(&self) -> f64 {
        self.per_push(self.staleness_sum as f64)
    }
    pub fn mean_loss(&self) -> f64 {
        self.per_push(self.loss_sum)
    }
}

#[derive(Debug)]
pub(crate) struct Worker {
    pub node: usize,
    pub rng: StdRng,
    pub alloc: Amounts,
    pub running: bool,
    pub max_batch: usize,
    pub interference: f64,
    pub rate: f64,
    pub phase: Phase,
    /// Bumped whenever scheduled events of this worker become void.
    pub epoch: u64,
    pub iteration: Option<Iteration>,
    /// `T_i(t-1)`: the last iteration's compute time scaled to the base batch.
    pub last_base_time: Option<f64>,
    pub round: WorkerRound,
}

/// One minibatch gradient on two half-batches: their mean is the gradient, their difference
/// estimates the per-sample variance as `|g_a - g_b|^2 / (1/n_a + 1/n_b)`.
pub(crate) fn compute_gradient(
    model: &dyn Model,
    data: &Dataset,
    params: &[f32],
    rows: &[usize],
    l2: f32,
) -> GradResult {
    let n = params.len();
    let half = rows.len() / 2;
    let (mut a, mut b) = (vec![0.0f32; n], vec![0.0f32; n]);
    let loss = model.accumulate_grad(params, data, &rows[..half], &mut a)
        + model.accumulate_grad(params, data, &rows[half..], &mut b);
    let (na, nb) = (half as f64, (rows.len() - half) as f64);
    let variance = if half == 0 {
        0.0
    } else {
        let sq: f64 = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (*x as f64 / na - *y as f64 / nb).powi(2))
            .sum();
        sq / (1.0 / na + 1.0 / nb)
    };
    let inv = 1.0 / rows.len() as f32;
    a.iter_mut().zip(&b).for_each(|(x, y)| *x = (*x + y) * inv);
    model.add_l2(params, l2, &mut a);
    GradResult {
        grad: a,
        loss: loss / rows.len() as f64,
        variance,
    }
}
