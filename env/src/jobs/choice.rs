//! The one-choice interface (`window.interface = "one-choice"`): each step picks one visible
//! job and what to do with it, or `advance`. A job's options are preempt (running jobs only)
//! and every (workers level >= 1, size level, placement) that fits now with its own
//! containers counted free, except its current levels; the mask is exact, so an allowed
//! choice always takes effect.
//!
//! The window stays as it was drawn while choices are made, so a slot keeps naming the same
//! job, and each slot changes at most once per drawing. `advance` redraws the window at the
//! same time when something changed since it was drawn (jobs beyond it may now be seen),
//! and moves the clock when nothing did, or after `max_steps_per_decision` drawings. It is
//! refused while a queued job of the drawing can start at its request (work conservation,
//! conserve.rs), and on an idle cluster with nothing left to arrive while a job can start at
//! some level. So the choices between two drawings are one per-slot step applied a job at a
//! time.

use super::machines::Placement;
use super::observe::running_levels;
use super::state::{Episode, Shared, Status};
use crate::gym::{ActionSpace, Field, Observation};

/// Where each choice sits in the single action dimension: `slot * per_slot + option`, then
/// `advance` last. Option 0 is preempt; option `1 + (((w - 1) * sizes + s) * placements + p)
/// * models + m` is workers level `w`, size level `s`, placement `p` and model level `m` (0:
/// any model; there is only that one without `[heterogeneity]`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChoiceLayout {
    slots: usize,
    workers_levels: usize,
    sizes: usize,
    models: usize,
}

/// How far `(workers level, size level)` lies from `requested`, in levels: what "nearest the
/// request" means for a start below it.
pub fn level_distance(levels: (usize, usize), requested: (usize, usize)) -> usize {
    levels.0.abs_diff(requested.0) + levels.1.abs_diff(requested.1)
}

/// A policy's own restriction of the one-choice choices (the env offers them all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restriction {
    /// Starts of queued jobs and `advance`: running jobs keep their containers until they
    /// finish, as an online list scheduler's do.
    StartsOnly,
    /// Also scaling a running job up (neither level lower than now, one higher): a job can
    /// grow into idle capacity but is never shrunk or preempted, so no allocation cycles.
    GrowOnly,
}

/// What one choice asks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice {
    Advance,
    Preempt {
        slot: usize,
    },
    Set {
        slot: usize,
        workers_level: usize,
        size_level: usize,
        placement: Placement,
        /// 0: any model; `k`: the `k`-th model of `heterogeneity.models`.
        model: usize,
    },
}

impl ChoiceLayout {
    /// `workers_levels` counts level 0 (not running); `models` counts "any model" (1 without
    /// `[heterogeneity]`).
    pub fn new(slots: usize, workers_levels: usize, sizes: usize, models: usize) -> Self {
        ChoiceLayout {
            slots,
            workers_levels,
            sizes,
            models,
        }
    }

    pub fn per_slot(&self) -> usize {
        1 + (self.workers_levels - 1) * self.sizes * Placement::ALL.len() * self.models
    }

    pub fn advance(&self) -> usize {
        self.slots * self.per_slot()
    }

    /// One dimension, `decision / choice`, of `slots * per_slot + 1` levels.
    pub fn action_space(&self) -> ActionSpace {
        ActionSpace::grid(
            "decision",
            1,
            vec![Field::new("choice", self.advance() + 1)],
        )
    }

    fn option(
        &self,
        (workers_level, size_level): (usize, usize),
        placement: usize,
        model: usize,
    ) -> usize {
        let levels = (workers_level - 1) * self.sizes + size_level;
        1 + (levels * Placement::ALL.len() + placement) * self.models + model
    }

    /// The index of `choice` (inverse of [`ChoiceLayout::decode`]).
    pub fn encode(&self, choice: Choice) -> usize {
        match choice {
            Choice::Advance => self.advance(),
            Choice::Preempt { slot } => slot * self.per_slot(),
            Choice::Set {
                slot,
                workers_level,
                size_level,
                placement,
                model,
            } => {
                let p = Placement::ALL
                    .iter()
                    .position(|x| *x == placement)
                    .expect("a placement of the list");
                slot * self.per_slot() + self.option((workers_level, size_level), p, model)
            }
        }
    }

    pub fn decode(&self, choice: usize) -> Choice {
        if choice == self.advance() {
            return Choice::Advance;
        }
        let (slot, option) = (choice / self.per_slot(), choice % self.per_slot());
        if option == 0 {
            return Choice::Preempt { slot };
        }
        let per_levels = Placement::ALL.len() * self.models;
        let (levels, rest) = ((option - 1) / per_levels, (option - 1) % per_levels);
        Choice::Set {
            slot,
            workers_level: 1 + levels / self.sizes,
            size_level: levels % self.sizes,
            placement: Placement::ALL[rest / self.models],
            model: rest % self.models,
        }
    }

    /// Clears from `observation`'s mask (an exact mask of this layout) what `restriction`
    /// leaves out, leaving starts of queued jobs and `advance` either way. A slot allows
    /// preempt exactly when it holds a running job not changed since the drawing, so that is
    /// how its slot is told; its current levels are read from its features. Something is
    /// always left: `advance` is refused only while a queued job can start or no job runs.
    pub fn restrict(&self, restriction: Restriction, observation: &mut Observation) {
        for slot in 0..self.slots {
            let base = slot * self.per_slot();
            let mask = &mut observation.action_mask[base..base + self.per_slot()];
            if !mask[0] {
                continue;
            }
            mask[0] = false;
            match restriction {
                Restriction::StartsOnly => mask.fill(false),
                Restriction::GrowOnly => {
                    let current = self.running_levels(&observation.features, slot);
                    for (option, allowed) in mask.iter_mut().enumerate().skip(1) {
                        if let Choice::Set {
                            workers_level,
                            size_level,
                            ..
                        } = self.decode(base + option)
                        {
                            *allowed &= workers_level >= current.0 && size_level >= current.1;
                        }
                    }
                }
            }
        }
    }

    /// The `(workers level, size level)` the job in `slot` holds, read from `features`
    /// (meaningful for a running job).
    pub fn running_levels(&self, features: &[f32], slot: usize) -> (usize, usize) {
        running_levels(features, slot, self.workers_levels, self.sizes)
    }

    /// The exact mask of the current window: a slot already changed since the window was
    /// drawn (`changed[slot]`) offers nothing. `advance` is refused while a queued job of the
    /// drawing not changed since can start at its request (`window.work_conserving`,
    /// conserve.rs), and, either way, where the cluster is idle with nothing left to arrive
    /// and a job could start at some level: there the state is frozen, so advancing only
    /// adds time to every queued job, and a greedy policy that prefers it would hold the last
    /// job until the time limit.
    pub(super) fn mask(&self, sh: &Shared, episode: &mut Episode, changed: &[bool]) -> Vec<bool> {
        let mut mask = vec![false; self.advance() + 1];
        for (slot, &changed) in changed.iter().enumerate().take(self.slots) {
            let Some(j) = episode.window[slot].filter(|_| !changed) else {
                continue;
            };
            let i = j as usize;
            let base = slot * self.per_slot();
            let job = &episode.jobs[i];
            let running = job.status == Status::Running;
            let current = (job.workers_level, job.size_level);
            mask[base] = running;
            let own = std::mem::take(&mut episode.jobs[i].containers);
            episode.cluster.begin_probe(&own);
            for w in 1..self.workers_levels {
                for s in 0..self.sizes {
                    for m in 0..self.models {
                        let allowed = !(running && (w, s) == current)
                            && episode.cluster.can_place(
                                sh.container(i, s),
                                sh.worker_count(i, w),
                                sh.within_model(i, m),
                            );
                        for p in 0..Placement::ALL.len() {
                            mask[base + self.option((w, s), p, m)] = allowed;
                        }
                    }
                }
            }
            episode.cluster.end_probe(&own);
            episode.jobs[i].containers = own;
        }
        let requested = (
            sh.workload.scaling.requested_workers_level(),
            sh.workload.scaling.requested_size_level(),
        );
        let conserving =
            sh.workload.window.work_conserving && self.forced_start(&mask, requested).is_some();
        mask[self.advance()] =
            !(conserving || episode.frozen() && mask.iter().any(|&allowed| allowed));
        mask
    }

    /// The start the env would force where `mask` refuses `advance` (env/src/jobs/conserve.rs):
    /// the first slot whose queued job, not changed since the drawing, can start at its
    /// `requested` `(workers level, size level)`, there, best-fit. `None` where no such job
    /// can start. (A running job's slot allows preempt; a changed slot allows nothing.)
    pub fn forced_start(&self, mask: &[bool], requested: (usize, usize)) -> Option<usize> {
        let option = self.option(requested, 0, 0);
        (0..self.slots)
            .find(|&slot| {
                let base = slot * self.per_slot();
                !mask[base] && mask[base + option]
            })
            .map(|slot| {
                self.encode(Choice::Set {
                    slot,
                    workers_level: requested.0,
                    size_level: requested.1,
                    placement: Placement::BestFit,
                    model: 0,
                })
            })
    }

    /// The allowed start nearest `requested` `(workers level, size level)` in `mask` (by
    /// [`level_distance`]; the first slot, then the lower levels, on a tie): the start made on
    /// a frozen cluster (conserve.rs), by the env per slot and by the heuristics' one-choice
    /// adapter. `None` where `mask` allows no start.
    pub fn nearest_start(&self, mask: &[bool], requested: (usize, usize)) -> Option<usize> {
        (0..self.advance())
            .filter(|&c| mask[c])
            .filter_map(|c| match self.decode(c) {
                Choice::Set {
                    workers_level,
                    size_level,
                    ..
                } => Some((level_distance((workers_level, size_level), requested), c)),
                _ => None,
            })
            .min_by_key(|&(distance, _)| distance)
            .map(|(_, c)| c)
    }

    /// A choice in words, for errors.
    pub(super) fn describe(&self, sh: &Shared, episode: &Episode, choice: usize) -> String {
        let job = |slot: usize| {
            episode.window[slot].map_or_else(
                || format!("slot {slot} (empty)"),
                |j| format!("slot {slot} (job {})", sh.workload.jobs[j as usize].id),
            )
        };
        match self.decode(choice) {
            Choice::Advance => "advance".into(),
            Choice::Preempt { slot } => format!("preempt {}", job(slot)),
            Choice::Set {
                slot,
                workers_level,
                size_level,
                placement,
                model,
            } => format!(
                "{} at workers level {workers_level}, size level {size_level}, {placement:?}, model level {model}",
                job(slot)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without models (1: any) and with three (any and two models).
    #[test]
    fn every_choice_decodes_to_a_distinct_request_and_back() {
        for models in [1, 3] {
            let layout = ChoiceLayout::new(3, 4, 3, models);
            let per_slot = 1 + 3 * 3 * 2 * models;
            assert_eq!(layout.per_slot(), per_slot);
            assert_eq!(layout.action_space().nvec(), vec![3 * per_slot + 1]);
            let mut seen = std::collections::HashSet::new();
            for c in 0..=layout.advance() {
                let decoded = layout.decode(c);
                assert!(seen.insert(format!("{decoded:?}")), "{decoded:?} twice");
                if let Choice::Set {
                    slot,
                    workers_level,
                    size_level,
                    placement,
                    model,
                } = decoded
                {
                    let p = Placement::ALL.iter().position(|x| *x == placement).unwrap();
                    let option = layout.option((workers_level, size_level), p, model);
                    assert_eq!(slot * layout.per_slot() + option, c);
                    assert_eq!(layout.encode(decoded), c);
                    assert!((1..4).contains(&workers_level) && size_level < 3 && model < models);
                }
            }
            assert_eq!(layout.decode(layout.advance()), Choice::Advance);
            assert_eq!(layout.decode(per_slot), Choice::Preempt { slot: 1 });
        }
    }
}
