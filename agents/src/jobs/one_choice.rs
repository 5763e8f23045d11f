//! A per-slot jobs scheduler acting through the one-choice interface: on each fresh window
//! it plans as it would per slot, then hands the plan's changes over one per step, in the
//! order the per-slot step applies them (running jobs first, then starts, each in slot
//! order), and `advance` last. The env keeps the window while the changes are made, and a
//! change its exact mask no longer allows is skipped, as the per-slot step would refuse it;
//! so the scheduler's decisions, and the episode, are the same in both interfaces, except
//! where the env refuses `advance` while a queued job can start and the plan leaves it: there
//! the adapter starts the job the env would start (env/src/jobs/conserve.rs).

use std::collections::VecDeque;

use schedlab_env::Observation;
use schedlab_env::jobs::observe::{FIELD_MODEL, FIELD_PLACEMENT, FIELD_SIZE, FIELD_WORKERS};
use schedlab_env::jobs::{Choice, ChoiceLayout, Placement};

use crate::context::JobsContext;
use crate::policy::Policy;

pub struct OneChoice {
    inner: Box<dyn Policy>,
    ctx: JobsContext,
    layout: ChoiceLayout,
    /// The current plan's choices not handed over yet.
    pending: VecDeque<usize>,
}

impl OneChoice {
    pub fn new(inner: Box<dyn Policy>, ctx: JobsContext, layout: ChoiceLayout) -> Self {
        OneChoice {
            inner,
            ctx,
            layout,
            pending: VecDeque::new(),
        }
    }

    /// The per-slot mask of a fresh window, from the one-choice mask: a workers level with
    /// the size at its base (current when running, requested when queued), a size with the
    /// workers level at its base; the base levels themselves and every placement allowed; and,
    /// with `[heterogeneity]`, each model the job fits on at its base levels.
    fn slot_mask(&self, observation: &Observation) -> Vec<bool> {
        let ctx = &self.ctx;
        let space = &ctx.slot_space;
        let mut mask = vec![false; space.mask_len()];
        for slot in 0..ctx.slots() {
            let view = ctx.slot(observation, slot);
            let workers_at = space.mask_offset(ctx.dim(slot, FIELD_WORKERS));
            let size_at = space.mask_offset(ctx.dim(slot, FIELD_SIZE));
            mask[space.mask_range(ctx.dim(slot, FIELD_PLACEMENT))].fill(true);
            mask[workers_at] = true;
            if !view.present() {
                mask[size_at + ctx.requested_size_level] = true;
                continue;
            }
            let (base_w, base_s) = if view.running() {
                (view.workers_level, view.size_level)
            } else {
                (ctx.requested_workers_level, ctx.requested_size_level)
            };
            let fits_on = |workers_level: usize, size_level: usize, model: usize| {
                observation.action_mask[self.layout.encode(Choice::Set {
                    slot,
                    workers_level,
                    size_level,
                    placement: Placement::ALL[0],
                    model,
                })]
            };
            let fits =
                |workers_level: usize, size_level: usize| fits_on(workers_level, size_level, 0);
            for level in 1..space.field_choices(FIELD_WORKERS) {
                mask[workers_at + level] =
                    (view.running() && level == base_w) || fits(level, base_s);
            }
            for level in 0..space.field_choices(FIELD_SIZE) {
                mask[size_at + level] = level == base_s || fits(base_w, level);
            }
            if ctx.models() > 0 {
                let model_at = space.mask_offset(ctx.dim(slot, FIELD_MODEL));
                mask[model_at] = true;
                for model in 1..=ctx.models() {
                    // a queued job's models at its request; a running job's current levels
                    // are no choice of the exact mask, and a rescale the env refuses is skipped
                    mask[model_at + model] = view.running() || fits_on(base_w, base_s, model);
                }
            }
        }
        mask
    }

    /// The per-slot action's changes as choices, in the per-slot step's order, then advance.
    fn plan(&mut self, observation: &Observation) {
        let per_slot = Observation {
            features: observation.features.clone(),
            action_mask: self.slot_mask(observation),
        };
        let action = self.inner.act(&per_slot);
        let ctx = &self.ctx;
        for running_pass in [true, false] {
            for slot in 0..ctx.slots() {
                let view = ctx.slot(observation, slot);
                if !view.present() || view.running() != running_pass {
                    continue;
                }
                let workers_level = action[ctx.dim(slot, FIELD_WORKERS)];
                let size_level = action[ctx.dim(slot, FIELD_SIZE)];
                let placement = Placement::ALL[action[ctx.dim(slot, FIELD_PLACEMENT)]];
                let model = if ctx.models() > 0 {
                    action[ctx.dim(slot, FIELD_MODEL)]
                } else {
                    0
                };
                let unchanged = view.running()
                    && (workers_level, size_level) == (view.workers_level, view.size_level);
                let choice = if view.running() && workers_level == 0 {
                    Choice::Preempt { slot }
                } else if workers_level > 0 && !unchanged {
                    Choice::Set {
                        slot,
                        workers_level,
                        size_level,
                        placement,
                        model,
                    }
                } else {
                    continue;
                };
                self.pending.push_back(self.layout.encode(choice));
            }
        }
        self.pending.push_back(self.layout.advance());
    }

    /// Where the env refuses `advance` (a queued job can start at its request:
    /// env/src/jobs/conserve.rs) and the plan starts nothing more: the start the env itself
    /// would force, the first such slot's job at its request; where the env refuses it on an
    /// idle cluster with nothing left to arrive and no job fits at its request, the allowed
    /// start nearest the request, as the per-slot scheduler would hold the job forever.
    fn forced_start(&self, observation: &Observation) -> usize {
        let requested = (
            self.ctx.requested_workers_level,
            self.ctx.requested_size_level,
        );
        let mask = &observation.action_mask;
        self.layout
            .forced_start(mask, requested)
            .or_else(|| self.layout.nearest_start(mask, requested))
            .expect("advance is refused only where a job can start")
    }
}

impl Policy for OneChoice {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn reset(&mut self, seed: u64) {
        self.pending.clear();
        self.inner.reset(seed);
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        if self.pending.is_empty() {
            self.plan(observation);
        }
        while let Some(choice) = self.pending.pop_front() {
            if observation.action_mask[choice] {
                return vec![choice];
            }
        }
        vec![self.forced_start(observation)]
    }
}
