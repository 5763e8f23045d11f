//! What a control episode reports.

use crate::gym::EpisodeSummary;
use crate::gym::columns::{Better, MetricColumn, column};

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ControlMetrics {
    pub steps: usize,
    /// The task ended it (the pole fell, the tip rose), not the time limit.
    pub terminated: bool,
    pub episode_return: f64,
}

impl EpisodeSummary for ControlMetrics {
    const COLUMNS: &'static [MetricColumn<Self>] = &COLUMNS;

    fn episode_return(&self) -> f64 {
        self.episode_return
    }
    fn curves(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("episode_return", self.episode_return),
            ("steps", self.steps as f64),
        ]
    }
}

/// Every ControlMetrics figure, in the order of its fields (and of its JSON).
const COLUMNS: [MetricColumn<ControlMetrics>; 3] = [
    column("steps", |m| m.steps as f64, 0, Better::Neither),
    column(
        "terminated",
        |m: &ControlMetrics| f64::from(u8::from(m.terminated)),
        0,
        Better::Neither,
    )
    .as_flag(),
    column("episode_return", |m| m.episode_return, 2, Better::Higher),
];
