//! Writing results: atomic files, metric columns and terminal tables.

use std::path::Path;

use anyhow::Context;
use schedlab_env::gym::MetricColumn;

/// [`schedlab_artifacts::write_atomic`], with the path in the error.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    schedlab_artifacts::write_atomic(path, bytes)
        .with_context(|| format!("writing {}", path.display()))
}

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
    columns: &[MetricColumn<M>],
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
