//! `static`: the same container on every node for the whole episode (Kubeflow-like).

use schedlab_env::Observation;

use crate::context::EnvContext;
use crate::context::SingleJobContext;
use crate::options::{Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "static",
    kinds: &[EnvKind::SingleJob],
    help: "every node the ladder's middle container for the whole episode (Kubeflow-like)",
    options: &[],
    build,
};

fn build(ctx: &EnvContext, _options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(StaticPolicy::new(
        SingleJobContext::part_of(ctx).clone(),
    )))
}

/// Gives every node the ladder's middle level of each resource, or the largest level below it
/// that the node can take (so a node without GPUs gets no GPU).
pub struct StaticPolicy {
    ctx: SingleJobContext,
}

impl StaticPolicy {
    pub fn new(ctx: SingleJobContext) -> Self {
        StaticPolicy { ctx }
    }
}

impl Policy for StaticPolicy {
    fn name(&self) -> &str {
        "static"
    }

    fn reset(&mut self, _seed: u64) {}

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        (0..self.ctx.action_space.dims())
            .map(|d| self.ctx.middle_feasible(observation, d))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::single_job::test_envs::fixtures::context_and_observation;

    #[test]
    fn static_takes_the_middle_level_or_the_largest_feasible_below_it() {
        let (ctx, obs) = context_and_observation();
        let mut policy = StaticPolicy::new(ctx);
        // 4 CPU sizes -> level 2; 2 memory sizes -> level 1; 2 GPU sizes -> level 1 (none on node 1)
        assert_eq!(policy.act(&obs), vec![2, 1, 1, 2, 1, 0]);
    }
}
