//! The study along three axes of the generated DAGs (size, GPU heterogeneity, inter-machine
//! bandwidth): a table of makespans per scheduler and point, and its figure.

use super::cells::MAKESPAN;
use super::policies::{Labels, spec_of};
use crate::plots::{self, XScale};
use crate::reproduce::context::{Context, mean, mean_ci, paired_p, values};
use crate::reproduce::protocol::DagProtocol;
use crate::sweep::journal::Row;

/// One axis of the study: a sweep over override sets of the generated workload.
pub(super) struct Axis {
    pub(super) name: &'static str,
    pub(super) label: &'static str,
    /// How the headline names a setting of the axis.
    pub(super) short: &'static str,
    pub(super) key: &'static str,
    pub(super) points: Vec<f64>,
}

impl Axis {
    pub(super) fn variant(&self, x: f64) -> String {
        format!("{}={x}", self.key)
    }
}

/// The key of the generated DAGs' task count, set on every axis but the size one.
pub(super) const TASKS_KEY: &str = "dags.layered.tasks";

/// The section's three axes: DAG size, GPU heterogeneity, inter-machine bandwidth.
pub(super) fn axes(p: &DagProtocol) -> [Axis; 3] {
    [
        Axis {
            name: "size",
            label: "tasks",
            short: "tasks",
            key: TASKS_KEY,
            points: p.tasks.iter().map(|&t| t as f64).collect(),
        },
        Axis {
            name: "heterogeneity",
            label: "heterogeneity (speed exponent)",
            short: "heterogeneity",
            key: "platform.heterogeneity",
            points: p.heterogeneity.clone(),
        },
        Axis {
            name: "bandwidth",
            label: "inter-machine MB/s",
            short: "MB/s",
            key: "platform.inter_mbps",
            points: p.inter_mbps.clone(),
        },
    ]
}

pub(super) fn toml_number(key: &str, x: f64) -> toml::Value {
    if key.ends_with("tasks") {
        toml::Value::Integer(x as i64)
    } else {
        toml::Value::Float(x)
    }
}

/// `mean ± ci (p)` per scheduler and point of an axis, its figure, and a line on the order.
pub(super) fn axis_table(
    cx: &Context,
    p: &DagProtocol,
    axis: &Axis,
    rows: &[Row],
    labels: &Labels,
) -> anyhow::Result<String> {
    let header: Vec<String> = axis.points.iter().map(|x| x.to_string()).collect();
    let mut text = format!(
        "### Makespan against {}\n\n| scheduler | {} |\n| --- |{}\n",
        axis.label,
        header.join(" | "),
        " --- |".repeat(header.len())
    );
    let reference = spec_of(labels, &p.reference);
    let mut series = Vec::new();
    for (spec, label) in labels {
        let mut cells = Vec::new();
        let mut line = Vec::new();
        for &x in &axis.points {
            let variant = axis.variant(x);
            let v = values(rows, spec, &variant, MAKESPAN);
            let ours = values(rows, reference, &variant, MAKESPAN);
            let pv = if spec == reference {
                String::new()
            } else {
                format!(" ({})", paired_p(&v, &ours).cell())
            };
            cells.push(format!("{}{pv}", mean_ci(&v)));
            line.push((x, mean(&v)));
        }
        text += &format!("| {label} | {} |\n", cells.join(" | "));
        series.push((label.clone(), line));
    }
    let figure = format!("dag-{}.png", axis.name);
    let scale = if axis.name == "bandwidth" {
        XScale::Log
    } else {
        XScale::Linear
    };
    plots::lines(
        &cx.figure(&figure)?,
        &format!("Makespan against {}", axis.label),
        (axis.label, "makespan (s)"),
        &series,
        scale,
    )?;
    text += &format!(
        "\n![makespan against {}]({})\n\n",
        axis.label,
        cx.link(&figure)
    );
    Ok(text)
}
