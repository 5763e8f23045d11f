//! Finite-difference checks of the models' analytic gradients, for their tests.

use super::{Model, batch_objective};
use crate::data::Dataset;

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
