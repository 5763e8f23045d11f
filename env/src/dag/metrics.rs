//! What a DAG episode reports.

use super::problem::Problem;
use super::schedule::Schedule;
use crate::gym::EpisodeSummary;
use crate::gym::columns::{Better, MetricColumn, column};

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DagMetrics {
    pub makespan_s: f64,
    /// Makespan over the critical-path lower bound ([`super::lower_bound_s`]); at least 1.
    pub slr: f64,
    pub lower_bound_s: f64,
    /// Mean over jobs of last finish less release.
    pub jct_avg_s: f64,
    /// Busy GPU-seconds over GPUs times makespan.
    pub gpu_utilisation: f64,
    /// Megabytes moved between different GPUs.
    pub transferred_mb: f64,
    pub tasks: usize,
    pub jobs: usize,
    pub episode_return: f64,
}

impl DagMetrics {
    pub fn of(
        problem: &Problem,
        schedule: &Schedule,
        lower_bound_s: f64,
        episode_return: f64,
    ) -> Self {
        let makespan_s = schedule.makespan_s();
        let jct = schedule.job_completion_s(problem);
        let busy: f64 = schedule
            .finish
            .iter()
            .zip(&schedule.start)
            .map(|(f, s)| f - s)
            .sum();
        let transferred_mb = (0..problem.len())
            .flat_map(|t| problem.preds(t).iter().map(move |&(p, d)| (p, t, d)))
            .filter(|&(p, t, _)| schedule.gpu[p] != schedule.gpu[t])
            .map(|(_, _, d)| d)
            .sum();
        DagMetrics {
            makespan_s,
            slr: makespan_s / lower_bound_s,
            lower_bound_s,
            jct_avg_s: jct.iter().sum::<f64>() / jct.len() as f64,
            gpu_utilisation: busy / (problem.gpus() as f64 * makespan_s),
            transferred_mb,
            tasks: problem.len(),
            jobs: problem.jobs.len(),
            episode_return,
        }
    }
}

impl EpisodeSummary for DagMetrics {
    const COLUMNS: &'static [MetricColumn<Self>] = &COLUMNS;

    fn episode_return(&self) -> f64 {
        self.episode_return
    }
    fn curves(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("makespan_s", self.makespan_s),
            ("slr", self.slr),
            ("jct_avg_s", self.jct_avg_s),
            ("gpu_utilisation", self.gpu_utilisation),
        ]
    }
}

/// Every DagMetrics figure, in the order of its fields (and of its JSON).
const COLUMNS: [MetricColumn<DagMetrics>; 9] = [
    column("makespan_s", |m| m.makespan_s, 1, Better::Lower),
    column("slr", |m| m.slr, 3, Better::Lower),
    column("lower_bound_s", |m| m.lower_bound_s, 1, Better::Neither),
    column("jct_avg_s", |m| m.jct_avg_s, 1, Better::Lower),
    column("gpu_utilisation", |m| m.gpu_utilisation, 3, Better::Higher),
    column("transferred_mb", |m| m.transferred_mb, 0, Better::Lower),
    column("tasks", |m| m.tasks as f64, 0, Better::Neither),
    column("jobs", |m| m.jobs as f64, 0, Better::Neither),
    column("episode_return", |m| m.episode_return, 1, Better::Higher),
];
