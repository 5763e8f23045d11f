//! HB-ASGD's two resource rules, shared by the simulated server (`engine.rs`) and the real
//! one (`env/src/real/single_job/`): the hierarchical batch and the resource-adequate learning rate.

use crate::cluster::{Amounts, NodeSpec};
use crate::single_job::schema::{JobSpec, OptimizerKind};

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
/// running containers' nominal rate ([`nominal_rate`], `rates`) over the reference
/// allocation's. Ample allocations raise the step, tight ones lower it (square-root scaling,
/// as for a larger aggregate batch). The other optimisers keep factor 1.
///
/// The paper says only that the rate rises when resources are sufficient and falls when they
/// are tight (Ji et al. 2025, section 3.3). The rule reads the resources allocated, not the
/// speed the cluster model gives them (Amdahl's law, GPU saturation, interference): it is the
/// training algorithm's, which knows what it was given, so the simulator, a calibrated
/// simulator and real execution set the same step for the same allocation.
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

/// A container's compute rate as allocated, GFLOP/s: `speed (cpu cpu_gflops_per_core + gpus
/// gpu_gflops)`, without Amdahl's law, GPU saturation or interference.
pub fn nominal_rate(node: &NodeSpec, alloc: &Amounts) -> f64 {
    node.speed * (alloc[0] * node.cpu_gflops_per_core + alloc[2] * node.gpu_gflops)
}
