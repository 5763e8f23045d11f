//! CPOP (Topcuoglu, Hariri and Wu 2002): priority `rank_u + rank_d`; the tasks of the
//! critical path all go to the one GPU that runs them fastest in total, every other task to
//! its GPU of least earliest finish time (insertion), ready tasks by highest priority.

use schedlab_env::dag::{
    Builder, Problem, Schedule, downward_rank, priority_order, same_priority, upward_rank,
};

use super::plan::{ListScheduler, plan_policy, row};
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = row(
    "cpop",
    "CPOP: critical-path tasks on the critical-path GPU, others by least EFT",
    &[],
    |ctx, _| plan_policy(ctx, "cpop", cpop as ListScheduler),
);

pub fn cpop(problem: &Problem) -> Schedule {
    let (up, down) = (upward_rank(problem), downward_rank(problem));
    let priority: Vec<f64> = up.iter().zip(&down).map(|(u, d)| u + d).collect();
    // the path of highest priority from the entry of highest priority to an exit
    let entry = (0..problem.len())
        .filter(|&t| problem.preds(t).is_empty())
        .max_by(|&a, &b| priority[a].total_cmp(&priority[b]).then(b.cmp(&a)))
        .expect("a DAG has an entry task");
    let length = priority[entry];
    let mut critical = vec![false; problem.len()];
    let mut at = entry;
    loop {
        critical[at] = true;
        match problem
            .succs(at)
            .iter()
            .map(|&(s, _)| s)
            .find(|&s| same_priority(priority[s], length))
        {
            Some(next) => at = next,
            None => break,
        }
    }
    let path_gpu = (0..problem.gpus())
        .map(|g| {
            let total: f64 = (0..problem.len())
                .filter(|&t| critical[t])
                .map(|t| problem.exec_s(t, g))
                .sum();
            (total, g)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("a platform has GPUs")
        .1;
    let mut builder = Builder::new(problem);
    for t in priority_order(problem, &priority) {
        let g = if critical[t] && problem.fits(t, path_gpu) {
            path_gpu
        } else {
            builder.best_gpu(problem, t)
        };
        builder.place(problem, t, g);
    }
    builder.into_schedule()
}
