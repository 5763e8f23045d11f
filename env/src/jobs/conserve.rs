//! Work conservation (`window.work_conserving`, on by default): the clock never moves while a
//! queued job fits the idle capacity at its request. The one-choice mask refuses `advance`
//! while a queued job of the drawn window can start at its request (env/src/jobs/choice.rs),
//! so the policy chooses what starts and how. Whatever is still idle when the clock is about
//! to move (a per-slot step that changes nothing, a decision point whose drawings are spent,
//! a job a policy preempted and left queued) the env starts itself: queued jobs oldest first,
//! each at its request, best-fit, counted in `forced_starts`. A job that fits only shrunk
//! (fewer or smaller containers) is the policy's to start: shrinking is a choice with a cost
//! (a longer run that holds the machines), not idle capacity, except on a frozen cluster:
//! where nothing runs and nothing is left to arrive, moving the clock would only add time to
//! every queued job until the time limit, so the env starts the queued job of the window that
//! fits at a level nearest its request (in levels; the oldest on a tie), there, also counted in
//! `forced_starts`: the start the one-choice adapter of the heuristics makes in the same state
//! (agents/src/jobs/one_choice.rs). The one-choice mask refuses `advance` there so the policy
//! picks first; a per-slot step that changes nothing, or drawings spent, reach this rule.

use super::choice::level_distance;
use super::dynamics::apply_one;
use super::machines::Placement;
use super::state::{Episode, Shared};

/// Whether queued job `i` fits now at its request.
fn fits_at_request(sh: &Shared, episode: &Episode, i: usize) -> bool {
    let scaling = &sh.workload.scaling;
    episode.cluster.can_place(
        sh.container(i, scaling.requested_size_level()),
        sh.worker_count(i, scaling.requested_workers_level()),
        sh.within(i),
    )
}

/// Queued jobs, oldest first, that could start now at their request.
pub(super) fn queued_that_fit(sh: &Shared, episode: &Episode) -> Vec<u32> {
    episode
        .queue
        .values()
        .copied()
        .filter(|&j| fits_at_request(sh, episode, j as usize))
        .collect()
}

/// Starts every queued job that fits at its request, oldest first (one pass: a start only
/// takes room away, so a job passed over cannot fit later in the pass).
pub(super) fn fill_idle(sh: &Shared, episode: &mut Episode) {
    let requested = (
        sh.workload.scaling.requested_workers_level(),
        sh.workload.scaling.requested_size_level(),
    );
    let queued: Vec<u32> = episode.queue.values().copied().collect();
    for j in queued {
        if fits_at_request(sh, episode, j as usize) {
            apply_one(
                sh,
                episode,
                j,
                (requested.0, requested.1, Placement::BestFit, 0),
            )
            .expect("a request that can_place accepts is placed");
            episode.forced_total += 1;
        }
    }
}

/// The `(workers level, size level)` nearest the request (`level_distance`; the lower workers
/// level, then size level, on a tie) at which queued job `i` fits now, with its distance; `None` where none fits.
fn nearest_fitting_level(
    sh: &Shared,
    episode: &Episode,
    i: usize,
) -> Option<(usize, (usize, usize))> {
    let scaling = &sh.workload.scaling;
    let requested = (
        scaling.requested_workers_level(),
        scaling.requested_size_level(),
    );
    (1..=scaling.workers.len())
        .flat_map(|w| (0..scaling.sizes.len()).map(move |s| (w, s)))
        .filter(|&(w, s)| {
            episode
                .cluster
                .can_place(sh.container(i, s), sh.worker_count(i, w), sh.within(i))
        })
        .map(|levels| (level_distance(levels, requested), levels))
        .min_by_key(|&(distance, _)| distance)
}

/// On a frozen cluster, starts the queued job of those the window shows that fits at a level
/// nearest its request (the oldest on a tie), there, best-fit (module doc). The cluster is
/// empty then, so the oldest fits at some level.
pub(super) fn unfreeze(sh: &Shared, episode: &mut Episode) {
    if !episode.frozen() {
        return;
    }
    let nearest = episode
        .queue
        .values()
        .take(sh.workload.window.queued)
        .filter_map(|&j| {
            nearest_fitting_level(sh, episode, j as usize).map(|(d, levels)| (d, j, levels))
        })
        .min_by_key(|&(distance, _, _)| distance);
    if let Some((_, j, (workers_level, size_level))) = nearest {
        apply_one(
            sh,
            episode,
            j,
            (workers_level, size_level, Placement::BestFit, 0),
        )
        .expect("a level that can_place accepts is placed");
        episode.forced_total += 1;
    }
}
