//! Evaluation episodes during training: the current agent acting greedily on fixed seeds, so
//! successive evaluations are comparable points of one curve.

use std::sync::Arc;

use rayon::prelude::*;
use schedlab_agents::{Policy, run_episode};
use schedlab_env::{ClusterEnv, EpisodeMetrics, Scenario};

/// Plays one episode per seed, in parallel, each with its own env and policy.
pub fn evaluate(
    scenario: &Arc<Scenario>,
    policies: Vec<Box<dyn Policy>>,
    seeds: &[u64],
) -> schedlab_env::Result<Vec<EpisodeMetrics>> {
    policies
        .into_par_iter()
        .zip(seeds.par_iter())
        .map(|(mut policy, &seed)| {
            run_episode(
                &mut ClusterEnv::new(scenario.clone()),
                policy.as_mut(),
                seed,
            )
        })
        .collect()
}

/// Means of the metrics the `eval/*` curves show, by tag.
pub fn eval_scalars(metrics: &[EpisodeMetrics]) -> Vec<(&'static str, f32)> {
    let mean = |f: fn(&EpisodeMetrics) -> f64| {
        (metrics.iter().map(f).sum::<f64>() / metrics.len().max(1) as f64) as f32
    };
    vec![
        ("eval/episodic_return", mean(|m| m.episode_return)),
        ("eval/completion_time_s", mean(|m| m.completion_time_s)),
        ("eval/idle_cost", mean(|m| m.idle_cost)),
        ("eval/gpu_util", mean(|m| m.gpu_util)),
    ]
}
