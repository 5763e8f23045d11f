//! Max-min: among the ready tasks, place the one whose least earliest finish time is
//! largest first (long tasks early), on that GPU.

use super::dag_context;
use super::min_min::BatchMode;
use super::plan::PlanPolicy;
use crate::policy::EnvKind;
use crate::registry::SchedulerRow;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "max-min",
    kinds: &[EnvKind::Dag],
    help: "max-min: the ready task of largest least-EFT first, on its best GPU",
    options: &[],
    build: |ctx, _| {
        let ctx = dag_context(ctx);
        Ok(Box::new(PlanPolicy::new(
            "max-min",
            ctx.workload.clone(),
            Box::new(BatchMode {
                largest_first: true,
            }),
        )))
    },
};
