//! Running a policy through whole episodes of any environment.

use schedlab_env::{Environment, Result, Step, StepInfo};

use crate::policy::Policy;

/// Plays one episode from `reset(seed)` to its end and returns its metrics.
pub fn run_episode<E: Environment>(
    env: &mut E,
    policy: &mut dyn Policy,
    seed: u64,
) -> Result<E::Metrics> {
    run_episode_observed(env, policy, seed, |_, _| {})
}

/// [`run_episode`], handing every step to `observe` as it happens.
pub fn run_episode_observed<E: Environment>(
    env: &mut E,
    policy: &mut dyn Policy,
    seed: u64,
    mut observe: impl FnMut(&[usize], &Step<E::Info>),
) -> Result<E::Metrics> {
    let (mut observation, _) = env.reset(seed)?;
    policy.reset(seed);
    loop {
        let action = policy.act(&observation);
        let step = env.step(&action)?;
        observe(&action, &step);
        if let Some(metrics) = step.info.metrics() {
            return Ok(metrics.clone());
        }
        observation = step.observation;
    }
}
