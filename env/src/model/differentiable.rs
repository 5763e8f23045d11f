//! What every model is to the workers and the server: a differentiable function of one flat
//! parameter vector ([`Model`]), and the regularised minibatch objective they step on.

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
