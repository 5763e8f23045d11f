//! Round robin: the env's tasks in turn on the next GPU (in index order) that holds them.

use schedlab_env::dag::{Problem, env_order};

use super::dag_context;
use super::plan::{PlanPolicy, Planner};
use crate::policy::EnvKind;
use crate::registry::SchedulerRow;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "round-robin",
    kinds: &[EnvKind::Dag],
    help: "each task in the env's order on the next GPU in turn that holds it",
    options: &[],
    build: |ctx, _| {
        let ctx = dag_context(ctx);
        Ok(Box::new(PlanPolicy::new(
            "round-robin",
            ctx.workload.clone(),
            Box::new(RoundRobin),
        )))
    },
};

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
