//! What a network episode reports.

use crate::gym::EpisodeSummary;
use crate::gym::columns::{Better, MetricColumn, column};

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NetworkMetrics {
    /// The last allocation's (cost - optimum) / optimum.
    pub cost_gap: f64,
    /// The mean over iterations of the cost gap (minus the return over the iterations).
    pub cost_gap_mean: f64,
    /// The largest `|sum_i x_i - b| / b` over the episode.
    pub residual_max: f64,
    /// The centres' largest distance from their mean model over its norm, at the end.
    pub disagreement: f64,
    /// The mean model's regularised loss on the training data.
    pub train_loss: f64,
    /// (train_loss - the centralised twin's) / the twin's: full-batch gradient descent with
    /// the same step on the mean model and as many iterations.
    pub loss_gap: f64,
    /// The mean model's accuracy (classification) or R² (regression) on the training data,
    /// and the twin's.
    pub model_score: f64,
    pub central_score: f64,
    /// Bits the centres sent for the allocation and for the training.
    pub bits_allocation: f64,
    pub bits_training: f64,
    /// Virtual seconds: each iteration waits for the slowest centre's local epoch.
    pub time_s: f64,
    pub iterations: usize,
    pub episode_return: f64,
}

impl EpisodeSummary for NetworkMetrics {
    const COLUMNS: &'static [MetricColumn<Self>] = &COLUMNS;

    fn episode_return(&self) -> f64 {
        self.episode_return
    }
    fn curves(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("cost_gap", self.cost_gap),
            ("cost_gap_mean", self.cost_gap_mean),
            ("loss_gap", self.loss_gap),
            ("time_s", self.time_s),
        ]
    }
}

/// Every NetworkMetrics figure, in the order of its fields (and of its JSON).
const COLUMNS: [MetricColumn<NetworkMetrics>; 13] = [
    column("cost_gap", |m| m.cost_gap, 6, Better::Lower),
    column("cost_gap_mean", |m| m.cost_gap_mean, 6, Better::Lower),
    column("residual_max", |m| m.residual_max, 12, Better::Lower),
    column("disagreement", |m| m.disagreement, 6, Better::Lower),
    column("train_loss", |m| m.train_loss, 6, Better::Lower),
    column("loss_gap", |m| m.loss_gap, 6, Better::Lower),
    column("model_score", |m| m.model_score, 4, Better::Higher),
    column("central_score", |m| m.central_score, 4, Better::Neither),
    column("bits_allocation", |m| m.bits_allocation, 0, Better::Lower),
    column("bits_training", |m| m.bits_training, 0, Better::Lower),
    column("time_s", |m| m.time_s, 1, Better::Lower),
    column("iterations", |m| m.iterations as f64, 0, Better::Neither),
    column("episode_return", |m| m.episode_return, 4, Better::Higher),
];
