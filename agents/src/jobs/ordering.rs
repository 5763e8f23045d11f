//! Queue-ordering schedulers at the requested allocation: FIFO, shortest-job-first, and
//! Tiresias-like least-attained-service with preemption; each with best-fit or worst-fit
//! placement. `static` (Kubeflow-like) is FIFO with backfilling that never rescales.

use schedlab_env::Observation;

use super::view::{JobsContext, SlotView};
use crate::Policy;

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
            let fits = ctx.allowed(observation, view.slot, 0, start);
            if fits && last_started.is_none_or(|s| view.slot > s) {
                action[view.slot * 3] = start;
                action[view.slot * 3 + 2] = self.placement;
                last_started = Some(view.slot);
            } else if !fits && self.order == Order::Las && last_started.is_none() {
                // preempt one visible running job of a worse queue, then decide again
                let worse = (0..ctx.slots())
                    .map(|s| ctx.slot(observation, s))
                    .filter(|r| r.running() && Self::queue_of(r) > Self::queue_of(&view))
                    .max_by_key(Self::queue_of);
                if let Some(victim) = worse {
                    action[victim.slot * 3] = 0;
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
