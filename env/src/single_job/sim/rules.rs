//! HB-ASGD's two resource rules, shared by the simulated server (`engine.rs`) and the real
//! one (`single_job/real/`): the hierarchical batch and the resource-adequate learning rate.

use crate::single_job::workload::{JobSpec, OptimizerKind};

/// `m_i(t) = floor(m_base * T_avg / T_i(t-1))` for HB-ASGD (Ji et al. 2025, eq. 17), `m_base`
/// otherwise; clamped to `[1, max_batch]`. `own` is the worker's last compute time scaled to
/// the base batch, `running` those of every running worker that has one.
pub fn next_batch(
    job: &JobSpec,
    own: Option<f64>,
    running: impl Iterator<Item = f64>,
    max_batch: usize,
) -> usize {
    let mut batch = job.base_batch;
    if job.optimizer == OptimizerKind::HbAsgd
        && let Some(own) = own
    {
        let (sum, count) = running.fold((0.0, 0), |(sum, n), t| (sum + t, n + 1));
        let average = sum / count as f64;
        batch = (job.base_batch as f64 * average / own).floor() as usize;
    }
    batch.clamp(1, max_batch.max(1))
}

/// HB-ASGD's learning-rate factor: `sqrt(rho)` clipped to `lr_factor_bounds`, with `rho` the
/// running workers' compute rate at the base batch (`rates`) over the reference allocation's.
/// Ample allocations raise the step, tight ones lower it (square-root scaling, as for a
/// larger aggregate batch). The other optimisers keep factor 1.
pub fn adequacy_factor(
    job: &JobSpec,
    rates: impl Iterator<Item = f64>,
    reference_rate: f64,
) -> f64 {
    if job.optimizer != OptimizerKind::HbAsgd {
        return 1.0;
    }
    let rate: f64 = rates.sum();
    let (lo, hi) = job.lr_factor_bounds;
    (rate / reference_rate.max(1e-12)).sqrt().clamp(lo, hi)
}
