//! `ewma`: an exponentially weighted moving average of the window, its smoothing factor
//! chosen on the training series (the one of a grid with the lowest mean absolute error).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::series::common_width;
use crate::{Predictor, Result, Series};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EwmaPredictor {
    /// Weight of the newest step.
    pub alpha: f32,
}

impl Default for EwmaPredictor {
    fn default() -> Self {
        EwmaPredictor { alpha: 0.5 }
    }
}

fn smooth(history: &[f32], features: usize, alpha: f32) -> Vec<f32> {
    let mut rows = history.chunks(features);
    let mut level = rows.next().expect("at least one row").to_vec();
    for row in rows {
        for (l, &x) in level.iter_mut().zip(row) {
            *l = alpha * x + (1.0 - alpha) * *l;
        }
    }
    level
}

impl Predictor for EwmaPredictor {
    fn name(&self) -> &'static str {
        "ewma"
    }

    fn fit(&mut self, series: &[Series]) -> Result<()> {
        common_width(series, "ewma")?;
        let error = |alpha: f32| -> f64 {
            let mut total = 0.0;
            for s in series {
                for t in 1..s.len() {
                    let p = smooth(s.history_before(t), s.features, alpha);
                    total += p
                        .iter()
                        .zip(s.row(t))
                        .map(|(p, y)| f64::from((p - y).abs()))
                        .sum::<f64>();
                }
            }
            total
        };
        let grid = (1..=19).map(|k| k as f32 * 0.05);
        self.alpha = grid
            .min_by(|a, b| error(*a).total_cmp(&error(*b)))
            .expect("a non-empty grid");
        Ok(())
    }

    fn predict(&self, history: &[f32], features: usize) -> Vec<f32> {
        let start = history.len().saturating_sub(crate::WINDOW * features);
        smooth(&history[start..], features, self.alpha)
    }

    fn save(&self, dir: &Path) -> Result<()> {
        crate::files::write_params(dir, self.name(), self)
    }
}
