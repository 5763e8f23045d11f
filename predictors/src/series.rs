//! Usage series: time-ordered rows of a fixed number of features (e.g. CPU and memory usage of
//! one worker or one machine per round).

/// Steps of history a prediction looks at (the paper's 10 rounds).
pub const WINDOW: usize = 10;

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Where it came from, for reports (e.g. `episode 3 node 1`).
    pub name: String,
    pub features: usize,
    /// `[len, features]`, row-major.
    pub values: Vec<f32>,
}

impl Series {
    pub fn new(name: impl Into<String>, features: usize, values: Vec<f32>) -> Self {
        assert!(
            features > 0 && values.len().is_multiple_of(features),
            "whole rows"
        );
        Series {
            name: name.into(),
            features,
            values,
        }
    }

    pub fn len(&self) -> usize {
        self.values.len() / self.features
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    pub fn row(&self, t: usize) -> &[f32] {
        &self.values[t * self.features..(t + 1) * self.features]
    }

    /// The rows before `t` that a prediction of step `t` sees (at most [`WINDOW`]).
    pub fn history_before(&self, t: usize) -> &[f32] {
        let start = t.saturating_sub(WINDOW);
        &self.values[start * self.features..t * self.features]
    }

    /// The first `rows` rows.
    pub fn head(&self, rows: usize) -> Series {
        Series {
            name: self.name.clone(),
            features: self.features,
            values: self.values[..rows.min(self.len()) * self.features].to_vec(),
        }
    }
}

/// The shared width of `series`, or why there is none.
pub(crate) fn common_width(series: &[Series], predictor: &'static str) -> crate::Result<usize> {
    let data = |message: String| crate::PredictorError::Data { predictor, message };
    let first = series
        .iter()
        .find(|s| s.len() >= 2)
        .ok_or_else(|| data("no series with two or more steps".into()))?;
    match series.iter().find(|s| s.features != first.features) {
        Some(other) => Err(data(format!(
            "`{}` has {} features, `{}` {}",
            first.name, first.features, other.name, other.features
        ))),
        None => Ok(first.features),
    }
}

/// The last row of a history.
pub(crate) fn last_row(history: &[f32], features: usize) -> &[f32] {
    &history[history.len() - features..]
}
