//! What a markov episode reports.

use crate::gym::EpisodeSummary;
use crate::gym::columns::{Better, MetricColumn, column};

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MarkovMetrics {
    /// The share of the episode's choices that were the known answer (forward on the chain,
    /// the good level on the semi-Markov chain; `advance` steps are not choices).
    pub optimal_share: f64,
    pub steps: usize,
    pub time_s: f64,
    pub episode_return: f64,
}

impl EpisodeSummary for MarkovMetrics {
    const COLUMNS: &'static [MetricColumn<Self>] = &COLUMNS;

    fn episode_return(&self) -> f64 {
        self.episode_return
    }
    fn curves(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("optimal_share", self.optimal_share),
            ("episode_return", self.episode_return),
        ]
    }
}

/// Every MarkovMetrics figure, in the order of its fields (and of its JSON).
const COLUMNS: [MetricColumn<MarkovMetrics>; 4] = [
    column("optimal_share", |m| m.optimal_share, 4, Better::Higher),
    column("steps", |m| m.steps as f64, 0, Better::Neither),
    column("time_s", |m| m.time_s, 1, Better::Neither),
    column("episode_return", |m| m.episode_return, 4, Better::Higher),
];
