//! LIBSVM / svmlight: `label idx:val idx:val ...` with 1-based, increasing indices.

use std::io::{BufRead, BufReader};
use std::path::Path;

use super::open::open_text;
use super::{Features, RawLabels};
use crate::error::{EnvError, Result};

/// Reads a sparse file. `cols` fixes the width (a test file may not use the last feature);
/// without it the width is the largest index seen. An index beyond `cols` is an error.
pub fn load_libsvm(path: &Path, cols: Option<usize>) -> Result<(Features, RawLabels)> {
    let reader = BufReader::new(open_text(path)?);
    let mut indptr = vec![0];
    let (mut indices, mut values) = (Vec::new(), Vec::new());
    let mut labels = RawLabels {
        path: path.to_owned(),
        values: Vec::new(),
        lines: Vec::new(),
    };
    let mut widest = 0usize;
    for (i, line) in reader.lines().enumerate() {
        let line_no = i + 1;
        let text = line.map_err(|e| EnvError::parse(path, line_no, "line", e.to_string()))?;
        let text = text.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            continue;
        }
        let mut parts = text.split_ascii_whitespace();
        let label = parts.next().unwrap_or_default();
        if label.parse::<f64>().is_err() {
            return Err(EnvError::parse(
                path,
                line_no,
                "label",
                format!("`{label}` is not a number"),
            ));
        }
        let mut previous = 0usize;
        for (k, pair) in parts.enumerate() {
            let field = format!("pair {} (`{pair}`)", k + 1);
            let (idx, val) = pair
                .split_once(':')
                .ok_or_else(|| EnvError::parse(path, line_no, &field, "expected `index:value`"))?;
            let idx: usize = idx.parse().map_err(|_| {
                EnvError::parse(path, line_no, &field, "index is not a positive integer")
            })?;
            let val: f32 = val
                .parse()
                .map_err(|_| EnvError::parse(path, line_no, &field, "value is not a number"))?;
            if idx == 0 {
                return Err(EnvError::parse(
                    path,
                    line_no,
                    &field,
                    "indices are 1-based; 0 is not allowed",
                ));
            }
            if idx <= previous {
                return Err(EnvError::parse(
                    path,
                    line_no,
                    &field,
                    "indices must be strictly increasing",
                ));
            }
            if let Some(c) = cols.filter(|&c| idx > c) {
                return Err(EnvError::parse(
                    path,
                    line_no,
                    &field,
                    format!("index {idx} exceeds the declared {c} features"),
                ));
            }
            if !val.is_finite() {
                return Err(EnvError::parse(
                    path,
                    line_no,
                    &field,
                    "value is not finite",
                ));
            }
            previous = idx;
            widest = widest.max(idx);
            indices.push((idx - 1) as u32);
            values.push(val);
        }
        indptr.push(indices.len());
        labels.values.push(label.to_owned());
        labels.lines.push(line_no);
    }
    if labels.values.is_empty() {
        return Err(EnvError::parse(path, 1, "line", "no rows"));
    }
    let cols = cols.unwrap_or(widest);
    Ok((
        Features::Sparse {
            cols,
            indptr,
            indices,
            values,
        },
        labels,
    ))
}
