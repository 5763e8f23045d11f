//! Round robin: the env's tasks in turn on the next GPU (in index order) that holds them.

use schedlab_env::dag::{Problem, env_order};

use super::plan::{Planner, plan_policy, row};
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = row(
    "round-robin",
    "each task in the env's order on the next GPU in turn that holds it",
    &[],
    |ctx, _| plan_policy(ctx, "round-robin", RoundRobin),
);

struct RoundRobin;

impl Planner for RoundRobin {
    fn plan(&mut self, problem: &Problem, _seed: u64) -> Vec<usize> {
        let p = problem.gpus();
        let mut next = 0;
        let mut plan = vec![0; problem.len()];
        for t in env_order(problem) {
            let g = (0..p)
                .map(|k| (next + k) % p)
                .find(|&g| problem.fits(t, g))
                .expect("a task fits a GPU");
            plan[t] = g;
            next = (g + 1) % p;
        }
        plan
    }
}
