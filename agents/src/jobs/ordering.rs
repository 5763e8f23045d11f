//! Queue-ordering schedulers at the requested allocation: FIFO, shortest-job-first, and
//! Tiresias-like least-attained-service with preemption; each with best-fit or worst-fit
//! placement. `static` (Kubeflow-like) is FIFO with backfilling that never rescales.

use schedlab_env::Observation;

use schedlab_env::jobs::observe::{FIELD_PLACEMENT, FIELD_WORKERS};

use super::placement::PLACEMENT;

use crate::context::EnvContext;
use crate::context::{JobsContext, SlotView};
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::{BuildFn, SchedulerRow};
use schedlab_env::EnvKind;

const fn backfill(default: &'static str) -> OptionSpec {
    OptionSpec {
        key: "backfill",
        kind: OptionType::Bool,
        default,
        help: "start later jobs when the first in order does not fit",
    }
}

const fn row(
    name: &'static str,
    help: &'static str,
    options: &'static [OptionSpec],
    build: BuildFn,
) -> SchedulerRow {
    SchedulerRow {
        name,
        kinds: &[EnvKind::Jobs],
        help,
        options,
        build,
    }
}

pub const FIFO: SchedulerRow = row(
    "fifo",
    "arrival order at the requested allocation (strict unless backfill=true)",
    &[PLACEMENT, backfill("false")],
    |ctx, o| ordering(ctx, "fifo", Order::Fifo, o.flag("backfill"), o),
);
pub const SJF: SchedulerRow = row(
    "sjf",
    "shortest remaining time first (the trace's duration: an oracle)",
    &[PLACEMENT, backfill("true")],
    |ctx, o| ordering(ctx, "sjf", Order::Sjf, o.flag("backfill"), o),
);
pub const LAS: SchedulerRow = row(
    "las",
    "Tiresias-like least attained service, preempting worse queues",
    &[PLACEMENT, backfill("true")],
    |ctx, o| ordering(ctx, "las", Order::Las, o.flag("backfill"), o),
);
pub const STATIC: SchedulerRow = row(
    "static",
    "Kubeflow-like: FIFO with backfilling at the requested allocation, never rescaled",
    &[PLACEMENT],
    |ctx, o| ordering(ctx, "static", Order::Fifo, true, o),
);

fn ordering(
    ctx: &EnvContext,
    name: &str,
    order: Order,
    backfill: bool,
    options: &Options,
) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(OrderingPolicy::new(
        name,
        JobsContext::part_of(ctx).clone(),
        order,
        options.choice("placement"),
        backfill,
    )))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Arrival order (the window is already in it).
    Fifo,
    /// Shortest remaining time at the requested allocation first (the trace's duration: an
    /// oracle, as in the SJF baselines of the literature).
    Sjf,
    /// Least attained service first, in Tiresias's discretised queues; a queued job of a
    /// better queue preempts a visible running job of a worse one.
    Las,
}

/// Tiresias's queue thresholds in GPU-seconds (container-seconds without GPUs).
const LAS_THRESHOLDS_S: [f64; 2] = [3600.0, 36_000.0];

pub struct OrderingPolicy {
    name: String,
    ctx: JobsContext,
    order: Order,
    /// Level 0 best-fit, 1 worst-fit.
    placement: usize,
    /// Start later jobs when the first in order does not fit.
    backfill: bool,
}

impl OrderingPolicy {
    pub fn new(
        name: &str,
        ctx: JobsContext,
        order: Order,
        placement: usize,
        backfill: bool,
    ) -> Self {
        OrderingPolicy {
            name: name.to_owned(),
            ctx,
            order,
            placement,
            backfill,
        }
    }

    fn queue_of(view: &SlotView) -> usize {
        LAS_THRESHOLDS_S
            .iter()
            .take_while(|&&t| view.attained_s() >= t)
            .count()
    }

    /// Queued slots, best first.
    fn ranked<'a>(&self, observation: &'a Observation) -> Vec<SlotView<'a>> {
        let mut queued: Vec<SlotView> = (0..self.ctx.slots())
            .map(|s| self.ctx.slot(observation, s))
            .filter(SlotView::queued)
            .collect();
        match self.order {
            Order::Fifo => {}
            Order::Sjf => queued.sort_by(|a, b| a.remaining_s().total_cmp(&b.remaining_s())),
            Order::Las => queued.sort_by_key(Self::queue_of),
        }
        queued
    }
}

impl Policy for OrderingPolicy {
    fn name(&self) -> &str {
        &self.name
    }

    fn reset(&mut self, _seed: u64) {}

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let ctx = &self.ctx;
        let mut action = ctx.keep_all(observation);
        let start = ctx.requested_workers_level;
        // the env applies starts in slot order: only start a job placed after every better
        // one already started, so capacity goes to the better job first
        let mut last_started: Option<usize> = None;
        for view in self.ranked(observation) {
            let fits = ctx.allowed(observation, view.slot, FIELD_WORKERS, start);
            if fits && last_started.is_none_or(|s| view.slot > s) {
                action[ctx.dim(view.slot, FIELD_WORKERS)] = start;
                action[ctx.dim(view.slot, FIELD_PLACEMENT)] = self.placement;
                last_started = Some(view.slot);
            } else if !fits && self.order == Order::Las && last_started.is_none() {
                // preempt one visible running job of a worse queue, then decide again
                let worse = (0..ctx.slots())
                    .map(|s| ctx.slot(observation, s))
                    .filter(|r| r.running() && Self::queue_of(r) > Self::queue_of(&view))
                    .max_by_key(Self::queue_of);
                if let Some(victim) = worse {
                    action[ctx.dim(victim.slot, FIELD_WORKERS)] = 0;
                    return action;
                }
            }
            if !fits && !self.backfill {
                break;
            }
        }
        action
    }
}
