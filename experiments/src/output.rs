//! Writing results: atomic files, metric columns and terminal tables.

use std::path::Path;

use anyhow::Context;
use schedlab_env::SingleJobMetrics;
use schedlab_env::dag::DagMetrics;
use schedlab_env::jobs::JobsMetrics;
use schedlab_env::network::NetworkMetrics;

/// [`schedlab_artifacts::write_atomic`], with the path in the error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    schedlab_artifacts::write_atomic(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}

/// Which way a metric is better, for marking the best policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
    /// Neither direction is better in itself (occupancy).
    Neither,
}

/// A metric column of episodes' metrics `M`: its name as in the metrics' JSON, its value as
/// a number (booleans as 0/1), how many decimals to print, which way is better, and whether
/// it is a yes/no figure (printed `true`/`false` per episode).
pub struct Metric<M> {
    pub name: &'static str,
    pub value: fn(&M) -> f64,
    pub decimals: usize,
    pub better: Better,
    pub flag: bool,
}

impl<M> Metric<M> {
    /// One episode's cell.
    pub fn cell(&self, m: &M) -> String {
        let v = (self.value)(m);
        if self.flag {
            (v > 0.5).to_string()
        } else {
            format!("{:.*}", self.decimals, v)
        }
    }
}

/// Every single-job metric, in [`SingleJobMetrics`]'s order.
pub const METRICS: [Metric<SingleJobMetrics>; 13] = [
    Metric {
        name: "completion_time_s",
        value: |m| m.completion_time_s,
        decimals: 1,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "rounds",
        value: |m| m.rounds as f64,
        decimals: 0,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "iterations",
        value: |m| m.iterations as f64,
        decimals: 0,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "final_loss",
        value: |m| m.final_loss,
        decimals: 4,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "target_reached",
        value: |m| f64::from(u8::from(m.target_reached)),
        decimals: 2,
        better: Better::Higher,
        flag: true,
    },
    Metric {
        name: "gpu_util",
        value: |m| m.gpu_util,
        decimals: 3,
        better: Better::Higher,
        flag: false,
    },
    Metric {
        name: "cpu_util",
        value: |m| m.cpu_util,
        decimals: 3,
        better: Better::Higher,
        flag: false,
    },
    Metric {
        name: "occupancy",
        value: |m| m.occupancy,
        decimals: 3,
        better: Better::Neither,
        flag: false,
    },
    Metric {
        name: "fragmentation",
        value: |m| m.fragmentation,
        decimals: 3,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "idle_cost",
        value: |m| m.idle_cost,
        decimals: 4,
        better: Better::Lower,
        flag: false,
    },
    metric("bits_sent", |m| m.bits_sent, 0, Better::Lower),
    metric("bits_per_worker", |m| m.bits_per_worker, 0, Better::Lower),
    Metric {
        name: "episode_return",
        value: |m| m.episode_return,
        decimals: 3,
        better: Better::Higher,
        flag: false,
    },
];

/// Every DAG metric, in [`DagMetrics`]'s order.
pub const DAG_METRICS: [Metric<DagMetrics>; 9] = [
    metric("makespan_s", |m| m.makespan_s, 1, Better::Lower),
    metric("slr", |m| m.slr, 3, Better::Lower),
    metric("lower_bound_s", |m| m.lower_bound_s, 1, Better::Neither),
    metric("jct_avg_s", |m| m.jct_avg_s, 1, Better::Lower),
    metric("gpu_utilisation", |m| m.gpu_utilisation, 3, Better::Higher),
    metric("transferred_mb", |m| m.transferred_mb, 0, Better::Lower),
    metric("tasks", |m| m.tasks as f64, 0, Better::Neither),
    metric("jobs", |m| m.jobs as f64, 0, Better::Neither),
    metric("episode_return", |m| m.episode_return, 1, Better::Higher),
];

const fn metric<M>(
    name: &'static str,
    value: fn(&M) -> f64,
    decimals: usize,
    better: Better,
) -> Metric<M> {
    Metric {
        name,
        value,
        decimals,
        better,
        flag: false,
    }
}

/// Every network metric, in [`NetworkMetrics`]'s order.
pub const NETWORK_METRICS: [Metric<NetworkMetrics>; 13] = [
    metric("cost_gap", |m| m.cost_gap, 6, Better::Lower),
    metric("cost_gap_mean", |m| m.cost_gap_mean, 6, Better::Lower),
    metric("residual_max", |m| m.residual_max, 12, Better::Lower),
    metric("disagreement", |m| m.disagreement, 6, Better::Lower),
    metric("train_loss", |m| m.train_loss, 6, Better::Lower),
    metric("loss_gap", |m| m.loss_gap, 6, Better::Lower),
    metric("model_score", |m| m.model_score, 4, Better::Higher),
    metric("central_score", |m| m.central_score, 4, Better::Neither),
    metric("bits_allocation", |m| m.bits_allocation, 0, Better::Lower),
    metric("bits_training", |m| m.bits_training, 0, Better::Lower),
    metric("time_s", |m| m.time_s, 1, Better::Lower),
    metric("iterations", |m| m.iterations as f64, 0, Better::Neither),
    metric("episode_return", |m| m.episode_return, 4, Better::Higher),
];

/// Every jobs-cluster metric, in [`JobsMetrics`]'s order.
pub const JOBS_METRICS: [Metric<JobsMetrics>; 18] = [
    Metric {
        name: "jct_avg_s",
        value: |m| m.jct_avg_s,
        decimals: 0,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "jct_p95_s",
        value: |m| m.jct_p95_s,
        decimals: 0,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "makespan_s",
        value: |m| m.makespan_s,
        decimals: 0,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "queueing_delay_avg_s",
        value: |m| m.queueing_delay_avg_s,
        decimals: 0,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "finished",
        value: |m| m.finished as f64,
        decimals: 0,
        better: Better::Higher,
        flag: false,
    },
    Metric {
        name: "gpu_occupancy",
        value: |m| m.gpu_occupancy,
        decimals: 3,
        better: Better::Neither,
        flag: false,
    },
    Metric {
        name: "cpu_occupancy",
        value: |m| m.cpu_occupancy,
        decimals: 3,
        better: Better::Neither,
        flag: false,
    },
    Metric {
        name: "gpu_util",
        value: |m| m.gpu_util,
        decimals: 3,
        better: Better::Higher,
        flag: false,
    },
    Metric {
        name: "cpu_util",
        value: |m| m.cpu_util,
        decimals: 3,
        better: Better::Higher,
        flag: false,
    },
    Metric {
        name: "fragmentation",
        value: |m| m.fragmentation,
        decimals: 3,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "idle_cost",
        value: |m| m.idle_cost,
        decimals: 0,
        better: Better::Lower,
        flag: false,
    },
    Metric {
        name: "episode_return",
        value: |m| m.episode_return,
        decimals: 1,
        better: Better::Higher,
        flag: false,
    },
    Metric {
        name: "rejected_actions",
        value: |m| m.rejected_actions as f64,
        decimals: 0,
        better: Better::Neither,
        flag: false,
    },
    Metric {
        name: "forced_starts",
        value: |m| m.forced_starts as f64,
        decimals: 0,
        better: Better::Neither,
        flag: false,
    },
    Metric {
        name: "decision_points",
        value: |m| m.decision_points as f64,
        decimals: 0,
        better: Better::Neither,
        flag: false,
    },
    Metric {
        name: "running_at_end",
        value: |m| m.running_at_end as f64,
        decimals: 0,
        better: Better::Neither,
        flag: false,
    },
    Metric {
        name: "queued_at_end",
        value: |m| m.queued_at_end as f64,
        decimals: 0,
        better: Better::Neither,
        flag: false,
    },
    Metric {
        name: "stranded_at_end",
        value: |m| m.stranded_at_end as f64,
        decimals: 0,
        better: Better::Lower,
        flag: false,
    },
];

/// Right-aligns rows of cells into columns.
pub fn align(rows: &[Vec<String>]) -> String {
    let width = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..width)
        .map(|j| {
            rows.iter()
                .filter_map(|r| r.get(j))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    rows.iter()
        .map(|row| {
            row.iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect::<Vec<_>>()
                .join("  ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One row per episode: the labels given, then every metric of `columns`.
pub fn metrics_table<M>(
    columns: &[Metric<M>],
    label_names: &[&str],
    rows: &[(Vec<String>, M)],
) -> String {
    let header = label_names
        .iter()
        .map(|s| s.to_string())
        .chain(columns.iter().map(|m| m.name.to_owned()))
        .collect();
    let body = rows.iter().map(|(labels, m)| {
        labels
            .iter()
            .cloned()
            .chain(columns.iter().map(|c| c.cell(m)))
            .collect()
    });
    align(&std::iter::once(header).chain(body).collect::<Vec<_>>())
}

/// A value with as many decimals as its size needs.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    match v.abs() {
        a if a >= 1000.0 => format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        _ => format!("{v:.3}"),
    }
}

pub fn p_text(p: f64) -> String {
    match p {
        p if p.is_nan() => String::new(),
        p if p < 0.001 => "p<0.001".into(),
        p => format!("p={p:.3}"),
    }
}
