//! What a network episode reports.

use crate::gym::EpisodeSummary;

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
