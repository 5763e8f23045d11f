//! `ar`: an autoregressive model per feature, `y_t = c + sum_k a_k y_{t-k}` over the last
//! `order` steps, fitted by least squares (normal equations, a tiny ridge for stability).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::series::common_width;
use crate::{Predictor, PredictorError, Result, Series};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArPredictor {
    pub order: usize,
    /// Per feature: `[c, a_1, ..., a_order]` (`a_1` weighs the newest step).
    pub coefficients: Vec<Vec<f64>>,
}

impl Default for ArPredictor {
    fn default() -> Self {
        ArPredictor {
            order: 3,
            coefficients: Vec::new(),
        }
    }
}

/// `[1, y_{t-1}, ..., y_{t-order}]` of feature `f`, repeating the oldest row when the history
/// is shorter than the order.
fn regressors(history: &[f32], features: usize, f: usize, order: usize) -> Vec<f64> {
    let rows = history.len() / features;
    std::iter::once(1.0)
        .chain((1..=order).map(|k| {
            let row = rows.saturating_sub(k);
            f64::from(history[row * features + f])
        }))
        .collect()
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting (`a` is small and
/// symmetric positive definite here).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .expect("rows left");
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..n {
            let factor = a[row][col] / a[col][col];
            let pivot_row = a[col].clone();
            for (x, p) in a[row].iter_mut().zip(&pivot_row).skip(col) {
                *x -= factor * p;
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let tail: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row][row];
    }
    x
}

impl Predictor for ArPredictor {
    fn name(&self) -> &'static str {
        "ar"
    }

    fn fit(&mut self, series: &[Series]) -> Result<()> {
        let features = common_width(series, "ar")?;
        let n = self.order + 1;
        self.coefficients = (0..features)
            .map(|f| {
                let mut xtx = vec![vec![0.0; n]; n];
                let mut xty = vec![0.0; n];
                // full histories only: padded ones are not the process
                for s in series {
                    for t in self.order.max(1)..s.len() {
                        let x = regressors(s.history_before(t), features, f, self.order);
                        let y = f64::from(s.row(t)[f]);
                        for i in 0..n {
                            xty[i] += x[i] * y;
                            for j in 0..n {
                                xtx[i][j] += x[i] * x[j];
                            }
                        }
                    }
                }
                let scale = (0..n).map(|i| xtx[i][i]).fold(0.0, f64::max).max(1.0);
                for (i, row) in xtx.iter_mut().enumerate() {
                    row[i] += 1e-9 * scale;
                }
                solve(xtx, xty)
            })
            .collect();
        if self.coefficients.iter().flatten().any(|c| !c.is_finite()) {
            return Err(PredictorError::Data {
                predictor: "ar",
                message: "least squares gave non-finite coefficients".into(),
            });
        }
        Ok(())
    }

    fn predict(&self, history: &[f32], features: usize) -> Vec<f32> {
        assert_eq!(self.coefficients.len(), features, "fitted for other series");
        self.coefficients
            .iter()
            .enumerate()
            .map(|(f, c)| {
                let x = regressors(history, features, f, self.order);
                x.iter().zip(c).map(|(x, c)| x * c).sum::<f64>() as f32
            })
            .collect()
    }

    fn save(&self, dir: &Path) -> Result<()> {
        crate::files::write_params(dir, self.name(), self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_squares_recovers_the_coefficients_of_a_noiseless_ar2_process() {
        // y_t = 0.1 + 0.6 y_{t-1} + 0.3 y_{t-2}, two features with different starts
        let mut values = vec![0.5f32, 0.2, 0.7, 0.9];
        for t in 2..60 {
            for f in 0..2 {
                let y = 0.1 + 0.6 * values[(t - 1) * 2 + f] + 0.3 * values[(t - 2) * 2 + f];
                values.push(y);
            }
        }
        let series = [Series::new("ar2", 2, values)];
        let mut ar = ArPredictor {
            order: 2,
            ..Default::default()
        };
        ar.fit(&series).unwrap();
        for c in &ar.coefficients {
            for (got, want) in c.iter().zip([0.1, 0.6, 0.3]) {
                assert!((got - want).abs() < 1e-3, "{c:?}");
            }
        }
        let s = &series[0];
        let p = ar.predict(s.history_before(40), 2);
        assert!((p[0] - s.row(40)[0]).abs() < 1e-4 && (p[1] - s.row(40)[1]).abs() < 1e-4);
    }
}
