//! Result tables: the journal's rows as Parquet and CSV (polars), and reading them back.

use std::path::Path;

use anyhow::Context;
use polars::prelude::*;

use super::journal::Row;
use super::spec::CellKey;
use crate::output::write_atomic;

pub const PARQUET: &str = "results.parquet";
pub const CSV: &str = "results.csv";

/// The columns before the metrics.
const COORDINATES: [&str; 4] = ["policy", "workload", "overrides", "seed"];

/// Rows as a table: the coordinates, then every metric any row has (in first-seen order; null
/// where a row's env has no such metric).
fn frame(rows: &[Row]) -> anyhow::Result<DataFrame> {
    let mut names: Vec<&str> = Vec::new();
    for row in rows {
        for (name, _) in &row.metrics {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let text = |f: fn(&CellKey) -> &str| -> Vec<&str> { rows.iter().map(|r| f(&r.key)).collect() };
    let mut columns = vec![
        Column::new(COORDINATES[0].into(), text(|k| &k.policy)),
        Column::new(COORDINATES[1].into(), text(|k| &k.workload)),
        Column::new(COORDINATES[2].into(), text(|k| &k.overrides)),
        Column::new(
            COORDINATES[3].into(),
            rows.iter().map(|r| r.key.seed).collect::<Vec<u64>>(),
        ),
    ];
    for name in names {
        let values: Vec<Option<f64>> = rows
            .iter()
            .map(|r| r.metrics.iter().find(|(n, _)| n == name).map(|m| m.1))
            .collect();
        columns.push(Column::new(name.into(), values));
    }
    Ok(DataFrame::new(rows.len(), columns)?)
}

/// Writes `results.parquet` and `results.csv` into `dir`, each atomically.
pub fn write_results(dir: &Path, rows: &[Row]) -> anyhow::Result<()> {
    let mut df = frame(rows)?;
    let mut parquet = Vec::new();
    ParquetWriter::new(&mut parquet).finish(&mut df)?;
    write_atomic(&dir.join(PARQUET), &parquet)?;
    let mut csv = Vec::new();
    CsvWriter::new(&mut csv).finish(&mut df)?;
    write_atomic(&dir.join(CSV), &csv)
}

/// A results file read back: coordinates per row and each metric column.
pub struct Results {
    pub keys: Vec<CellKey>,
    pub metrics: Vec<(String, Vec<Option<f64>>)>,
}

impl Results {
    /// A metric's column, one value per row (`None` where the row lacks it).
    pub fn column(&self, metric: &str) -> anyhow::Result<&[Option<f64>]> {
        self.metrics
            .iter()
            .find(|(n, _)| n == metric)
            .map(|(_, v)| v.as_slice())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "no metric `{metric}` in the results; they have: {}",
                    self.metrics
                        .iter()
                        .map(|m| m.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}

/// Reads a results table: a sweep folder (its `results.parquet`), or a `.parquet` or `.csv`
/// file.
pub fn read_results(path: &Path) -> anyhow::Result<Results> {
    let file = if path.is_dir() {
        path.join(PARQUET)
    } else {
        path.to_owned()
    };
    let df = if file.extension().is_some_and(|e| e == "csv") {
        CsvReadOptions::default()
            .with_has_header(true)
            .try_into_reader_with_file_path(Some(file.clone()))?
            .finish()
    } else {
        let f =
            std::fs::File::open(&file).with_context(|| format!("opening {}", file.display()))?;
        ParquetReader::new(f).finish()
    }
    .map_err(|e| anyhow::anyhow!("reading {}: {e}", file.display()))?;
    let column = |name: &str| {
        df.column(name)
            .map_err(|_| anyhow::anyhow!("{}: no column `{name}`", file.display()))
    };
    let text = |name: &str| -> anyhow::Result<Vec<String>> {
        let c = column(name)?.cast(&DataType::String)?;
        Ok(c.str()?
            .iter()
            .map(|v| v.unwrap_or_default().to_owned())
            .collect())
    };
    let (policy, workload, overrides) = (text("policy")?, text("workload")?, text("overrides")?);
    let seeds = column("seed")?.cast(&DataType::UInt64)?;
    let seeds: Vec<u64> = seeds
        .u64()?
        .iter()
        .enumerate()
        .map(|(row, s)| s.with_context(|| format!("{} row {row}: no seed", file.display())))
        .collect::<anyhow::Result<_>>()?;
    let keys = (0..df.height())
        .map(|k| CellKey {
            policy: policy[k].clone(),
            workload: workload[k].clone(),
            overrides: overrides[k].clone(),
            seed: seeds[k],
        })
        .collect();
    let mut metrics = Vec::new();
    for c in df.columns() {
        let name = c.name().as_str();
        if COORDINATES.contains(&name) {
            continue;
        }
        let values = c.cast(&DataType::Float64).map_err(|e| {
            anyhow::anyhow!("{}: column `{name}` is not numeric: {e}", file.display())
        })?;
        metrics.push((name.to_owned(), values.f64()?.iter().collect()));
    }
    Ok(Results { keys, metrics })
}
