//! `greedy`: each node gets, per resource, the smallest level that covers what it used in
//! the last round.

use schedlab_env::Observation;

use crate::context::EnvContext;
use crate::context::SingleJobContext;
use crate::options::{Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "greedy",
    kinds: &[EnvKind::SingleJob],
    help: "per node and resource, the smallest level covering last round's use",
    options: &[],
    build,
};

fn build(ctx: &EnvContext, _options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(GreedyPolicy::new(
        SingleJobContext::part_of(ctx).clone(),
    )))
}

/// Covers each node's last observed demand (used CPU, memory and GPU) with the smallest
/// feasible container level. A node that ran no container last round has shown no demand, so
/// it gets the middle level, as `static` would, to be observed.
pub struct GreedyPolicy {
    ctx: SingleJobContext,
}

impl GreedyPolicy {
    pub fn new(ctx: SingleJobContext) -> Self {
        GreedyPolicy { ctx }
    }
}

impl Policy for GreedyPolicy {
    fn name(&self) -> &str {
        "greedy"
    }

    fn reset(&mut self, _seed: u64) {}

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        (0..self.ctx.nodes())
            .flat_map(|n| {
                let last = self.ctx.last_round(observation, n);
                let ran = last[3] > 0.0 && last[4] > 0.0;
                (0..3).map(move |r| (n, r, ran, last[r], last[3 + r]))
            })
            .map(|(n, r, ran, used, allocated)| {
                let dim = self.ctx.dim(n, r);
                match (ran, r) {
                    (false, _) => self.ctx.middle_feasible(observation, dim),
                    // a GPU the worker held but left idle is no demand; one it never had shows none
                    (true, 2) if allocated == 0.0 => 0,
                    (true, _) => self.ctx.covering_level(observation, dim, used),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StaticPolicy;
    use crate::single_job::test_envs::real::small_env;

    #[test]
    fn greedy_covers_the_last_rounds_use_with_the_smallest_feasible_level() {
        let mut env = small_env();
        let ctx = SingleJobContext::of(&env);
        let mut greedy = GreedyPolicy::new(ctx.clone());
        let (obs, _) = env.reset(2).unwrap();
        // nothing observed yet: the static allocation
        assert_eq!(greedy.act(&obs), StaticPolicy::new(ctx.clone()).act(&obs));
        let step = env.step(&greedy.act(&obs)).unwrap();
        let action = greedy.act(&step.observation);
        for n in 0..ctx.nodes() {
            let last = ctx.last_round(&step.observation, n);
            for r in 0..2 {
                let (level, sizes) = (action[ctx.dim(n, r)], &ctx.level_sizes[r]);
                let mask = step.observation.mask_of(&ctx.action_space, ctx.dim(n, r));
                let covering: Vec<usize> = (1..mask.len())
                    .filter(|&l| mask[l] && sizes[l] >= last[r])
                    .collect();
                match covering.first() {
                    Some(&smallest) => {
                        assert_eq!(level, smallest, "node {n} resource {r} used {}", last[r])
                    }
                    None => assert_eq!(level, (0..mask.len()).rev().find(|&l| mask[l]).unwrap()),
                }
            }
        }
    }
}
