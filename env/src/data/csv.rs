//! CSV with a header row: the label column is chosen by name, every other column not
//! dropped must be numeric.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::open::open_csv;
use super::{Features, RawLabels};
use crate::error::{EnvError, Result};

/// What to do with a missing value (`NA`, `NaN`, `N/A`, `null` or an empty field).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NaPolicy {
    /// Refuse the file, naming the line and column.
    #[default]
    Error,
    /// Drop the row; the count is reported.
    DropRow,
    /// Keep the row; a missing feature is later replaced by its training-part mean.
    /// A missing label still drops the row.
    ImputeMean,
}

fn is_na(field: &str) -> bool {
    matches!(field.trim(), "" | "NA" | "NaN" | "nan" | "N/A" | "null")
}

/// The label's column and the feature columns (every other one not dropped); a missing label
/// or dropped column is refused by name.
fn columns(
    path: &Path,
    header: &csv::StringRecord,
    label: &str,
    drop_columns: &[String],
) -> Result<(usize, Vec<usize>)> {
    let label_col = header.iter().position(|h| h == label).ok_or_else(|| {
        EnvError::parse(
            path,
            1,
            label,
            format!(
                "no label column `{label}`; columns are {:?}",
                header.iter().collect::<Vec<_>>()
            ),
        )
    })?;
    if let Some(d) = drop_columns
        .iter()
        .find(|d| !header.iter().any(|h| h == *d))
    {
        return Err(EnvError::parse(
            path,
            1,
            d,
            "drop_columns names a column that does not exist",
        ));
    }
    let feature_cols = (0..header.len())
        .filter(|&c| c != label_col && !drop_columns.iter().any(|d| d == &header[c]))
        .collect();
    Ok((label_col, feature_cols))
}

/// A finite number in `column` of `line`, or an error naming both.
fn number(path: &Path, line: usize, column: &str, field: &str) -> Result<f32> {
    let v: f32 = field
        .trim()
        .parse()
        .map_err(|_| EnvError::parse(path, line, column, format!("`{field}` is not a number")))?;
    if !v.is_finite() {
        return Err(EnvError::parse(
            path,
            line,
            column,
            format!("`{field}` is not finite"),
        ));
    }
    Ok(v)
}

/// Loaded features (missing values as NaN under `ImputeMean`), raw labels, and how many
/// rows were dropped for missing values.
pub fn load_csv(
    path: &Path,
    label: &str,
    drop_columns: &[String],
    na: NaPolicy,
) -> Result<(Features, RawLabels, usize)> {
    let (mut reader, header) = open_csv(path)?;
    let (label_col, feature_cols) = columns(path, &header, label, drop_columns)?;
    let cols = feature_cols.len();
    let mut values = Vec::new();
    let mut labels = RawLabels {
        path: path.to_owned(),
        values: Vec::new(),
        lines: Vec::new(),
    };
    let mut dropped = 0;
    let mut row_buf = Vec::with_capacity(cols);
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let record = record.map_err(|e| EnvError::parse(path, line, "record", e.to_string()))?;
        if record.len() != header.len() {
            return Err(EnvError::parse(
                path,
                line,
                "record",
                format!("{} fields, the header has {}", record.len(), header.len()),
            ));
        }
        let label_value = record[label_col].trim();
        let mut missing = is_na(label_value);
        row_buf.clear();
        for &c in &feature_cols {
            let field = &record[c];
            if is_na(field) {
                missing |= na != NaPolicy::ImputeMean;
                row_buf.push(f32::NAN);
                continue;
            }
            row_buf.push(number(path, line, &header[c], field)?);
        }
        if missing {
            if na == NaPolicy::Error {
                let col = if is_na(label_value) {
                    label_col
                } else {
                    feature_cols
                        .iter()
                        .copied()
                        .find(|&c| is_na(&record[c]))
                        .unwrap_or(label_col)
                };
                return Err(EnvError::parse(
                    path,
                    line,
                    &header[col],
                    "missing value (set `na = \"drop_row\"` or `\"impute_mean\"` to accept)",
                ));
            }
            dropped += 1;
            continue;
        }
        values.extend_from_slice(&row_buf);
        labels.values.push(label_value.to_owned());
        labels.lines.push(line);
    }
    if labels.values.is_empty() {
        return Err(EnvError::parse(path, 2, "record", "no usable rows"));
    }
    Ok((Features::Dense { cols, values }, labels, dropped))
}
