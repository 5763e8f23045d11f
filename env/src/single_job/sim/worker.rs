//! A worker: one container on one node, running iterations of pull, compute, push.

use std::sync::Arc;

use rand::rngs::StdRng;

use crate::cluster::Amounts;
use crate::data::Dataset;
use crate::model::Model;
use crate::single_job::schema::{JobSpec, OptimizerKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Idle,
    Pulling,
    Computing,
    Pushing,
    /// Pushed its gradient; waits for the synchronous step to close.
    AtBarrier,
    /// The step's last arrival: holds the ring all-reduce's end.
    Reducing,
}

/// The real result of an iteration's minibatch.
#[derive(Debug, Clone)]
pub(crate) struct GradResult {
    pub grad: Vec<f32>,
    pub loss: f64,
    /// Per-sample gradient variance (trace of the covariance), from the samples' gradient norms.
    pub variance: f64,
    /// The loss and every gradient entry are finite.
    pub finite: bool,
}

#[derive(Debug, Clone)]
pub(crate) struct Iteration {
    /// The parameters the gradient is taken at; let go once no step needs them any more, so
    /// the server's next update need not copy its parameters.
    pub snapshot: Option<Arc<Vec<f32>>>,
    pub version: u64,
    pub rows: Vec<usize>,
    pub batch: usize,
    pub pulled_at: f64,
    /// GFLOP still to compute.
    pub work_left: f64,
    pub compute_started: f64,
    pub compute_time: f64,
    pub result: Option<GradResult>,
    /// Local SGD: the local steps taken on `snapshot` (the worker's own model copy by now),
    /// and the sum of their gradients.
    pub local_steps_done: usize,
    pub local_sum: Option<Vec<f32>>,
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
    /// Iterations cancelled when a synchronous step closed without them (backup workers).
    pub cancelled: u64,
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
    /// Gradients pushed since the episode began (the clock of stale synchronous parallel).
    pub pushes: u64,
    pub round: WorkerRound,
}

impl Iteration {
    /// Whether this is the last step taken from the snapshot: every step but local SGD's
    /// inner ones.
    pub fn is_last_step(&self, job: &JobSpec) -> bool {
        job.optimizer != OptimizerKind::LocalSgd || self.local_steps_done + 1 >= job.local_steps
    }

    /// Computes the gradient at the snapshot on the iteration's rows; lets go of the snapshot
    /// after the last step taken from it.
    pub fn compute(&mut self, model: &dyn Model, data: &Dataset, job: &JobSpec) {
        let snapshot = if self.is_last_step(job) {
            self.snapshot.take()
        } else {
            self.snapshot.clone()
        }
        .expect("an iteration keeps its snapshot until its gradient is computed");
        self.result = Some(compute_gradient(
            model,
            data,
            &snapshot,
            &self.rows,
            job.l2 as f32,
        ));
    }
}

/// One minibatch gradient in one pass, with the per-sample gradient variance (the trace of
/// the samples' gradient covariance) from the samples' squared gradient norms:
/// `(sum_i |g_i|^2 - m |g_mean|^2) / (m - 1)`.
pub(crate) fn compute_gradient(
    model: &dyn Model,
    data: &Dataset,
    params: &[f32],
    rows: &[usize],
    l2: f32,
) -> GradResult {
    let m = rows.len();
    let mut grad = vec![0.0f32; params.len()];
    let (loss, squared_norms) = model.accumulate(params, data, rows, &mut grad, true);
    let inv = 1.0 / m as f32;
    grad.iter_mut().for_each(|g| *g *= inv);
    let mean_sq = squared_sum(&grad);
    let variance = if m < 2 {
        0.0
    } else {
        ((squared_norms - m as f64 * mean_sq) / (m - 1) as f64).max(0.0)
    };
    model.add_l2(params, l2, &mut grad);
    GradResult {
        grad,
        loss: loss / rows.len() as f64,
        variance,
        // squares of finite f32 sum to a finite f64; non-finite parameters show in the loss
        finite: loss.is_finite() && mean_sq.is_finite(),
    }
}

/// `sum v_i^2` in f64, over eight independent lanes so that the loop vectorises.
fn squared_sum(v: &[f32]) -> f64 {
    let mut lanes = [0.0f64; 8];
    let chunks = v.chunks_exact(8);
    let tail: f64 = chunks
        .remainder()
        .iter()
        .map(|&x| f64::from(x) * f64::from(x))
        .sum();
    for chunk in chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane += f64::from(x) * f64::from(x);
        }
    }
    lanes.iter().sum::<f64>() + tail
}
