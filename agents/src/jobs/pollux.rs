//! `pollux` on the jobs cluster (Pollux-like goodput maximisation): a queued job starts at
//! the fewest containers that fit (admitting more jobs); while one waits, the visible running
//! job that loses least shrinks a workers level; when nobody waits, the one with the highest
//! relative goodput gain (above 5%) grows a level.
//! Goodput is the job's fitted speed-up curve, the throughput-times-efficiency model the
//! surrogate runs on.

use schedlab_env::Observation;

use super::view::JobsContext;
use crate::Policy;

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
            let smallest = (1..ctx.action_space.levels[0]).find(|&l| ctx.allowed(observation, s, 0, l));
            if let Some(level) = smallest {
                action[s * 3] = level;
                action[s * 3 + 2] = self.placement;
                return action;
            }
        }
        // goodput change of one workers level up, relative to the job's current goodput
        let gain = |v: &super::SlotView, level: usize| {
            let now = ctx.speedup(v, v.workers_level, v.size_level);
            (ctx.speedup(v, level, v.size_level) - now).abs() / now
        };
        if waiting {
            // make room: the visible running job above one level that loses least shrinks
            let shrink = (0..ctx.slots())
                .map(|s| ctx.slot(observation, s))
                .filter(|v| v.running() && v.workers_level > 1)
                .min_by(|a, b| gain(a, a.workers_level - 1).total_cmp(&gain(b, b.workers_level - 1)));
            if let Some(v) = shrink {
                action[v.slot * 3] = v.workers_level - 1;
            }
            return action;
        }
        let top = ctx.action_space.levels[0] - 1;
        let best = (0..ctx.slots())
            .map(|s| ctx.slot(observation, s))
            .filter(|v| v.running() && v.workers_level < top && ctx.allowed(observation, v.slot, 0, v.workers_level + 1))
            .max_by(|a, b| gain(a, a.workers_level + 1).total_cmp(&gain(b, b.workers_level + 1)));
        if let Some(v) = best.filter(|v| gain(v, v.workers_level + 1) > 0.05) {
            action[v.slot * 3] = v.workers_level + 1;
        }
        action
    }
}
