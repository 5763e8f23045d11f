//! A model template's speed-up curve fitted from real runs of a single-job workload
//! (`schedlab templates fit`): one real episode per worker count and size, and the least
//! squares fit of `T(n, s) = C / S(n * s^k)`, `S(x) = x / (1 + sigma (x - 1))`, on `ln T`.

use schedlab_env::jobs::trained;
use schedlab_env::jobs::{MAX_CONTENTION, speedup};
use schedlab_env::{Scenario, SingleJobEnv};

/// One real run's configuration and outcome.
#[derive(Debug, Clone)]
pub struct Run {
    pub workers: usize,
    pub size: f64,
    pub time_s: f64,
    pub reached: bool,
    /// `[cpu, mem, gpu]` used / allocated resource-seconds (1 for a resource never allocated).
    pub utilisation: [f64; 3],
}

/// Least squares on `ln T` over a grid; returns `(sigma, kappa, C, rmse)`.
pub fn fit(runs: &[&Run]) -> (f64, f64, f64, f64) {
    let mut best = (0.0, 0.0, 1.0, f64::INFINITY);
    for si in 0..=(MAX_CONTENTION * 100.0) as usize {
        for ki in 0..=150 {
            let (sigma, kappa) = (si as f64 / 100.0, ki as f64 / 100.0);
            // ln T = ln C - ln S: ln C is the mean residual
            let residual: Vec<f64> = runs
                .iter()
                .map(|r| r.time_s.ln() + speedup(sigma, kappa, r.workers as f64, r.size).ln())
                .collect();
            let ln_c = residual.iter().sum::<f64>() / residual.len() as f64;
            let rmse = (residual.iter().map(|v| (v - ln_c).powi(2)).sum::<f64>()
                / residual.len() as f64)
                .sqrt();
            if rmse < best.3 - 1e-12 {
                best = (sigma, kappa, ln_c.exp(), rmse);
            }
        }
    }
    best
}

/// One real episode: `workers` containers on like nodes, the primary resource `offset`
/// ladder levels from the middle.
pub fn real_run(
    scenario: &std::sync::Arc<Scenario>,
    workers: usize,
    offset: i32,
    seed: u64,
) -> anyhow::Result<Run> {
    let mut env = SingleJobEnv::new(scenario.clone());
    let (levels, size) = trained::template_levels(scenario, offset);
    let (mut observation, _) = env.reset(seed)?;
    let round_s = scenario.workload.episode.round_interval_s;
    let (mut used, mut allocated) = ([0.0; 3], [0.0; 3]);
    loop {
        let step = env.step(&trained::action_for(&env, &observation, workers, levels))?;
        for (w, a) in step.info.workers.iter().zip(&step.info.allocation) {
            used[0] += w.cpu_used_s;
            used[1] += w.mem_used_gb_s;
            used[2] += w.gpu_used_s;
            (0..3).for_each(|r| allocated[r] += a[r] * round_s);
        }
        if let Some(m) = step.info.metrics {
            let utilisation = std::array::from_fn(|r| {
                if allocated[r] > 0.0 {
                    used[r] / allocated[r]
                } else {
                    1.0
                }
            });
            return Ok(Run {
                workers,
                size,
                time_s: m.completion_time_s,
                reached: m.target_reached,
                utilisation,
            });
        }
        observation = step.observation;
    }
}
