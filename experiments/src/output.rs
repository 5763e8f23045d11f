//! Writing results: atomic files, metric columns and terminal tables.

use std::path::Path;

use anyhow::Context;
use schedlab_env::EpisodeMetrics;
use schedlab_env::jobs::JobsMetrics;

/// [`schedlab_trainer::files::write_atomic`], with the path in the error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    schedlab_trainer::files::write_atomic(path, bytes)
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

/// A metric column of episodes' metrics `M`: its DESIGN name, its value as a number
/// (booleans as 0/1), how many decimals to print, and which way is better.
pub struct Metric<M> {
    pub name: &'static str,
    pub value: fn(&M) -> f64,
    pub decimals: usize,
    pub better: Better,
}

/// Every metric, in DESIGN order.
pub const METRICS: [Metric<EpisodeMetrics>; 11] = [
    Metric {
        name: "completion_time_s",
        value: |m| m.completion_time_s,
        decimals: 1,
        better: Better::Lower,
    },
    Metric {
        name: "rounds",
        value: |m| m.rounds as f64,
        decimals: 0,
        better: Better::Lower,
    },
    Metric {
        name: "iterations",
        value: |m| m.iterations as f64,
        decimals: 0,
        better: Better::Lower,
    },
    Metric {
        name: "final_loss",
        value: |m| m.final_loss,
        decimals: 4,
        better: Better::Lower,
    },
    Metric {
        name: "target_reached",
        value: |m| f64::from(u8::from(m.target_reached)),
        decimals: 2,
        better: Better::Higher,
    },
    Metric {
        name: "gpu_util",
        value: |m| m.gpu_util,
        decimals: 3,
        better: Better::Higher,
    },
    Metric {
        name: "cpu_util",
        value: |m| m.cpu_util,
        decimals: 3,
        better: Better::Higher,
    },
    Metric {
        name: "occupancy",
        value: |m| m.occupancy,
        decimals: 3,
        better: Better::Neither,
    },
    Metric {
        name: "fragmentation",
        value: |m| m.fragmentation,
        decimals: 3,
        better: Better::Lower,
    },
    Metric {
        name: "idle_cost",
        value: |m| m.idle_cost,
        decimals: 4,
        better: Better::Lower,
    },
    Metric {
        name: "episode_return",
        value: |m| m.episode_return,
        decimals: 3,
        better: Better::Higher,
    },
];

/// Every jobs-cluster metric, in [`JobsMetrics`]'s order.
pub const JOBS_METRICS: [Metric<JobsMetrics>; 14] = [
    Metric {
        name: "jct_avg_s",
        value: |m| m.jct_avg_s,
        decimals: 0,
        better: Better::Lower,
    },
    Metric {
        name: "jct_p95_s",
        value: |m| m.jct_p95_s,
        decimals: 0,
        better: Better::Lower,
    },
    Metric {
        name: "makespan_s",
        value: |m| m.makespan_s,
        decimals: 0,
        better: Better::Lower,
    },
    Metric {
        name: "queueing_delay_avg_s",
        value: |m| m.queueing_delay_avg_s,
        decimals: 0,
        better: Better::Lower,
    },
    Metric {
        name: "finished",
        value: |m| m.finished as f64,
        decimals: 0,
        better: Better::Higher,
    },
    Metric {
        name: "gpu_occupancy",
        value: |m| m.gpu_occupancy,
        decimals: 3,
        better: Better::Neither,
    },
    Metric {
        name: "cpu_occupancy",
        value: |m| m.cpu_occupancy,
        decimals: 3,
        better: Better::Neither,
    },
    Metric {
        name: "gpu_util",
        value: |m| m.gpu_util,
        decimals: 3,
        better: Better::Higher,
    },
    Metric {
        name: "cpu_util",
        value: |m| m.cpu_util,
        decimals: 3,
        better: Better::Higher,
    },
    Metric {
        name: "fragmentation",
        value: |m| m.fragmentation,
        decimals: 3,
        better: Better::Lower,
    },
    Metric {
        name: "idle_cost",
        value: |m| m.idle_cost,
        decimals: 0,
        better: Better::Lower,
    },
    Metric {
        name: "episode_return",
        value: |m| m.episode_return,
        decimals: 1,
        better: Better::Higher,
    },
    Metric {
        name: "rejected_actions",
        value: |m| m.rejected_actions as f64,
        decimals: 0,
        better: Better::Neither,
    },
    Metric {
        name: "decision_points",
        value: |m| m.decision_points as f64,
        decimals: 0,
        better: Better::Neither,
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

/// One row per episode: the labels given, then every metric.
pub fn metrics_table(label_names: &[&str], rows: &[(Vec<String>, EpisodeMetrics)]) -> String {
    let header = label_names
        .iter()
        .map(|s| s.to_string())
        .chain(METRICS.iter().map(|m| m.name.to_owned()))
        .collect();
    let body = rows.iter().map(|(labels, m)| {
        labels
            .iter()
            .cloned()
            .chain(METRICS.iter().map(|c| {
                if c.name == "target_reached" {
                    m.target_reached.to_string()
                } else {
                    format!("{:.*}", c.decimals, (c.value)(m))
                }
            }))
            .collect()
    });
    align(&std::iter::once(header).chain(body).collect::<Vec<_>>())
}
