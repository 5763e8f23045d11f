//! Running a policy through whole episodes.

use schedlab_env::{ClusterEnv, EpisodeMetrics, Result, Step};

use crate::policy::Policy;

/// Plays one episode from `reset(seed)` to its end and returns its metrics.
pub fn run_episode(
    env: &mut ClusterEnv,
    policy: &mut dyn Policy,
    seed: u64,
) -> Result<EpisodeMetrics> {
    run_episode_observed(env, policy, seed, |_| {})
}

/// [`run_episode`], handing every step to `observe` as it happens.
pub fn run_episode_observed(
    env: &mut ClusterEnv,
    policy: &mut dyn Policy,
    seed: u64,
    mut observe: impl FnMut(&Step),
) -> Result<EpisodeMetrics> {
    let (mut observation, _) = env.reset(seed)?;
    policy.reset(seed);
    loop {
        let action = policy.act(&observation);
        let step = env.step(&action)?;
        observe(&step);
        if let Some(metrics) = step.info.metrics {
            return Ok(metrics);
        }
        observation = step.observation;
    }
}
