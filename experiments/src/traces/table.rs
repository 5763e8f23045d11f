//! CSV files read with polars as text columns, so every bad value is reported with its file,
//! line and column; and the Parquet job table of jobs workloads, written here and read by
//! `schedlab_artifacts::read_job_table`.

use std::fmt;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use anyhow::Context;
use polars::prelude::*;
use schedlab_env::jobs::JobRecord;

/// A bad value at a place in a file. `line` counts the header as line 1.
#[derive(Debug, Clone, PartialEq)]
pub struct RowError {
    pub path: PathBuf,
    pub line: usize,
    pub column: String,
    /// A short reason, the same for every row with this problem (what `--lenient` counts).
    pub reason: &'static str,
    pub message: String,
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: line {}: column `{}`: {}: {}",
            self.path.display(),
            self.line,
            self.column,
            self.reason,
            self.message
        )
    }
}

impl std::error::Error for RowError {}

/// A CSV file held as text columns.
pub struct TextTable {
    pub path: PathBuf,
    frame: DataFrame,
}

impl TextTable {
    /// Reads a CSV file (gzip-compressed when the name ends in `.gz`) with a header line.
    pub fn read(path: &Path) -> anyhow::Result<TextTable> {
        // the env's reader of text files: gzip by name, and capped at a quarter of the
        // memory limit (the text and its table of strings take some four times its size)
        let mut bytes = Vec::new();
        schedlab_env::data::open_text(path)?
            .read_to_end(&mut bytes)
            .with_context(|| format!("reading {} (or import a shorter slice)", path.display()))?;
        let mut frame = CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(0))
            .into_reader_with_file_handle(Cursor::new(bytes))
            .finish()
            .map_err(anyhow::Error::from)
            .with_context(|| format!("parsing {} as CSV", path.display()))?;
        // one chunk per column keeps cell lookups O(1)
        frame.rechunk_mut();
        Ok(TextTable {
            path: path.to_owned(),
            frame,
        })
    }

    pub fn rows(&self) -> usize {
        self.frame.height()
    }

    /// Refuses a file lacking any of `columns`, naming what it has instead.
    pub fn require(&self, columns: &[&str]) -> anyhow::Result<()> {
        let present: Vec<String> = self
            .frame
            .get_column_names()
            .iter()
            .map(|c| c.to_string())
            .collect();
        let missing: Vec<&str> = columns
            .iter()
            .copied()
            .filter(|c| !present.iter().any(|p| p == c))
            .collect();
        anyhow::ensure!(
            missing.is_empty(),
            "{}: missing column(s) {}; the file has: {}",
            self.path.display(),
            missing
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", "),
            present.join(", ")
        );
        Ok(())
    }

    /// A complaint about a cell: a short `reason` and the detail.
    pub fn invalid(
        &self,
        row: usize,
        column: &str,
        reason: &'static str,
        message: impl Into<String>,
    ) -> RowError {
        RowError {
            path: self.path.clone(),
            line: row + 2,
            column: column.to_owned(),
            reason,
            message: message.into(),
        }
    }

    /// The text of a cell; `None` when empty. The column must have been `require`d.
    pub fn text(&self, row: usize, column: &str) -> Option<&str> {
        self.frame
            .column(column)
            .ok()
            .and_then(|c| c.str().ok())
            .and_then(|s| s.get(row))
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// A finite number, refusing empty and non-numeric cells.
    pub fn number(&self, row: usize, column: &str) -> Result<f64, RowError> {
        self.optional_number(row, column)?
            .ok_or_else(|| self.invalid(row, column, "empty", "a number is needed"))
    }

    /// A finite number, or `None` for an empty cell.
    pub fn optional_number(&self, row: usize, column: &str) -> Result<Option<f64>, RowError> {
        let Some(text) = self.text(row, column) else {
            return Ok(None);
        };
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(self.invalid(row, column, "not a number", format!("{text:?}"))),
        }
    }

    /// A number that is a non-negative whole number.
    pub fn count(&self, row: usize, column: &str) -> Result<u32, RowError> {
        let v = self.number(row, column)?;
        if v < 0.0 || v.fract() != 0.0 || v > u32::MAX as f64 {
            return Err(self.invalid(row, column, "not a whole number >= 0", format!("{v}")));
        }
        Ok(v as u32)
    }
}

const JOB_COLUMNS: [&str; 9] = [
    "id",
    "arrival_s",
    "duration_s",
    "workers",
    "cpu_milli",
    "mem_mib",
    "gpu_milli",
    "template",
    "after",
];

/// Writes jobs as a Parquet table (`after` as space-separated ids).
pub fn write_jobs_parquet(jobs: &[JobRecord]) -> anyhow::Result<Vec<u8>> {
    let strings = |f: fn(&JobRecord) -> String| -> Vec<String> { jobs.iter().map(f).collect() };
    let numbers = |f: fn(&JobRecord) -> u32| -> Vec<u32> { jobs.iter().map(f).collect() };
    let reals = |f: fn(&JobRecord) -> f64| -> Vec<f64> { jobs.iter().map(f).collect() };
    let mut columns = vec![
        Column::new(JOB_COLUMNS[0].into(), strings(|j| j.id.clone())),
        Column::new(JOB_COLUMNS[1].into(), reals(|j| j.arrival_s)),
        Column::new(JOB_COLUMNS[2].into(), reals(|j| j.duration_s)),
        Column::new(JOB_COLUMNS[3].into(), numbers(|j| j.workers)),
        Column::new(JOB_COLUMNS[4].into(), numbers(|j| j.cpu_milli)),
        Column::new(JOB_COLUMNS[5].into(), numbers(|j| j.mem_mib)),
        Column::new(JOB_COLUMNS[6].into(), numbers(|j| j.gpu_milli)),
        Column::new(JOB_COLUMNS[7].into(), strings(|j| j.template.clone())),
        Column::new(JOB_COLUMNS[8].into(), strings(|j| j.after.join(" "))),
    ];
    // only where some job names them, so tables of workloads without them stay as they were
    if jobs.iter().any(|j| j.tenant.is_some()) {
        columns.push(Column::new(
            "tenant".into(),
            strings(|j| j.tenant.clone().unwrap_or_default()),
        ));
    }
    if jobs.iter().any(|j| !j.gpu_models.is_empty()) {
        columns.push(Column::new(
            "gpu_models".into(),
            strings(|j| j.gpu_models.join(" ")),
        ));
    }
    let mut frame = DataFrame::new(jobs.len(), columns)?;
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes).finish(&mut frame)?;
    Ok(bytes)
}
