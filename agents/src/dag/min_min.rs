//! Min-min (Braun et al. 2001, on DAGs by ready sets): among the ready tasks, place the
//! one whose least earliest finish time is smallest, on that GPU; repeat.

use schedlab_env::dag::{Builder, Problem, Schedule};

use super::plan::{ListScheduler, plan_policy, row};
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = row(
    "min-min",
    "min-min: the ready task of smallest least-EFT first, on its best GPU",
    &[],
    |ctx, _| plan_policy(ctx, "min-min", min_min as ListScheduler),
);

pub fn min_min(problem: &Problem) -> Schedule {
    batch_mode(problem, false)
}

pub fn max_min(problem: &Problem) -> Schedule {
    batch_mode(problem, true)
}

/// Min-min (`largest_first = false`) or max-min (`true`) over ready sets.
fn batch_mode(problem: &Problem, largest_first: bool) -> Schedule {
    let n = problem.len();
    let mut waiting: Vec<usize> = (0..n).map(|t| problem.preds(t).len()).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&t| waiting[t] == 0).collect();
    let mut builder = Builder::new(problem);
    while !ready.is_empty() {
        let best: Vec<(f64, usize)> = ready
            .iter()
            .map(|&t| {
                let g = builder.best_gpu(problem, t);
                (builder.eft_s(problem, t, g), g)
            })
            .collect();
        let pick = (0..ready.len())
            .reduce(|a, b| {
                let (x, y) = (best[a].0, best[b].0);
                let better = if largest_first { y > x } else { y < x };
                if better { b } else { a }
            })
            .expect("ready is not empty");
        let t = ready.swap_remove(pick);
        builder.place(problem, t, best[pick].1);
        for &(s, _) in problem.succs(t) {
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready.push(s);
            }
        }
    }
    builder.into_schedule()
}
