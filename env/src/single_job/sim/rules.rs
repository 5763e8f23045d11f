//! The rules the simulated server (`engine.rs`) and the real one (`env/src/real/single_job/`)
//! share: HB-ASGD's hierarchical batch and resource-adequate learning rate, and which training
//! rows a worker samples.

use serde::{Deserialize, Serialize};

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
/// allocation's (square-root scaling, as for a larger aggregate batch). Tight allocations lower
/// the step; ample ones raise it only as far as the bounds allow, which by default is not at
/// all (`default_lr_bounds` in `schema.rs`). The other optimisers keep factor 1.
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

/// The training rows a worker samples: every `of`-th row from `index`. The running workers
/// split the rows between them and the split is re-cut whenever that set changes, as elastic
/// data-parallel training re-partitions its data at every rescale (torch elastic's
/// `ElasticDistributedSampler` takes the current replica count and rank). A shard per node
/// instead would leave the rows of every node without a container untrained, and on a
/// 4,000-row dataset an allocation of two nodes then cannot reach the target (docs/single-job.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub of: usize,
}

impl Shard {
    /// Worker `worker`'s shard among the workers `running` flags (in worker order; it must be
    /// one of them).
    pub fn among_running(running: impl Iterator<Item = bool>, worker: usize) -> Shard {
        let (index, of) = running.enumerate().fold((0, 0), |(index, of), (w, runs)| {
            (
                index + usize::from(runs && w < worker),
                of + usize::from(runs),
            )
        });
        Shard {
            index,
            of: of.max(1),
        }
    }

    /// Rows in the shard, of `rows` training rows (the scenario refuses fewer rows than nodes,
    /// so no shard of running workers is empty).
    pub fn len(&self, rows: usize) -> usize {
        (rows - self.index).div_ceil(self.of)
    }

    /// The shard's `k`-th training row.
    pub fn row(&self, k: usize) -> usize {
        self.index + self.of * k
    }
}
