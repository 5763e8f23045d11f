//! Max-min: among the ready tasks, place the one whose least earliest finish time is
//! largest first (long tasks early), on that GPU.

use super::min_min::max_min;
use super::plan::{ListScheduler, plan_policy, row};
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = row(
    "max-min",
    "max-min: the ready task of largest least-EFT first, on its best GPU",
    &[],
    |ctx, _| plan_policy(ctx, "max-min", max_min as ListScheduler),
);
