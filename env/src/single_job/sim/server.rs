//! The parameter server and its update rules.

use std::sync::Arc;

use crate::single_job::schema::{JobSpec, OptimizerKind};

const ADAM_BETA1: f64 = 0.9;
const ADAM_BETA2: f64 = 0.999;
const ADAM_EPS: f64 = 1e-8;

/// What happened to a pushed gradient.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Applied {
    /// Applied with this weight on top of the learning rate.
    Weighted(f64),
    /// Older than the staleness window: discarded.
    TooStale,
    /// Held until every worker of the synchronous step has pushed.
    Buffered,
}

/// Flat parameters, a version counter (one per update) and the optimiser state.
#[derive(Debug, Clone)]
pub struct Server {
    /// Shared with the workers' snapshots; copied on write.
    pub params: Arc<Vec<f32>>,
    pub version: u64,
    kind: OptimizerKind,
    lr: f64,
    beta: f64,
    tau: u64,
    adam: Option<(Vec<f64>, Vec<f64>)>,
    /// The velocity of `momentum` and `nesterov`, and `mu`.
    velocity: Vec<f64>,
    momentum: f64,
    sync_sum: Vec<f64>,
    sync_weight: f64,
}

impl Server {
    pub fn new(params: Vec<f32>, job: &JobSpec) -> Self {
        let n = params.len();
        Server {
            params: Arc::new(params),
            version: 0,
            kind: job.optimizer,
            lr: job.lr,
            beta: job.beta,
            tau: job.tau,
            adam: (job.optimizer == OptimizerKind::Adam).then(|| (vec![0.0; n], vec![0.0; n])),
            velocity: if matches!(
                job.optimizer,
                OptimizerKind::Momentum | OptimizerKind::Nesterov
            ) {
                vec![0.0; n]
            } else {
                Vec::new()
            },
            momentum: job.momentum,
            sync_sum: if matches!(
                job.optimizer,
                OptimizerKind::SyncSgd | OptimizerKind::LocalSgd
            ) {
                vec![0.0; n]
            } else {
                Vec::new()
            },
            sync_weight: 0.0,
        }
    }

    /// HB-ASGD's delay-tolerant weight for a gradient computed `staleness` updates ago:
    /// `beta^k` inside the window `k <= tau`, nothing beyond it.
    pub fn staleness_weight(&self, staleness: u64) -> Option<f64> {
        match self.kind {
            OptimizerKind::HbAsgd => {
                (staleness <= self.tau).then(|| self.beta.powi(staleness as i32))
            }
            _ => Some(1.0),
        }
    }

    /// Applies (or buffers) one pushed gradient. `lr_factor` is HB-ASGD's resource-adequacy
    /// factor (1 for the other optimisers); `batch` weighs synchronous averaging.
    pub fn push(&mut self, grad: &[f32], staleness: u64, batch: usize, lr_factor: f64) -> Applied {
        match self.kind {
            OptimizerKind::SyncSgd | OptimizerKind::LocalSgd => {
                let w = batch as f64;
                self.sync_sum
                    .iter_mut()
                    .zip(grad)
                    .for_each(|(s, g)| *s += w * *g as f64);
                self.sync_weight += w;
                Applied::Buffered
            }
            OptimizerKind::Adam => {
                self.version += 1;
                let t = self.version as i32;
                let (m, v) = self.adam.as_mut().expect("adam state");
                let (c1, c2) = (1.0 - ADAM_BETA1.powi(t), 1.0 - ADAM_BETA2.powi(t));
                let params = Arc::make_mut(&mut self.params);
                for (((p, g), m), v) in params
                    .iter_mut()
                    .zip(grad)
                    .zip(m.iter_mut())
                    .zip(v.iter_mut())
                {
                    let g = *g as f64;
                    *m = ADAM_BETA1 * *m + (1.0 - ADAM_BETA1) * g;
                    *v = ADAM_BETA2 * *v + (1.0 - ADAM_BETA2) * g * g;
                    *p -= (self.lr * (*m / c1) / ((*v / c2).sqrt() + ADAM_EPS)) as f32;
                }
                Applied::Weighted(1.0)
            }
            OptimizerKind::Momentum | OptimizerKind::Nesterov => {
                let nesterov = self.kind == OptimizerKind::Nesterov;
                let (lr, mu) = (self.lr, self.momentum);
                let params = Arc::make_mut(&mut self.params);
                for ((p, g), v) in params.iter_mut().zip(grad).zip(self.velocity.iter_mut()) {
                    let g = f64::from(*g);
                    *v = mu * *v + g;
                    let step = if nesterov { g + mu * *v } else { *v };
                    *p -= (lr * step) as f32;
                }
                self.version += 1;
                Applied::Weighted(1.0)
            }
            OptimizerKind::HbAsgd | OptimizerKind::AsyncSgd => {
                let Some(weight) = self.staleness_weight(staleness) else {
                    return Applied::TooStale;
                };
                let step = (self.lr * lr_factor * weight) as f32;
                let params = Arc::make_mut(&mut self.params);
                params
                    .iter_mut()
                    .zip(grad)
                    .for_each(|(p, g)| *p -= step * g);
                self.version += 1;
                Applied::Weighted(weight)
            }
        }
    }

    /// Ends a synchronous step: applies the batch-weighted mean of the buffered gradients.
    pub fn finish_sync_step(&mut self) {
        if self.sync_weight == 0.0 {
            return;
        }
        let scale = self.lr / self.sync_weight;
        let params = Arc::make_mut(&mut self.params);
        for (p, s) in params.iter_mut().zip(self.sync_sum.iter_mut()) {
            *p -= (scale * *s) as f32;
            *s = 0.0;
        }
        self.sync_weight = 0.0;
        self.version += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(kind: OptimizerKind) -> JobSpec {
        let text = format!(
            r#"model = "softmax"
optimizer = "{}"
lr = 0.5
base_batch = 8
beta = 0.8
tau = 3
target_loss = 0.1
sample_gflop = 1.0
model_mb = 1.0
sample_mem_mb = 1.0
[dataset]
format = "csv"
path = "x.csv"
task = "classification"
label = "y"
"#,
            kind.name()
        );
        toml::from_str(&text).unwrap()
    }

    #[test]
    fn stale_gradients_are_weighted_by_beta_to_the_staleness() {
        for k in 0..=3u64 {
            let mut server = Server::new(vec![0.0], &job(OptimizerKind::HbAsgd));
            assert_eq!(
                server.push(&[1.0], k, 8, 1.0),
                Applied::Weighted(0.8f64.powi(k as i32))
            );
            // the update moved the parameter by lr * beta^k * g
            let expected = -(0.5 * 0.8f64.powi(k as i32)) as f32;
            assert!(
                (server.params[0] - expected).abs() < 1e-6,
                "k={k}: {}",
                server.params[0]
            );
        }
    }

    #[test]
    fn gradients_beyond_the_window_are_discarded() {
        let mut server = Server::new(vec![1.0], &job(OptimizerKind::HbAsgd));
        assert_eq!(server.push(&[1.0], 4, 8, 1.0), Applied::TooStale);
        assert_eq!(server.params[0], 1.0);
        assert_eq!(server.version, 0);
    }

    #[test]
    fn plain_async_sgd_does_not_decay() {
        let mut server = Server::new(vec![0.0], &job(OptimizerKind::AsyncSgd));
        assert_eq!(server.push(&[1.0], 10, 8, 1.0), Applied::Weighted(1.0));
        assert!((server.params[0] + 0.5).abs() < 1e-6);
    }

    #[test]
    fn momentum_and_nesterov_follow_their_velocity() {
        // lr 0.5, mu 0.9, gradient 1 twice: v = 1 then 1.9
        let mut heavy = Server::new(vec![0.0], &job(OptimizerKind::Momentum));
        heavy.push(&[1.0], 0, 8, 1.0);
        heavy.push(&[1.0], 0, 8, 1.0);
        assert!(
            (heavy.params[0] + 0.5 * (1.0 + 1.9)).abs() < 1e-6,
            "{}",
            heavy.params[0]
        );
        let mut nesterov = Server::new(vec![0.0], &job(OptimizerKind::Nesterov));
        nesterov.push(&[1.0], 0, 8, 1.0);
        nesterov.push(&[1.0], 0, 8, 1.0);
        // steps g + mu v: 1 + 0.9, then 1 + 0.9 * 1.9
        let expected = -0.5 * (1.9 + 1.0 + 0.9 * 1.9);
        assert!(
            (nesterov.params[0] - expected as f32).abs() < 1e-6,
            "{}",
            nesterov.params[0]
        );
    }

    #[test]
    fn sync_step_applies_the_batch_weighted_mean() {
        let mut server = Server::new(vec![0.0], &job(OptimizerKind::SyncSgd));
        assert_eq!(server.push(&[1.0], 0, 10, 1.0), Applied::Buffered);
        assert_eq!(server.push(&[4.0], 0, 30, 1.0), Applied::Buffered);
        assert_eq!(server.version, 0);
        server.finish_sync_step();
        assert_eq!(server.version, 1);
        assert!((server.params[0] + 0.5 * 3.25).abs() < 1e-6);
    }
}
