//! `pollux` on the jobs cluster (Pollux-like goodput maximisation): a queued job starts at
//! the fewest containers that fit (admitting more jobs); while one waits, the visible running
//! job that loses least shrinks by a container count; when nobody waits, the one with the
//! highest relative goodput gain (above 5%) grows by one.
//! Goodput is the job's fitted speed-up curve, the throughput-times-efficiency model the
//! surrogate runs on.

use schedlab_env::Observation;

use schedlab_env::jobs::observe::{FIELD_PLACEMENT, FIELD_WORKERS};

use super::placement::PLACEMENT;

use crate::context::EnvContext;
use crate::context::JobsContext;
use crate::options::{Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "pollux",
    kinds: &[EnvKind::Jobs],
    help: "Pollux-like goodput: admit at the fewest containers, shrink or grow by fitted speed-up",
    options: &[PLACEMENT],
    build,
};

fn build(ctx: &EnvContext, options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(PolluxPolicy::new(
        JobsContext::part_of(ctx).clone(),
        options.choice("placement"),
    )))
}

pub struct PolluxPolicy {
    ctx: JobsContext,
    placement: usize,
}

impl PolluxPolicy {
    pub fn new(ctx: JobsContext, placement: usize) -> Self {
        PolluxPolicy { ctx, placement }
    }
}

impl Policy for PolluxPolicy {
    fn name(&self) -> &str {
        "pollux"
    }

    fn reset(&mut self, _seed: u64) {}

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let ctx = &self.ctx;
        let mut action = ctx.keep_all(observation);
        let mut waiting = false;
        for s in 0..ctx.slots() {
            let v = ctx.slot(observation, s);
            if !v.queued() {
                continue;
            }
            waiting = true;
            let smallest = (1..ctx.slot_space.field_choices(FIELD_WORKERS))
                .find(|&l| ctx.allowed(observation, s, FIELD_WORKERS, l));
            if let Some(level) = smallest {
                action[ctx.dim(s, FIELD_WORKERS)] = level;
                action[ctx.dim(s, FIELD_PLACEMENT)] = self.placement;
                return action;
            }
        }
        // goodput change of a workers level, relative to the job's current goodput
        let gain = |v: &crate::context::SlotView, level: usize| {
            let now = ctx.speedup(v, v.workers_level, v.size_level);
            (ctx.speedup(v, level, v.size_level) - now).abs() / now
        };
        if waiting {
            // make room: the visible running job that loses least from one container fewer
            let shrink = (0..ctx.slots())
                .map(|s| ctx.slot(observation, s))
                .filter(|v| v.running())
                .filter_map(|v| ctx.next_count_level(observation, &v, false).map(|l| (v, l)))
                .min_by(|(a, la), (b, lb)| gain(a, *la).total_cmp(&gain(b, *lb)));
            if let Some((v, level)) = shrink {
                action[ctx.dim(v.slot, FIELD_WORKERS)] = level;
            }
            return action;
        }
        let grow = (0..ctx.slots())
            .map(|s| ctx.slot(observation, s))
            .filter(|v| v.running())
            .filter_map(|v| ctx.next_count_level(observation, &v, true).map(|l| (v, l)))
            .max_by(|(a, la), (b, lb)| gain(a, *la).total_cmp(&gain(b, *lb)));
        if let Some((v, level)) = grow.filter(|(v, l)| gain(v, *l) > 0.05) {
            action[ctx.dim(v.slot, FIELD_WORKERS)] = level;
        }
        action
    }
}
