//! PEFT (Arabnejad and Barbosa 2014): ready tasks by the mean of their optimistic cost
//! table row, each on the GPU minimising earliest finish plus optimistic remaining cost.

use schedlab_env::dag::{Builder, Problem, Schedule, optimistic_cost_table, priority_order};

use super::plan::{ListScheduler, plan_policy, row};
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = row(
    "peft",
    "PEFT: optimistic-cost-table rank, least EFT plus optimistic cost",
    &[],
    |ctx, _| plan_policy(ctx, "peft", peft as ListScheduler),
);

pub fn peft(problem: &Problem) -> Schedule {
    let (n, p) = (problem.len(), problem.gpus());
    let oct = optimistic_cost_table(problem);
    let rank: Vec<f64> = (0..n)
        .map(|t| oct[t * p..(t + 1) * p].iter().sum::<f64>() / p as f64)
        .collect();
    let mut builder = Builder::new(problem);
    for t in priority_order(problem, &rank) {
        let g = (0..p)
            .map(|g| (builder.eft_s(problem, t, g) + oct[t * p + g], g))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .expect("a platform has GPUs")
            .1;
        builder.place(problem, t, g);
    }
    builder.into_schedule()
}
