//! How an update and the run's hyperparameters are written to TensorBoard.

use schedlab_env::EpisodeSummary;

use crate::learner::UpdateStats;
use crate::tensorboard::TensorBoard;

/// One update's curves: the finished episodes' metrics, SPS, the learner's own curves and the
/// training job's loss.
pub(super) fn log_update<M: EpisodeSummary>(
    board: &mut TensorBoard,
    stats: &UpdateStats<M>,
    sps: f64,
) {
    for m in &stats.finished {
        for (name, value) in m.curves() {
            board.scalar(&format!("charts/{name}"), value as f32, stats.env_steps);
        }
    }
    board.scalar("charts/SPS", sps as f32, stats.env_steps);
    for &(tag, value) in &stats.scalars {
        board.scalar(tag, value, stats.env_steps);
    }
    if stats.train_loss.is_finite() {
        board.scalar("env/train_loss", stats.train_loss as f32, stats.env_steps);
    }
}

/// The hyperparameters as a Markdown table, for TensorBoard's text tab.
pub(super) fn markdown_table(config: &serde_json::Value) -> String {
    let mut text = String::from("| parameter | value |\n| --- | --- |\n");
    if let Some(map) = config.as_object() {
        for (k, v) in map {
            text += &format!("| {k} | {v} |\n");
        }
    }
    text
}
