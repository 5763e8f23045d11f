//! What `schedlab plot` draws, read from files: a run's TensorBoard scalars or a CSV file's
//! columns as curves, and a sweep metric's per-episode values grouped by policy.

use std::path::Path;

use anyhow::Context;
use schedlab_trainer::tensorboard::read_scalars;

use crate::sweep::spec::CellKey;
use crate::sweep::table::read_results;

/// A run folder's or file's own name, as the legend shows it.
pub fn source_label(source: &Path) -> String {
    let name = if source.is_dir() {
        source.file_name()
    } else {
        source.file_stem()
    };
    name.map_or_else(
        || source.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The scalar `tag` of a run folder's TensorBoard files as `(step, value)` points.
pub fn tensorboard_curve(run: &Path, tag: &str) -> anyhow::Result<Vec<(f64, f64)>> {
    let scalars = read_scalars(run)?;
    for torn in &scalars.torn_files {
        eprintln!(
            "warning: {} ends inside a record (a killed writer); its whole records are used",
            torn.display()
        );
    }
    let points = scalars.by_tag.get(tag).with_context(|| {
        format!(
            "{}: no scalar tag `{tag}`; it has {}",
            run.display(),
            scalars
                .by_tag
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    Ok(points.iter().map(|&(s, v)| (s as f64, v)).collect())
}

/// Columns `x` and `y` of a CSV file as points; a cell that is not a number is refused
/// naming its line and column.
pub fn csv_curve(file: &Path, x: &str, y: &str) -> anyhow::Result<Vec<(f64, f64)>> {
    let mut reader =
        csv::Reader::from_path(file).with_context(|| format!("opening {}", file.display()))?;
    let headers = reader
        .headers()
        .with_context(|| format!("{}: reading the header", file.display()))?
        .clone();
    let column = |name: &str| {
        headers.iter().position(|h| h == name).with_context(|| {
            format!(
                "{}: no column `{name}`; it has {}",
                file.display(),
                headers.iter().collect::<Vec<_>>().join(", ")
            )
        })
    };
    let (xi, yi) = (column(x)?, column(y)?);
    let mut points = Vec::new();
    for (k, record) in reader.records().enumerate() {
        let line = k + 2;
        let record = record.with_context(|| format!("{} line {line}", file.display()))?;
        let number = |i: usize, name: &str| -> anyhow::Result<f64> {
            let text = record.get(i).unwrap_or_default();
            text.parse().with_context(|| {
                format!(
                    "{} line {line}, column `{name}`: `{text}` is not a number",
                    file.display()
                )
            })
        };
        points.push((number(xi, x)?, number(yi, y)?));
    }
    Ok(points)
}

/// The metric's per-episode values per group, labelled by policy, plus the override set and
/// workload when the results hold more than one.
pub fn metric_groups(results_path: &Path, metric: &str) -> anyhow::Result<Vec<(String, Vec<f64>)>> {
    let results = read_results(results_path)?;
    let column = results
        .column(metric)
        .with_context(|| results_path.display().to_string())?;
    let several = |field: fn(&CellKey) -> &str| {
        results
            .keys
            .iter()
            .any(|k| field(k) != field(&results.keys[0]))
    };
    let (by_overrides, by_workload) = (several(|k| &k.overrides), several(|k| &k.workload));
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    for (key, value) in results.keys.iter().zip(column) {
        let mut label = key.policy.clone();
        if by_overrides {
            label += &format!(" [{}]", key.overrides);
        }
        if by_workload {
            label += &format!(" @{}", key.workload);
        }
        let Some(value) = value else { continue };
        match groups.iter_mut().find(|g| g.0 == label) {
            Some(group) => group.1.push(*value),
            None => groups.push((label, vec![*value])),
        }
    }
    anyhow::ensure!(
        !groups.is_empty(),
        "{}: `{metric}` has no values",
        results_path.display()
    );
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_curve_names_the_bad_cell() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("rounds.csv");
        std::fs::write(&file, "round,val_loss\n0,2.5\n1,oops\n").unwrap();
        let err = format!("{:#}", csv_curve(&file, "round", "val_loss").unwrap_err());
        assert!(err.contains("line 3") && err.contains("`oops`"), "{err}");
        let err = format!("{:#}", csv_curve(&file, "round", "loss").unwrap_err());
        assert!(
            err.contains("no column `loss`") && err.contains("val_loss"),
            "{err}"
        );
    }
}
