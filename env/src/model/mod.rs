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
    /// summed data loss. Regularisation is separate ([`Model::add_l2`]).
    fn accumulate_grad(
        &self,
        params: &[f32],
        data: &Dataset,
        rows: &[usize],
        grad: &mut [f32],
    ) -> f64;
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
