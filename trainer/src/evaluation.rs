//! Evaluation episodes during training: the current agent acting greedily on fixed seeds, so
//! successive evaluations are comparable points of one curve.

use rayon::prelude::*;
use schedlab_agents::{Policy, run_episode};
use schedlab_env::{Environment, EpisodeSummary};

/// Plays one episode per seed, in parallel, each with its own fresh copy of `prototype` and
/// its own policy.
pub fn evaluate<E: Environment>(
    prototype: &E,
    policies: Vec<Box<dyn Policy>>,
    seeds: &[u64],
) -> schedlab_env::Result<Vec<E::Metrics>> {
    let envs: Vec<E> = seeds.iter().map(|_| prototype.fresh_copy()).collect();
    envs.into_par_iter()
        .zip(policies)
        .zip(seeds.par_iter())
        .map(|((mut env, mut policy), &seed)| run_episode(&mut env, policy.as_mut(), seed))
        .collect()
}

/// The mean of each of the episodes' curves, by curve name (objective first).
pub fn curve_means<M: EpisodeSummary>(metrics: &[M]) -> Vec<(&'static str, f64)> {
    let mut sums: Vec<(&'static str, f64)> = Vec::new();
    for m in metrics {
        for (k, (name, value)) in m.curves().into_iter().enumerate() {
            match sums.get_mut(k) {
                Some(sum) => sum.1 += value,
                None => sums.push((name, value)),
            }
        }
    }
    let n = metrics.len().max(1) as f64;
    sums.into_iter()
        .map(|(name, sum)| (name, sum / n))
        .collect()
}

/// [`curve_means`] as `eval/NAME` tags.
pub fn eval_scalars<M: EpisodeSummary>(metrics: &[M]) -> Vec<(String, f32)> {
    curve_means(metrics)
        .into_iter()
        .map(|(name, mean)| (format!("eval/{name}"), mean as f32))
        .collect()
}
