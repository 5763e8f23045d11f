//! HEFT (Topcuoglu, Hariri and Wu 2002): tasks by upward rank, each on the GPU of least
//! earliest finish time with insertion. Its order is the env's, so its plan replays exactly.

use schedlab_env::dag::{Builder, Problem, Schedule, env_order};

use super::plan::{ListScheduler, plan_policy, row};
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = row(
    "heft",
    "HEFT: upward-rank order, least earliest finish time with insertion",
    &[],
    |ctx, _| plan_policy(ctx, "heft", heft as ListScheduler),
);

pub fn heft(problem: &Problem) -> Schedule {
    let mut builder = Builder::new(problem);
    for t in env_order(problem) {
        let g = builder.best_gpu(problem, t);
        builder.place(problem, t, g);
    }
    builder.into_schedule()
}
