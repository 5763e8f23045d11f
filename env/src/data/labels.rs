//! Label encoding shared by both file formats, so train and validation files agree.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::Task;
use crate::error::{EnvError, Result};

/// Labels as read, with the file line of each row for error messages.
#[derive(Debug, Clone)]
pub struct RawLabels {
    pub path: PathBuf,
    pub values: Vec<String>,
    pub lines: Vec<usize>,
}

/// How raw label strings become numbers.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelEncoding {
    /// Sorted distinct values (numerically when all parse as numbers) become `0..k`.
    Classes(Vec<String>),
    Regression,
}

impl LabelEncoding {
    /// Learns the class list from the training labels.
    pub fn fit(task_is_classification: bool, raw: &RawLabels) -> Result<Self> {
        if !task_is_classification {
            return Ok(LabelEncoding::Regression);
        }
        let distinct: BTreeSet<&str> = raw.values.iter().map(String::as_str).collect();
        let mut classes: Vec<String> = distinct.into_iter().map(str::to_owned).collect();
        if classes.iter().all(|c| c.parse::<f64>().is_ok()) {
            classes.sort_by(|a, b| {
                a.parse::<f64>()
                    .unwrap()
                    .total_cmp(&b.parse::<f64>().unwrap())
            });
        }
        if classes.len() < 2 {
            return Err(EnvError::parse(
                &raw.path,
                raw.lines.first().copied().unwrap_or(1),
                "label",
                format!("classification needs at least 2 classes, found {classes:?}"),
            ));
        }
        Ok(LabelEncoding::Classes(classes))
    }

    pub fn task(&self) -> Task {
        match self {
            LabelEncoding::Classes(c) => Task::Classification { classes: c.len() },
            LabelEncoding::Regression => Task::Regression,
        }
    }

    pub fn encode(&self, raw: &RawLabels) -> Result<Vec<f32>> {
        raw.values
            .iter()
            .zip(&raw.lines)
            .map(|(v, &line)| match self {
                LabelEncoding::Classes(classes) => classes
                    .iter()
                    .position(|c| c == v)
                    .map(|k| k as f32)
                    .ok_or_else(|| {
                        EnvError::parse(
                            &raw.path,
                            line,
                            "label",
                            format!("class `{v}` is not among the training classes {classes:?}"),
                        )
                    }),
                LabelEncoding::Regression => v
                    .parse::<f32>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| {
                        EnvError::parse(&raw.path, line, "label", format!("`{v}` is not a number"))
                    }),
            })
            .collect()
    }
}
