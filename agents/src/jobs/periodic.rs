//! `periodic` on the jobs cluster (Optimus-like): FIFO with backfilling at the requested
//! allocation, and every re-fit interval one visible running job is grown by a workers level
//! (the one whose remaining time shrinks most) when nothing waits, or shrunk back to its
//! request (the one that loses least) when a queued job does not fit.

use schedlab_env::Observation;

use schedlab_env::jobs::observe::{FIELD_PLACEMENT, FIELD_WORKERS};

use super::placement::PLACEMENT;

use crate::context::EnvContext;
use crate::context::JobsContext;
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "periodic",
    kinds: &[EnvKind::Jobs],
    help: "Optimus-like: FIFO with backfilling; every interval one running job grows or shrinks",
    options: &[
        PLACEMENT,
        OptionSpec {
            key: "interval_s",
            kind: OptionType::Positive,
            default: "300",
            help: "virtual seconds between re-fits",
        },
    ],
    build,
};

fn build(ctx: &EnvContext, options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(PeriodicPolicy::new(
        JobsContext::part_of(ctx).clone(),
        options.number("interval_s"),
        options.choice("placement"),
    )))
}

pub struct PeriodicPolicy {
    ctx: JobsContext,
    interval_s: f64,
    next_refit_s: f64,
    placement: usize,
}

impl PeriodicPolicy {
    pub fn new(ctx: JobsContext, interval_s: f64, placement: usize) -> Self {
        PeriodicPolicy {
            ctx,
            interval_s,
            next_refit_s: 0.0,
            placement,
        }
    }
}

impl Policy for PeriodicPolicy {
    fn name(&self) -> &str {
        "periodic"
    }

    fn reset(&mut self, _seed: u64) {
        self.next_refit_s = 0.0;
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let ctx = &self.ctx;
        let mut action = ctx.keep_all(observation);
        let start = ctx.requested_workers_level;
        let mut blocked = false;
        for s in 0..ctx.slots() {
            let v = ctx.slot(observation, s);
            if v.queued() {
                if ctx.allowed(observation, s, FIELD_WORKERS, start) {
                    action[ctx.dim(s, FIELD_WORKERS)] = start;
                    action[ctx.dim(s, FIELD_PLACEMENT)] = self.placement;
                    return action;
                }
                blocked = true;
            }
        }
        let now = ctx.now_s(observation);
        if now < self.next_refit_s {
            return action;
        }
        self.next_refit_s = now + self.interval_s;
        let running: Vec<_> = (0..ctx.slots())
            .map(|s| ctx.slot(observation, s))
            .filter(|v| v.running())
            .collect();
        // remaining seconds saved (or lost) by moving one workers level
        let change = |v: &crate::context::SlotView, to: usize| {
            let now_speed = ctx.speedup(v, v.workers_level, v.size_level);
            v.remaining_s() * (1.0 - now_speed / ctx.speedup(v, to, v.size_level))
        };
        if blocked {
            let shrink = running
                .iter()
                .filter(|v| v.workers_level > start)
                .min_by(|a, b| change(a, start).abs().total_cmp(&change(b, start).abs()));
            if let Some(v) = shrink {
                action[ctx.dim(v.slot, FIELD_WORKERS)] = start;
            }
        } else {
            let grow = running
                .iter()
                .filter_map(|v| ctx.next_count_level(observation, v, true).map(|l| (v, l)))
                .max_by(|(a, la), (b, lb)| change(a, *la).total_cmp(&change(b, *lb)));
            if let Some((v, level)) = grow.filter(|(v, l)| change(v, *l) > 0.0) {
                action[ctx.dim(v.slot, FIELD_WORKERS)] = level;
            }
        }
        action
    }
}
