//! `random`: a uniformly random feasible level per dimension, from a seeded stream.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use schedlab_env::Observation;

use crate::context::{EnvContext, PolicyContext};
use crate::options::{Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "random",
    kinds: &EnvKind::ALL,
    help: "a uniformly random allowed level per dimension, from the episode's seed",
    options: &[],
    build,
};

fn build(ctx: &EnvContext, _options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(RandomPolicy::new(ctx.common().clone())))
}

pub struct RandomPolicy {
    ctx: PolicyContext,
    rng: StdRng,
}

impl RandomPolicy {
    pub fn new(ctx: PolicyContext) -> Self {
        RandomPolicy {
            ctx,
            rng: StdRng::seed_from_u64(0),
        }
    }
}

impl Policy for RandomPolicy {
    fn name(&self) -> &str {
        "random"
    }

    fn reset(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed ^ 0x5eed_5eed);
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let space = &self.ctx.action_space;
        (0..space.dims())
            .map(|d| {
                *observation
                    .allowed(space, d)
                    .choose(&mut self.rng)
                    .expect("level 0 is always feasible")
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::single_job::test_envs::fixtures::context_and_observation;

    #[test]
    fn random_only_picks_feasible_levels_and_is_seeded() {
        let (ctx, obs) = context_and_observation();
        let space = ctx.action_space.clone();
        let mut policy = RandomPolicy::new(ctx.common.clone());
        policy.reset(4);
        let first: Vec<Vec<usize>> = (0..200).map(|_| policy.act(&obs)).collect();
        for action in &first {
            for (d, &level) in action.iter().enumerate() {
                assert!(
                    obs.mask_of(&space, d)[level],
                    "dimension {d} level {level} is masked"
                );
            }
        }
        // every feasible level of node 0's CPU shows up
        assert!((0..5).all(|l| first.iter().any(|a| a[0] == l)));
        policy.reset(4);
        let again: Vec<Vec<usize>> = (0..200).map(|_| policy.act(&obs)).collect();
        assert_eq!(first, again);
    }
}
