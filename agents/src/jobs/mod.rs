//! Schedulers for the multi-job cluster ([`schedlab_env::jobs::JobsEnv`]), behind the same
//! [`Policy`](crate::Policy) trait: they read the window of queued and running jobs from the
//! observation and answer, per slot, `[workers level, size level, placement]`.

mod ordering;
mod periodic;
mod pollux;
mod raes;
pub mod registry;
mod view;

pub use ordering::{Order, OrderingPolicy};
pub use periodic::OptimusPolicy;
pub use pollux::PolluxPolicy;
pub use raes::JobsRaesPolicy;
pub use view::{JobsContext, SlotView};

use schedlab_env::Result;
use schedlab_env::jobs::{JobsEnv, JobsMetrics};

use crate::Policy;

/// Plays one episode of `policy` on `env` from `seed` to its end.
pub fn run_jobs_episode(
    env: &mut JobsEnv,
    policy: &mut dyn Policy,
    seed: u64,
) -> Result<JobsMetrics> {
    policy.reset(seed);
    let (mut observation, _) = env.reset(seed)?;
    loop {
        let action = policy.act(&observation);
        let step = env.step(&action)?;
        if let Some(metrics) = step.info.metrics {
            return Ok(metrics);
        }
        observation = step.observation;
    }
}
