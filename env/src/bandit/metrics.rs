//! What a bandit episode reports.

use crate::gym::EpisodeSummary;
use crate::gym::columns::{Better, MetricColumn, column};

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BanditMetrics {
    /// Mean reward forgone against the optimum, summed over the steps (noise left out).
    pub regret: f64,
    /// The share of (step, dimension) choices that were the optimum.
    pub optimal_share: f64,
    pub steps: usize,
    pub episode_return: f64,
}

impl EpisodeSummary for BanditMetrics {
    const COLUMNS: &'static [MetricColumn<Self>] = &COLUMNS;

    fn episode_return(&self) -> f64 {
        self.episode_return
    }
    fn curves(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("regret", self.regret),
            ("optimal_share", self.optimal_share),
        ]
    }
}

/// Every BanditMetrics figure, in the order of its fields (and of its JSON).
const COLUMNS: [MetricColumn<BanditMetrics>; 4] = [
    column("regret", |m| m.regret, 4, Better::Lower),
    column("optimal_share", |m| m.optimal_share, 4, Better::Higher),
    column("steps", |m| m.steps as f64, 0, Better::Neither),
    column("episode_return", |m| m.episode_return, 4, Better::Higher),
];
