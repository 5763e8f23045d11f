//! Models whose gradients the workers compute for real. Parameters are one flat `f32`
//! vector owned by the parameter server; each model documents its layout.

mod linear;
mod mlp;

pub use linear::{LinearLoss, LinearModel};
pub use mlp::Mlp;

use rand::rngs::StdRng;

use crate::data::Dataset;

/// A differentiable model over flat parameters.
pub trait Model: Send + Sync {
    fn name(&self) -> &str;
    fn num_params(&self) -> usize;
    fn init_params(&self, rng: &mut StdRng) -> Vec<f32>;
    /// Adds the *sum* over `rows` of per-sample data-loss gradients to `grad` and returns the
    /// summed data loss and, when `norms` is set, the sum of every sample's squared gradient
    /// norm, taken in the same pass (0 otherwise). Regularisation is separate
    /// ([`Model::add_l2`]).
    fn accumulate(
        &self,
        params: &[f32],
        data: &Dataset,
        rows: &[usize],
        grad: &mut [f32],
        norms: bool,
    ) -> (f64, f64);
    /// [`Model::accumulate`] without the norms: the summed data loss.
    fn accumulate_grad(
        &self,
        params: &[f32],
        data: &Dataset,
        rows: &[usize],
        grad: &mut [f32],
    ) -> f64 {
        self.accumulate(params, data, rows, grad, false).0
    }
    /// Mean data loss over every row of `data` (no regularisation): what target losses refer to.
    fn mean_loss(&self, params: &[f32], data: &Dataset) -> f64;
    /// Adds `l2 * w` for the weights (biases are not regularised).
    fn add_l2(&self, params: &[f32], l2: f32, grad: &mut [f32]);
}

/// The regularised mean loss `mean data loss + l2/2 |w|^2` on `rows`, with its gradient:
/// what a worker's minibatch step and the finite-difference tests both use.
pub fn batch_objective(
    model: &dyn Model,
    params: &[f32],
    data: &Dataset,
    rows: &[usize],
    l2: f32,
) -> (f64, Vec<f32>) {
    let mut grad = vec![0.0; params.len()];
    let loss = model.accumulate_grad(params, data, rows, &mut grad) / rows.len() as f64;
    let inv = 1.0 / rows.len() as f32;
    grad.iter_mut().for_each(|g| *g *= inv);
    let mut reg = vec![0.0; params.len()];
    model.add_l2(params, l2, &mut reg);
    let penalty: f64 = reg
        .iter()
        .zip(params)
        .map(|(r, p)| 0.5 * (*r as f64) * (*p as f64))
        .sum();
    grad.iter_mut().zip(&reg).for_each(|(g, r)| *g += r);
    (loss + penalty, grad)
}

#[cfg(test)]
mod norm_tests {
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    use super::*;
    use crate::data::{Features, Task};

    /// Every model's one-pass sum of squared per-sample gradient norms equals the sum of the
    /// norms of the gradients taken one sample at a time.
    #[test]
    fn per_sample_norms_match_one_sample_at_a_time() {
        use rand::RngExt;
        let mut rng = StdRng::seed_from_u64(4);
        let (n, d) = (9, 6);
        let values: Vec<f32> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let dense = Features::Dense {
            cols: d,
            values: values.clone(),
        };
        let sparse = Features::Sparse {
            cols: d,
            indptr: (0..=n).map(|r| r * d).collect(),
            indices: (0..n).flat_map(|_| 0..d as u32).collect(),
            values,
        };
        let cases: Vec<(Box<dyn Model>, Task)> = vec![
            (
                Box::new(
                    LinearModel::new(LinearLoss::Softmax, d, Task::Classification { classes: 3 })
                        .unwrap(),
                ),
                Task::Classification { classes: 3 },
            ),
            (
                Box::new(
                    LinearModel::new(LinearLoss::Hinge, d, Task::Classification { classes: 2 })
                        .unwrap(),
                ),
                Task::Classification { classes: 2 },
            ),
            (
                Box::new(
                    LinearModel::new(LinearLoss::Logistic, d, Task::Classification { classes: 2 })
                        .unwrap(),
                ),
                Task::Classification { classes: 2 },
            ),
            (
                Box::new(LinearModel::new(LinearLoss::Squared, d, Task::Regression).unwrap()),
                Task::Regression,
            ),
            (
                Box::new(Mlp::new(
                    d,
                    &[5, 4],
                    Task::Classification { classes: 3 },
                    burn::tensor::Device::flex(),
                )),
                Task::Classification { classes: 3 },
            ),
            (
                Box::new(Mlp::new(
                    d,
                    &[5],
                    Task::Regression,
                    burn::tensor::Device::flex(),
                )),
                Task::Regression,
            ),
        ];
        for (model, task) in cases {
            for features in [dense.clone(), sparse.clone()] {
                let labels = (0..n)
                    .map(|i| match task {
                        Task::Classification { classes } => (i % classes) as f32,
                        Task::Regression => i as f32 / n as f32 - 0.5,
                    })
                    .collect();
                let data = Dataset::new(features, labels, task);
                let params: Vec<f32> = (0..model.num_params())
                    .map(|_| rng.random_range(-0.5..0.5))
                    .collect();
                let rows: Vec<usize> = (0..n).collect();
                let mut grad = vec![0.0; params.len()];
                let (loss, norms) = model.accumulate(&params, &data, &rows, &mut grad, true);
                let (mut each_loss, mut each_norms) = (0.0, 0.0);
                let mut summed = vec![0.0f32; params.len()];
                for &r in &rows {
                    let mut g = vec![0.0; params.len()];
                    each_loss += model.accumulate_grad(&params, &data, &[r], &mut g);
                    each_norms += g.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>();
                    summed.iter_mut().zip(&g).for_each(|(s, v)| *s += v);
                }
                let name = model.name();
                assert!(
                    (loss - each_loss).abs() < 1e-4 * (1.0 + loss.abs()),
                    "{name}"
                );
                assert!(
                    (norms - each_norms).abs() < 1e-4 * (1.0 + norms),
                    "{name}: {norms} against {each_norms}"
                );
                for (a, b) in grad.iter().zip(&summed) {
                    assert!((a - b).abs() < 1e-4, "{name}");
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod gradcheck {
    use super::*;

    /// Compares the analytic gradient with central differences on the objective and returns
    /// the largest error relative to `max(1e-2, |g|)`. A parameter whose difference quotients
    /// at `eps` and `eps / 2` disagree sits at a kink (ReLU, hinge) and is skipped; at most a
    /// tenth of the checked parameters may be skipped.
    pub fn max_rel_error(
        model: &dyn Model,
        params: &[f32],
        data: &Dataset,
        rows: &[usize],
        l2: f32,
    ) -> f64 {
        let (_, grad) = batch_objective(model, params, data, rows, l2);
        let quotient = |j: usize, eps: f32| {
            let mut p = params.to_vec();
            p[j] = params[j] + eps;
            let (up, _) = batch_objective(model, &p, data, rows, l2);
            p[j] = params[j] - eps;
            let (down, _) = batch_objective(model, &p, data, rows, l2);
            (up - down) / (2.0 * eps as f64)
        };
        let (mut worst, mut checked, mut kinks) = (0.0f64, 0, 0);
        for j in (0..params.len()).step_by((params.len() / 60).max(1)) {
            let (coarse, fine) = (quotient(j, 1e-2), quotient(j, 5e-3));
            checked += 1;
            if (coarse - fine).abs() > 1e-2 * coarse.abs().max(1e-1) {
                kinks += 1;
                continue;
            }
            let err = (fine - grad[j] as f64).abs() / (grad[j].abs() as f64).max(1e-2);
            worst = worst.max(err);
        }
        assert!(
            kinks * 10 <= checked,
            "{kinks} of {checked} parameters sit at kinks"
        );
        worst
    }
}
