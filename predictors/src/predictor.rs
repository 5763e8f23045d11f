//! What every demand predictor offers: fitting on series, predicting the next step, saving.

use std::path::Path;

use crate::error::Result;
use crate::series::Series;

/// A demand predictor ([`WINDOW`](crate::WINDOW) rows of history in, the next row out).
pub trait Predictor: Send + Sync {
    fn name(&self) -> &'static str;
    /// Fits on whole series (all of each is training data).
    fn fit(&mut self, series: &[Series]) -> Result<()>;
    /// The next step of a series from its history: time-ordered rows of `features` values,
    /// at least one row; only the last [`WINDOW`] rows are used.
    fn predict(&self, history: &[f32], features: usize) -> Vec<f32>;
    /// Writes what `load` needs into `dir` (files named after the predictor).
    fn save(&self, dir: &Path) -> Result<()>;
}
