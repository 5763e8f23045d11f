//! What `schedlab fidelity` reports: each episode played three ways, per policy the means and
//! ranks of the compared metric, the calibration, and over all episodes the errors and
//! Kendall's tau.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fitted::Fitted;

/// One (policy, seed) played three ways; each side holds the episode's metrics.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Episode {
    pub policy: String,
    pub seed: u64,
    pub sim: Value,
    pub sim_calibrated: Value,
    /// The real side, under the name of its backend (`"real"` or `"slurm"`).
    #[serde(flatten)]
    pub real: RealSide,
    /// Wall seconds of the real episode.
    pub real_wall_s: f64,
    /// What the real processes measured beside the metrics (jobs: start and restart costs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real_execution: Option<Value>,
}

/// An episode's metrics on real processes, by the backend that ran them.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RealSide {
    /// In control groups on this machine (`execution = "real"`).
    Real(Value),
    /// Through a Slurm cluster (`execution = "slurm"`).
    Slurm(Value),
}

impl RealSide {
    pub fn metrics(&self) -> &Value {
        match self {
            RealSide::Real(v) | RealSide::Slurm(v) => v,
        }
    }
}

/// A policy's mean of the compared metric each way and its rank (1: lowest) under each.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PolicyRow {
    pub policy: String,
    pub sim_s: f64,
    pub sim_calibrated_s: f64,
    pub real_s: f64,
    /// Mean over seeds of |sim - real| / real, and likewise calibrated.
    pub sim_error: f64,
    pub calibrated_error: f64,
    pub sim_rank: usize,
    pub calibrated_rank: usize,
    pub real_rank: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub workload: String,
    /// The metric compared: `completion_time_s` (single job) or `jct_avg_s` (jobs).
    pub metric: String,
    pub episodes: Vec<Episode>,
    pub policies: Vec<PolicyRow>,
    pub calibration: Fitted,
    /// The workload settings that make the simulator the calibrated one.
    pub calibrated_settings: BTreeMap<String, String>,
    /// Mean absolute relative error of the metric over every episode.
    pub sim_error: f64,
    pub calibrated_error: f64,
    /// Kendall's tau between the policies' order in the simulator and on the machine.
    pub sim_tau: f64,
    pub calibrated_tau: f64,
}

/// Per policy, means and ranks of `metric`; over all episodes, errors and Kendall's tau.
pub fn summarise(
    workload: &str,
    metric: &str,
    episodes: Vec<Episode>,
    (calibration, calibrated_settings): (Fitted, BTreeMap<String, String>),
    policies: &[String],
) -> Report {
    let value = |side: &Value| side[metric].as_f64().unwrap_or(f64::NAN);
    let error = |a: &Value, real: &Value| {
        (value(a) - value(real)).abs() / value(real).max(f64::MIN_POSITIVE)
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let mut rows: Vec<PolicyRow> = policies
        .iter()
        .map(|policy| {
            let own: Vec<&Episode> = episodes.iter().filter(|e| &e.policy == policy).collect();
            let pick = |f: &dyn Fn(&Episode) -> f64| own.iter().map(|e| f(e)).collect::<Vec<_>>();
            PolicyRow {
                policy: policy.clone(),
                sim_s: mean(&pick(&|e| value(&e.sim))),
                sim_calibrated_s: mean(&pick(&|e| value(&e.sim_calibrated))),
                real_s: mean(&pick(&|e| value(e.real.metrics()))),
                sim_error: mean(&pick(&|e| error(&e.sim, e.real.metrics()))),
                calibrated_error: mean(&pick(&|e| error(&e.sim_calibrated, e.real.metrics()))),
                sim_rank: 0,
                calibrated_rank: 0,
                real_rank: 0,
            }
        })
        .collect();
    let sim: Vec<f64> = rows.iter().map(|r| r.sim_s).collect();
    let calibrated: Vec<f64> = rows.iter().map(|r| r.sim_calibrated_s).collect();
    let real: Vec<f64> = rows.iter().map(|r| r.real_s).collect();
    for (row, ((s, c), r)) in rows.iter_mut().zip(
        ranks(&sim)
            .into_iter()
            .zip(ranks(&calibrated))
            .zip(ranks(&real)),
    ) {
        (row.sim_rank, row.calibrated_rank, row.real_rank) = (s, c, r);
    }
    let all = |f: &dyn Fn(&Episode) -> f64| mean(&episodes.iter().map(f).collect::<Vec<_>>());
    Report {
        workload: workload.to_owned(),
        metric: metric.to_owned(),
        sim_error: all(&|e| error(&e.sim, e.real.metrics())),
        calibrated_error: all(&|e| error(&e.sim_calibrated, e.real.metrics())),
        sim_tau: kendall_tau(&sim, &real),
        calibrated_tau: kendall_tau(&calibrated, &real),
        episodes,
        policies: rows,
        calibration,
        calibrated_settings,
    }
}

/// 1-based ranks, lowest value first; ties share the lower rank.
pub fn ranks(values: &[f64]) -> Vec<usize> {
    values
        .iter()
        .map(|v| 1 + values.iter().filter(|o| *o < v).count())
        .collect()
}

/// Kendall's tau-a between two orderings of the same items (1: the same order, -1: reversed;
/// 1 for fewer than two items).
pub fn kendall_tau(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n < 2 {
        return 1.0;
    }
    let mut score = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let product = (a[i] - a[j]).signum() * (b[i] - b[j]).signum();
            if (a[i] - a[j]) != 0.0 && (b[i] - b[j]) != 0.0 {
                score += product;
            }
        }
    }
    score / (n * (n - 1) / 2) as f64
}
