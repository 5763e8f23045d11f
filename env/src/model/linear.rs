//! Linear models on dense or sparse rows: softmax regression, binary logistic regression,
//! linear SVM (hinge) and ridge regression. Layout: `W` (outputs x cols, row-major) then `b`.

use rand::rngs::StdRng;

use super::Model;
use crate::data::{Dataset, Task};

/// The per-sample loss on the linear outputs `z = W x + b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinearLoss {
    /// Multinomial cross-entropy over `classes` outputs.
    Softmax,
    /// Binary cross-entropy on one logit; label 1 is the positive class.
    Logistic,
    /// Hinge `max(0, 1 - s z)` with `s = +1` for class 1 and `-1` for class 0.
    Hinge,
    /// Squared error `(z - y)^2 / 2`.
    Squared,
}

#[derive(Debug, Clone)]
pub struct LinearModel {
    loss: LinearLoss,
    cols: usize,
    outputs: usize,
    name: String,
}

impl LinearModel {
    /// `None` when the loss does not fit the task (say, hinge on ten classes).
    pub fn new(loss: LinearLoss, cols: usize, task: Task) -> Option<Self> {
        let (outputs, name) = match (loss, task) {
            (LinearLoss::Softmax, Task::Classification { classes }) => (classes, "softmax"),
            (LinearLoss::Logistic, Task::Classification { classes: 2 }) => (1, "logistic"),
            (LinearLoss::Hinge, Task::Classification { classes: 2 }) => (1, "svm"),
            (LinearLoss::Squared, Task::Regression) => (1, "ridge"),
            _ => return None,
        };
        Some(LinearModel {
            loss,
            cols,
            outputs,
            name: name.into(),
        })
    }

    /// Accuracy on a classification data set, R² on a regression one.
    pub fn score(&self, params: &[f32], data: &Dataset) -> f64 {
        let mut z = vec![0.0f32; self.outputs];
        let rows = data.len() as f64;
        if self.loss == LinearLoss::Squared {
            let mean = data.labels.iter().map(|&y| f64::from(y)).sum::<f64>() / rows;
            let (mut residual, mut spread) = (0.0, 0.0);
            for i in 0..data.len() {
                self.outputs_for(params, data, i, &mut z);
                let y = f64::from(data.labels[i]);
                residual += (f64::from(z[0]) - y).powi(2);
                spread += (y - mean).powi(2);
            }
            return 1.0 - residual / spread.max(f64::MIN_POSITIVE);
        }
        let correct = (0..data.len())
            .filter(|&i| {
                self.outputs_for(params, data, i, &mut z);
                let predicted = if self.outputs == 1 {
                    usize::from(z[0] > 0.0)
                } else {
                    (0..z.len())
                        .max_by(|&a, &b| z[a].total_cmp(&z[b]))
                        .unwrap_or(0)
                };
                predicted == data.labels[i] as usize
            })
            .count();
        correct as f64 / rows
    }

    /// Returns one sample's loss on its outputs `z`; with `WITH_DZ`, also overwrites `z` with
    /// `dloss/dz` (validation wants the loss alone: the same arithmetic, less of it).
    #[inline(always)]
    fn sample_loss<const WITH_DZ: bool>(&self, z: &mut [f32], label: f32) -> f64 {
        match self.loss {
            LinearLoss::Softmax => {
                let y = label as usize;
                let max = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let mut sum = 0.0f32;
                for v in z.iter_mut() {
                    *v = (*v - max).exp();
                    sum += *v;
                }
                let loss = (sum.ln() - z[y].ln()) as f64;
                if WITH_DZ {
                    let inv = 1.0 / sum;
                    z.iter_mut().for_each(|v| *v *= inv);
                    z[y] -= 1.0;
                }
                loss
            }
            LinearLoss::Logistic => {
                let x = z[0];
                // softplus(x) - y x, stable for both signs
                let loss = (x.max(0.0) + (-x.abs()).exp().ln_1p() - label * x) as f64;
                if WITH_DZ {
                    z[0] = 1.0 / (1.0 + (-x).exp()) - label;
                }
                loss
            }
            LinearLoss::Hinge => {
                let s = 2.0 * label - 1.0;
                let margin = 1.0 - s * z[0];
                if WITH_DZ {
                    z[0] = if margin > 0.0 { -s } else { 0.0 };
                }
                margin.max(0.0) as f64
            }
            LinearLoss::Squared => {
                let r = z[0] - label;
                if WITH_DZ {
                    z[0] = r;
                }
                0.5 * (r as f64) * (r as f64)
            }
        }
    }

    #[inline(always)]
    fn outputs_for(&self, params: &[f32], data: &Dataset, i: usize, z: &mut [f32]) {
        let row = data.features.row(i);
        let bias = &params[self.outputs * self.cols..];
        for (k, zk) in z.iter_mut().enumerate() {
            *zk = row.dot(&params[k * self.cols..(k + 1) * self.cols]) + bias[k];
        }
    }
}

impl Model for LinearModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn num_params(&self) -> usize {
        self.outputs * (self.cols + 1)
    }

    /// Zeros: the objectives are convex, so a zero start is standard and seed-free.
    fn init_params(&self, _rng: &mut StdRng) -> Vec<f32> {
        vec![0.0; self.num_params()]
    }

    fn accumulate(
        &self,
        params: &[f32],
        data: &Dataset,
        rows: &[usize],
        grad: &mut [f32],
        norms: bool,
    ) -> (f64, f64) {
        let mut z = vec![0.0f32; self.outputs];
        let (mut loss, mut squared_norms) = (0.0, 0.0);
        let (weights, bias) = grad.split_at_mut(self.outputs * self.cols);
        for &i in rows {
            self.outputs_for(params, data, i, &mut z);
            loss += self.sample_loss::<true>(&mut z, data.labels[i]);
            let row = data.features.row(i);
            for (k, &dz) in z.iter().enumerate() {
                if dz != 0.0 {
                    row.add_scaled_to(dz, &mut weights[k * self.cols..(k + 1) * self.cols]);
                    bias[k] += dz;
                }
            }
            if norms {
                // a sample's gradient is dz x (x, 1): its norm factors
                let dz_sq: f64 = z.iter().map(|&d| f64::from(d) * f64::from(d)).sum();
                if dz_sq > 0.0 {
                    squared_norms += dz_sq * (f64::from(data.squared_norm(i)) + 1.0);
                }
            }
        }
        (loss, squared_norms)
    }

    fn mean_loss(&self, params: &[f32], data: &Dataset) -> f64 {
        let mut z = vec![0.0f32; self.outputs];
        let total: f64 = (0..data.len())
            .map(|i| {
                self.outputs_for(params, data, i, &mut z);
                self.sample_loss::<false>(&mut z, data.labels[i])
            })
            .sum();
        total / data.len().max(1) as f64
    }

    fn add_l2(&self, params: &[f32], l2: f32, grad: &mut [f32]) {
        let w = self.outputs * self.cols;
        grad[..w]
            .iter_mut()
            .zip(&params[..w])
            .for_each(|(g, p)| *g += l2 * p);
    }
}

#[cfg(test)]
mod tests {
    use rand::{RngExt, SeedableRng};

    use super::*;
    use crate::data::Features;
    use crate::model::gradcheck::max_rel_error;

    /// A small random problem, dense or sparse, with labels fitting the task.
    fn problem(sparse: bool, task: Task, seed: u64) -> Dataset {
        let mut rng = StdRng::seed_from_u64(seed);
        let (n, d) = (12, 7);
        let dense: Vec<f32> = (0..n * d)
            .map(|_| {
                if rng.random_bool(0.4) {
                    rng.random_range(-2.0..2.0)
                } else {
                    0.0
                }
            })
            .collect();
        let labels = (0..n)
            .map(|_| match task {
                Task::Classification { classes } => rng.random_range(0..classes) as f32,
                Task::Regression => rng.random_range(-1.0..1.0),
            })
            .collect();
        let features = if sparse {
            let mut indptr = vec![0];
            let (mut indices, mut values) = (vec![], vec![]);
            for r in 0..n {
                for c in 0..d {
                    if dense[r * d + c] != 0.0 {
                        indices.push(c as u32);
                        values.push(dense[r * d + c]);
                    }
                }
                indptr.push(indices.len());
            }
            Features::Sparse {
                cols: d,
                indptr,
                indices,
                values,
            }
        } else {
            Features::Dense {
                cols: d,
                values: dense,
            }
        };
        Dataset::new(features, labels, task)
    }

    /// Every loss with a task it fits.
    fn every_loss() -> [(LinearLoss, Task); 4] {
        [
            (LinearLoss::Softmax, Task::Classification { classes: 4 }),
            (LinearLoss::Logistic, Task::Classification { classes: 2 }),
            (LinearLoss::Hinge, Task::Classification { classes: 2 }),
            (LinearLoss::Squared, Task::Regression),
        ]
    }

    fn random_params(n: usize, seed: u64) -> Vec<f32> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n).map(|_| rng.random_range(-0.5..0.5)).collect()
    }

    #[test]
    fn every_linear_gradient_matches_finite_differences_dense_and_sparse() {
        for (loss, task) in every_loss() {
            for sparse in [false, true] {
                let data = problem(sparse, task, 7);
                let model = LinearModel::new(loss, data.features.cols(), task).unwrap();
                let params = random_params(model.num_params(), 3);
                let rows: Vec<usize> = (0..data.len()).collect();
                let err = max_rel_error(&model, &params, &data, &rows, 0.1);
                assert!(err < 2e-2, "{loss:?} sparse={sparse}: relative error {err}");
            }
        }
    }

    /// Validation's loss-only path sums exactly what the gradient pass's losses sum.
    #[test]
    fn the_mean_loss_is_the_gradient_pass_loss_over_the_rows() {
        for (loss, task) in every_loss() {
            let data = problem(true, task, 13);
            let model = LinearModel::new(loss, data.features.cols(), task).unwrap();
            let params = random_params(model.num_params(), 9);
            let rows: Vec<usize> = (0..data.len()).collect();
            let mut grad = vec![0.0; params.len()];
            let summed = model.accumulate_grad(&params, &data, &rows, &mut grad);
            let mean = model.mean_loss(&params, &data);
            assert_eq!(
                (summed / data.len() as f64).to_bits(),
                mean.to_bits(),
                "{loss:?}"
            );
        }
    }

    #[test]
    fn dense_and_sparse_inputs_give_the_same_gradient() {
        let task = Task::Classification { classes: 3 };
        let (dense, sparse) = (problem(false, task, 11), problem(true, task, 11));
        let model = LinearModel::new(LinearLoss::Softmax, 7, task).unwrap();
        let params = random_params(model.num_params(), 5);
        let rows: Vec<usize> = (0..dense.len()).collect();
        let (mut g1, mut g2) = (vec![0.0; params.len()], vec![0.0; params.len()]);
        let l1 = model.accumulate_grad(&params, &dense, &rows, &mut g1);
        let l2 = model.accumulate_grad(&params, &sparse, &rows, &mut g2);
        assert!((l1 - l2).abs() < 1e-4);
        for (a, b) in g1.iter().zip(&g2) {
            assert!((a - b).abs() < 1e-5);
        }
    }

    #[test]
    fn losses_that_do_not_fit_the_task_are_refused() {
        assert!(
            LinearModel::new(LinearLoss::Hinge, 3, Task::Classification { classes: 10 }).is_none()
        );
        assert!(
            LinearModel::new(LinearLoss::Squared, 3, Task::Classification { classes: 2 }).is_none()
        );
        assert!(LinearModel::new(LinearLoss::Softmax, 3, Task::Regression).is_none());
    }
}
