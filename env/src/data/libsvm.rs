//! LIBSVM / svmlight: `label idx:val idx:val ...` with 1-based, increasing indices.

use std::io::{BufRead, BufReader};
use std::path::Path;

use super::open::open_text;
use super::{Features, RawLabels};
use crate::error::{EnvError, Result};

/// The 1-based index and value of pair `k` of line `line_no`, after the index `previous`.
fn entry(
    path: &Path,
    line_no: usize,
    (k, pair): (usize, &str),
    previous: usize,
    cols: Option<usize>,
) -> Result<(usize, f32)> {
    let field = format!("pair {} (`{pair}`)", k + 1);
    let refuse = |message: String| Err(EnvError::parse(path, line_no, &field, message));
    let Some((idx, val)) = pair.split_once(':') else {
        return refuse("expected `index:value`".into());
    };
    let Ok(idx) = idx.parse::<usize>() else {
        return refuse("index is not a positive integer".into());
    };
    let Ok(val) = val.parse::<f32>() else {
        return refuse("value is not a number".into());
    };
    if idx == 0 {
        return refuse("indices are 1-based; 0 is not allowed".into());
    }
    if idx <= previous {
        return refuse("indices must be strictly increasing".into());
    }
    if let Some(c) = cols.filter(|&c| idx > c) {
        return refuse(format!("index {idx} exceeds the declared {c} features"));
    }
    if !val.is_finite() {
        return refuse("value is not finite".into());
    }
    Ok((idx, val))
}

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
            let (idx, val) = entry(path, line_no, (k, pair), previous, cols)?;
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
