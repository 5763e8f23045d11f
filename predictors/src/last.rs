//! `last`: tomorrow looks like today. The baseline every predictor must beat.

use std::path::Path;

use crate::series::last_row;
use crate::{Predictor, Result, Series};

#[derive(Debug, Clone, Default)]
pub struct LastPredictor;

impl Predictor for LastPredictor {
    fn name(&self) -> &'static str {
        "last"
    }

    fn fit(&mut self, _series: &[Series]) -> Result<()> {
        Ok(())
    }

    fn predict(&self, history: &[f32], features: usize) -> Vec<f32> {
        last_row(history, features).to_vec()
    }

    fn save(&self, dir: &Path) -> Result<()> {
        crate::files::write_params(dir, self.name(), &serde_json::json!({}))
    }
}
