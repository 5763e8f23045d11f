//! Metrics of a jobs episode, from per-job times and time-integrated cluster sums.

use crate::gym::columns::{Better, MetricColumn, column};
use serde::{Deserialize, Serialize};

fn one() -> f64 {
    1.0
}

/// The metrics of one jobs episode. Exactly these names appear in JSON and tables.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobsMetrics {
    pub jobs: usize,
    pub finished: usize,
    /// Jobs still waiting, queued or running when the episode was truncated.
    pub unfinished: usize,
    /// Job completion time (finish − arrival) over arrived jobs, mean and 95th percentile; a
    /// job unfinished at a truncation counts its time in the system so far (a lower bound).
    pub jct_avg_s: f64,
    pub jct_p95_s: f64,
    /// Last finish (the episode's end while a job is unfinished) − first arrival.
    pub makespan_s: f64,
    /// First start − the time the job could first run (arrived, its DAG parents done); a queued
    /// job never started counts its wait so far.
    pub queueing_delay_avg_s: f64,
    /// Allocated / capacity, time-integrated.
    pub gpu_occupancy: f64,
    pub cpu_occupancy: f64,
    /// Used / allocated, time-integrated (templates' utilisation; 0 while restarting).
    pub gpu_util: f64,
    pub cpu_util: f64,
    /// Free GPU capacity a GPU job of the workload could not use, in expectation over its
    /// request shapes (Weng et al., ATC'23), as a share of free GPU capacity, time-integrated
    /// (CPU instead, with the CPU-only jobs, on a cluster without GPUs).
    pub fragmentation: f64,
    /// Price of allocated-but-unused resource-seconds (workload `prices`).
    pub idle_cost: f64,
    pub episode_return: f64,
    /// Choices the mask allowed alone but that no longer fit after earlier ones in a step.
    pub rejected_actions: usize,
    /// Jobs the env started itself because the clock was to move while they fit the idle
    /// capacity (`window.work_conserving`): how often the policy left work idle.
    pub forced_starts: usize,
    pub decision_points: usize,
    /// Jobs running when the episode ended (cut by its horizon).
    pub running_at_end: usize,
    /// Jobs queued when the episode ended; the unfinished rest had not arrived (or waited on
    /// DAG parents).
    pub queued_at_end: usize,
    /// Of the queued jobs, those that would fit the idle capacity at their request when the
    /// episode ended: work left stranded (none under `window.work_conserving`, whose queued
    /// jobs at the end wait behind full capacity).
    pub stranded_at_end: usize,
    /// Finish-time fairness ρ over arrived jobs, mean and max: a job's JCT over its JCT alone
    /// on a 1/N share of the cluster (docs/fairness.md); above 1, it was treated worse than
    /// that share would have. Absent from files written before it: 0.
    #[serde(default)]
    pub rho_avg: f64,
    #[serde(default)]
    pub rho_max: f64,
    /// Jain's index over the tenants' mean ρ (1 with one tenant, or none).
    #[serde(default = "one")]
    pub tenant_jain: f64,
    /// Per tenant, where some job names one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tenants: Vec<TenantMetrics>,
    pub steps: usize,
    /// Virtual time at the end.
    pub time_s: f64,
}

/// One tenant's jobs in an episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TenantMetrics {
    /// The tenant's name; empty for the jobs that name none.
    pub tenant: String,
    /// Its arrived jobs.
    pub jobs: usize,
    pub jct_avg_s: f64,
    pub rho_avg: f64,
}

/// Running time integrals, per resource `[cpu, mem, gpu]` in milli-units × seconds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Integrals {
    pub allocated: [f64; 3],
    pub used: [f64; 3],
    pub capacity: [f64; 3],
    pub free: [f64; 3],
    /// Stranded `[gpu, cpu]`.
    pub stranded: [f64; 2],
    pub in_system: f64,
    pub idle_cost: f64,
}

pub(crate) fn share(num: f64, den: f64) -> f64 {
    if den > 0.0 { num / den } else { 0.0 }
}

/// The `q`-quantile (nearest rank) of unsorted values; 0 for none.
pub fn quantile(values: &mut [f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_unstable_by(f64::total_cmp);
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    values[rank - 1]
}

impl crate::gym::EpisodeSummary for JobsMetrics {
    const COLUMNS: &'static [MetricColumn<Self>] = &COLUMNS;

    fn episode_return(&self) -> f64 {
        self.episode_return
    }
    fn curves(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("jct_avg_s", self.jct_avg_s),
            ("episodic_return", self.episode_return),
            ("makespan_s", self.makespan_s),
            ("idle_cost", self.idle_cost),
            ("gpu_occupancy", self.gpu_occupancy),
            ("fragmentation", self.fragmentation),
        ]
    }
}

/// Every JobsMetrics figure, in the order of its fields (and of its JSON).
const COLUMNS: [MetricColumn<JobsMetrics>; 21] = [
    column("jct_avg_s", |m| m.jct_avg_s, 0, Better::Lower),
    column("jct_p95_s", |m| m.jct_p95_s, 0, Better::Lower),
    column("makespan_s", |m| m.makespan_s, 0, Better::Lower),
    column(
        "queueing_delay_avg_s",
        |m| m.queueing_delay_avg_s,
        0,
        Better::Lower,
    ),
    column("finished", |m| m.finished as f64, 0, Better::Higher),
    column("gpu_occupancy", |m| m.gpu_occupancy, 3, Better::Neither),
    column("cpu_occupancy", |m| m.cpu_occupancy, 3, Better::Neither),
    column("gpu_util", |m| m.gpu_util, 3, Better::Higher),
    column("cpu_util", |m| m.cpu_util, 3, Better::Higher),
    column("fragmentation", |m| m.fragmentation, 3, Better::Lower),
    column("idle_cost", |m| m.idle_cost, 0, Better::Lower),
    column("episode_return", |m| m.episode_return, 1, Better::Higher),
    column(
        "rejected_actions",
        |m| m.rejected_actions as f64,
        0,
        Better::Neither,
    ),
    column(
        "forced_starts",
        |m| m.forced_starts as f64,
        0,
        Better::Neither,
    ),
    column(
        "decision_points",
        |m| m.decision_points as f64,
        0,
        Better::Neither,
    ),
    column(
        "running_at_end",
        |m| m.running_at_end as f64,
        0,
        Better::Neither,
    ),
    column(
        "queued_at_end",
        |m| m.queued_at_end as f64,
        0,
        Better::Neither,
    ),
    column(
        "stranded_at_end",
        |m| m.stranded_at_end as f64,
        0,
        Better::Lower,
    ),
    column("rho_avg", |m| m.rho_avg, 3, Better::Lower),
    column("rho_max", |m| m.rho_max, 3, Better::Lower),
    column("tenant_jain", |m| m.tenant_jain, 3, Better::Higher),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_quantiles() {
        let mut v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(quantile(&mut v, 0.95), 19.0);
        assert_eq!(quantile(&mut v, 1.0), 20.0);
        assert_eq!(quantile(&mut [], 0.95), 0.0);
    }
}
