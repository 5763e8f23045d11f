//! The jobs env's observation (a fixed window of queued and running jobs plus the cluster)
//! and its action mask.

use super::machines::{Cluster, Models};
use super::refusals::{Ask, Found, MOST_RECHECKED};
use super::schema::GPU_MILLI;
use super::state::{Episode, Shared, Status};
use crate::gym::ActionSpace;

/// The action's fields at every window slot: the workers level (0 = not running, level `k`
/// scales the requested container count by `scaling.workers[k - 1]`), the size level
/// (`scaling.sizes`), and the placement (best-fit, worst-fit).
pub const FIELD_WORKERS: usize = 0;
pub const FIELD_SIZE: usize = 1;
pub const FIELD_PLACEMENT: usize = 2;
/// With `[heterogeneity]` only, a fourth field: the GPU model a start or rescale goes to (0:
/// any; `k`: the `k`-th model of `heterogeneity.models`, in its order).
pub const FIELD_MODEL: usize = 3;

/// The feature group with one block per window slot.
pub const SLOT_GROUP: &str = "slot";
/// The feature group of the whole cluster, one block after the slots.
pub const CLUSTER_GROUP: &str = "cluster";
/// With `[heterogeneity]` only, after the cluster: per slot, the job's speed on each model at
/// its request's GPU count, packed, over its speed on the reference model (1 for a job
/// without GPUs, 0 for an empty slot)...
pub const MODEL_SPEED_GROUP: &str = "model_speed";
/// ...one block of the free GPUs of each model over the cluster's GPUs...
pub const MODEL_FREE_GROUP: &str = "model_free";
/// ...per slot, the GPUs the job holds on each model over the cluster's GPUs (0 when
/// queued)...
pub const MODEL_HELD_GROUP: &str = "model_held";
/// ...and one block of the GPUs of each model over the cluster's GPUs, then
/// `ln(1 + the cluster's GPUs)` (a family's window has its own cluster).
pub const MODEL_GPUS_GROUP: &str = "model_gpus";

/// Per window slot, in this order. Times are `ln(1 + hours)`.
pub const SLOT_FEATURES: usize = 15;
/// 1 when the slot holds a job.
pub const SLOT_PRESENT: usize = 0;
/// 1 when the job runs, 0 when it is queued.
pub const SLOT_RUNNING: usize = 1;
/// `ln(1 + containers requested)`.
pub const SLOT_WORKERS: usize = 2;
/// One requested container's CPU, memory and GPU as shares of the largest machine's.
pub const SLOT_CPU: usize = 3;
pub const SLOT_MEM: usize = 4;
pub const SLOT_GPU: usize = 5;
/// Time since it could first run.
pub const SLOT_WAIT: usize = 6;
/// GPU-hours (container-hours without GPUs) received so far: Tiresias's attained service.
pub const SLOT_ATTAINED: usize = 7;
/// Time left at the requested allocation (the trace's duration: an oracle estimate; 0
/// when `window.oracle` is off).
pub const SLOT_REMAINING: usize = 8;
/// Current workers and size levels over the highest level (0 when queued).
pub const SLOT_WORKERS_LEVEL: usize = 9;
pub const SLOT_SIZE_LEVEL: usize = 10;
/// Share of its work done (0 when `window.oracle` is off).
pub const SLOT_PROGRESS: usize = 11;
/// The job's template: contention and size exponent of its speed-up curve.
pub const SLOT_CONTENTION: usize = 12;
pub const SLOT_SIZE_EXPONENT: usize = 13;
/// 1 when the job runs, or could start now at its request.
pub const SLOT_FITS_NOW: usize = 14;

/// The current `(workers level, size level)` of the job in `slot` of `features`, as
/// [`observe`] writes them for `workers_levels` (level 0 counted) and `sizes` levels: what
/// a running job holds.
pub fn running_levels(
    features: &[f32],
    slot: usize,
    workers_levels: usize,
    sizes: usize,
) -> (usize, usize) {
    let f = &features[slot * SLOT_FEATURES..];
    let level = |share: f32, top: usize| (share * top as f32).round() as usize;
    (
        level(f[SLOT_WORKERS_LEVEL], workers_levels - 1),
        level(f[SLOT_SIZE_LEVEL], (sizes - 1).max(1)),
    )
}

/// After the slots: free CPU, memory and GPU shares of the cluster, the fragmented share of
/// free GPU, `ln(1 + queued)`, `ln(1 + running)`, elapsed share of `max_time_s`,
/// `ln(1 + jobs not yet arrived)`, `ln(1 + queued jobs beyond the window)` and what those ask
/// in all as a share of the cluster (GPU, or CPU on a cluster without GPUs).
pub const CLUSTER_FEATURES: usize = 10;

pub(crate) fn hours(seconds: f64) -> f32 {
    (seconds / 3600.0).max(0.0).ln_1p() as f32
}

/// Inverse of [`hours`]: seconds from a time feature.
pub fn seconds_of(feature: f32) -> f64 {
    (feature as f64).exp_m1() * 3600.0
}

/// The features and the mask of `episode`'s current window, `observation_len` features.
pub(super) fn observe(
    sh: &Shared,
    space: &ActionSpace,
    observation_len: usize,
    episode: &mut Episode,
) -> (Vec<f32>, Vec<bool>) {
    let w = &sh.workload;
    let slots = space.units();
    let mut features = vec![0f32; observation_len];
    let mut mask = vec![false; space.mask_len()];
    let levels = Levels {
        largest: episode.cluster.largest(),
        workers: space.field_choices(FIELD_WORKERS),
        sizes: space.field_choices(FIELD_SIZE),
        requested_workers: w.scaling.requested_workers_level(),
        requested_size: w.scaling.requested_size_level(),
    };
    for slot in 0..slots {
        let f = &mut features[slot * SLOT_FEATURES..(slot + 1) * SLOT_FEATURES];
        let workers_at = space.mask_offset(space.dim(slot, FIELD_WORKERS));
        let size_at = space.mask_offset(space.dim(slot, FIELD_SIZE));
        mask[workers_at] = true;
        mask[space.mask_range(space.dim(slot, FIELD_PLACEMENT))].fill(true);
        let Some(j) = episode.window[slot] else {
            mask[size_at + levels.requested_size] = true;
            continue;
        };
        job_features(sh, episode, j as usize, &levels, f);
        let (workers_mask, size_mask) = mask[workers_at..].split_at_mut(size_at - workers_at);
        f[SLOT_FITS_NOW] =
            job_mask(sh, episode, j as usize, &levels, (workers_mask, size_mask)) as u8 as f32;
    }
    let cluster_end = slots * SLOT_FEATURES + CLUSTER_FEATURES;
    cluster_features(
        sh,
        episode,
        &mut features[slots * SLOT_FEATURES..cluster_end],
    );
    if sh.model_speeds.is_some() {
        model_features(sh, episode, &mut features[cluster_end..]);
        // queued jobs asking alike (request, count, allowed models, and job type where it
        // shares a GPU) get one mask: the cluster does not change within an observation
        let mut asked_alike: Vec<(Ask, std::ops::Range<usize>)> = Vec::new();
        for slot in 0..slots {
            let range = space.mask_range(space.dim(slot, FIELD_MODEL));
            let fits_now = features[slot * SLOT_FEATURES + SLOT_FITS_NOW] > 0.5;
            let Some(j) = episode.window[slot] else {
                mask[range].fill(true);
                continue;
            };
            let i = j as usize;
            if !fits_now {
                // a job that fits nowhere at its request fits on no model: only "any"
                mask[range.start] = true;
                continue;
            }
            if episode.jobs[i].status == Status::Running {
                running_model_mask(sh, episode, i, &mut mask[range]);
                continue;
            }
            let ask = ask_of(sh, i, levels.requested_workers, levels.requested_size);
            match asked_alike.iter().find(|(other, _)| *other == ask) {
                Some((_, earlier)) => mask.copy_within(earlier.clone(), range.start),
                None => {
                    queued_model_mask(sh, episode, i, &ask, &mut mask[range.clone()]);
                    asked_alike.push((ask, range));
                }
            }
        }
    }
    (features, mask)
}

/// The model groups' features in `f`: per slot its speeds, the free GPUs per model, per slot
/// its GPUs held per model, the GPUs per model.
fn model_features(sh: &Shared, episode: &Episode, f: &mut [f32]) {
    let speeds = sh.model_speeds.as_ref().expect("called with heterogeneity");
    let models = speeds.names().len();
    let slots = episode.window.len();
    let (per_slot, rest) = f.split_at_mut(slots * models);
    let (free, rest) = rest.split_at_mut(models);
    let (held, gpus) = rest.split_at_mut(slots * models);
    let total = episode.cluster.capacity_total()[2].max(1) as f64;
    for (slot, (speed, held)) in per_slot
        .chunks_mut(models)
        .zip(held.chunks_mut(models))
        .enumerate()
    {
        let Some(j) = episode.window[slot] else {
            continue;
        };
        let i = j as usize;
        let gpus = sh.requested_gpus(i);
        if gpus == 0 {
            // a job without GPUs runs at ratio 1 on every machine
            speed.fill(1.0);
        } else {
            for (cell, ratio) in speed.iter_mut().zip(speeds.ratios(sh.template_of(i), gpus)) {
                *cell = ratio as f32;
            }
        }
        for c in &episode.jobs[i].containers {
            if let Some(model) = speeds.model_of_machine(c.machine as usize) {
                held[model] += (c.gpu_milli() as f64 / total) as f32;
            }
        }
    }
    for (model, &machines) in sh.model_sets.iter().enumerate() {
        let [free_gpus, all_gpus] = episode.cluster.gpus_within(machines);
        free[model] = (free_gpus as f64 / total) as f32;
        gpus[model] = (all_gpus as f64 / total) as f32;
    }
    gpus[models] = (episode.cluster.capacity_total()[2] as f64 / GPU_MILLI as f64).ln_1p() as f32;
}

/// The model field's mask of queued job `i` asking `ask`: any model, and each model on whose
/// machines it fits now.
fn queued_model_mask(sh: &Shared, episode: &mut Episode, i: usize, ask: &Ask, mask: &mut [bool]) {
    let found = episode.refusals.of(*ask, mask.len());
    mask[0] = true;
    for (level, allowed) in mask.iter_mut().enumerate().skip(1) {
        *allowed = fits_on_model(sh, &episode.cluster, &mut found[level], i, ask, level);
    }
}

/// The model field's mask of running job `i`: any model, and each model on whose machines it
/// fits at its current levels, its own containers counted as free.
fn running_model_mask(sh: &Shared, episode: &mut Episode, i: usize, mask: &mut [bool]) {
    let job = &episode.jobs[i];
    let ask = ask_of(sh, i, job.workers_level, job.size_level);
    let held = episode.cluster.models_holding(&job.containers);
    // a job running on one model's machines fits there again, its containers counted free
    let speeds = sh.model_speeds.as_ref().expect("called with heterogeneity");
    let mut models = job
        .containers
        .iter()
        .map(|c| speeds.model_of_machine(c.machine as usize));
    let home = match models.next() {
        Some(Some(k)) if models.all(|m| m == Some(k)) => Some(k + 1),
        _ => None,
    };
    let found = episode.refusals.of(ask, mask.len());
    mask[0] = true;
    for (level, allowed) in mask.iter_mut().enumerate().skip(1) {
        let within = sh.within_model(i, level);
        *allowed = if Some(level) == home {
            true
        } else if within.models.and(held) == Models::NONE {
            // none of its containers is there: it asks what a queued job asking alike would
            fits_on_model(sh, &episode.cluster, &mut found[level], i, &ask, level)
        } else {
            let own = std::mem::take(&mut episode.jobs[i].containers);
            episode.cluster.begin_probe(&own);
            let fits = episode.cluster.can_place(ask.container, ask.count, within);
            episode.cluster.end_probe(&own);
            episode.jobs[i].containers = own;
            fits
        };
    }
}

/// Whether `ask` of job `i`, none of whose containers is on model level `level`'s machines,
/// fits there now, from what the last check `found` (refusals.rs): a machine that held it all
/// and still does, or a refusal that what was released since cannot make up.
fn fits_on_model(
    sh: &Shared,
    cluster: &Cluster,
    found: &mut Option<Found>,
    i: usize,
    ask: &Ask,
    level: usize,
) -> bool {
    let within = sh.within_model(i, level);
    let known = match *found {
        Some(Found::Fits { witness }) => {
            (cluster.room_on(witness, ask.container, within) >= ask.count).then_some(true)
        }
        Some(Found::Refused { releases, room }) => cluster
            .room_released_since(ask.container, within, releases, MOST_RECHECKED)
            .map(|since| room.saturating_add(since))
            .filter(|&bound| bound < ask.count)
            .map(|bound| {
                *found = Some(Found::Refused {
                    releases: cluster.releases(),
                    room: bound,
                });
                false
            }),
        None => None,
    };
    if let Some(fits) = known {
        return fits;
    }
    let room = cluster.room_up_to(ask.container, ask.count, within);
    let fits = room.held >= ask.count;
    *found = if fits {
        room.witness.map(|witness| Found::Fits { witness })
    } else {
        Some(Found::Refused {
            releases: cluster.releases(),
            room: room.held,
        })
    };
    fits
}

/// What job `i`'s model mask depends on at workers level `w` and size level `s`: its
/// request there, the models it may run on, and its template where its containers take a share
/// of a GPU.
fn ask_of(sh: &Shared, i: usize, w: usize, s: usize) -> Ask {
    let container = sh.container(i, s);
    let shares = container[2] > 0 && container[2] < GPU_MILLI;
    Ask {
        container,
        count: sh.worker_count(i, w),
        models: sh.within(i).models,
        share_kind: shares.then(|| sh.template_of(i)),
    }
}

/// What every slot is measured against: the largest machine, the choices of a slot's two
/// level fields, and the levels of a job's request.
struct Levels {
    largest: [u32; 3],
    workers: usize,
    sizes: usize,
    requested_workers: usize,
    requested_size: usize,
}

/// Job `i`'s features in its slot's block `f`, but whether it fits now.
fn job_features(sh: &Shared, episode: &Episode, i: usize, levels: &Levels, f: &mut [f32]) {
    let w = &sh.workload;
    let largest = levels.largest;
    let now = episode.now;
    let spec = &w.jobs[i];
    let request = spec.request();
    let template = &w.templates[sh.template_of(i)];
    let job = &episode.jobs[i];
    f[SLOT_PRESENT] = 1.0;
    f[SLOT_RUNNING] = (job.status == Status::Running) as u8 as f32;
    f[SLOT_WORKERS] = (spec.workers as f32).ln_1p();
    for r in 0..3 {
        f[SLOT_CPU + r] = request[r] as f32 / largest[r].max(1) as f32;
    }
    f[SLOT_WAIT] = hours(now - job.eligible_s);
    f[SLOT_ATTAINED] = hours(job.attained_at(now));
    let request_rate = template.speedup(spec.workers as f64, 1.0) * job.speed;
    if w.window.oracle {
        f[SLOT_REMAINING] = hours(job.remaining_at(now) / request_rate);
    }
    f[SLOT_WORKERS_LEVEL] = job.workers_level as f32 / (levels.workers - 1) as f32;
    f[SLOT_SIZE_LEVEL] = job.size_level as f32 / (levels.sizes - 1).max(1) as f32;
    f[SLOT_PROGRESS] = (1.0 - job.remaining_at(now) / job.work) as f32;
    f[SLOT_CONTENTION] = template.contention as f32;
    f[SLOT_SIZE_EXPONENT] = template.size_exponent as f32;
}

/// Job `i`'s workers and size levels that fit, in `masks`; returns whether it fits now at its
/// request. Each dimension's levels are checked with the other at its current (queued:
/// requested) value, with the job's own containers counted as free.
fn job_mask(
    sh: &Shared,
    episode: &mut Episode,
    i: usize,
    levels: &Levels,
    (workers_mask, size_mask): (&mut [bool], &mut [bool]),
) -> bool {
    let running = episode.jobs[i].status == Status::Running;
    let (base_w, base_s) = if running {
        (episode.jobs[i].workers_level, episode.jobs[i].size_level)
    } else {
        (levels.requested_workers, levels.requested_size)
    };
    let own = std::mem::take(&mut episode.jobs[i].containers);
    episode.cluster.begin_probe(&own);
    let fits_now = running
        || episode.cluster.can_place(
            sh.container(i, levels.requested_size),
            sh.worker_count(i, levels.requested_workers),
            sh.within(i),
        );
    for (level, allowed) in workers_mask[..levels.workers]
        .iter_mut()
        .enumerate()
        .skip(1)
    {
        *allowed = (running && level == base_w)
            || episode.cluster.can_place(
                sh.container(i, base_s),
                sh.worker_count(i, level),
                sh.within(i),
            );
    }
    for (level, allowed) in size_mask[..levels.sizes].iter_mut().enumerate() {
        *allowed = level == base_s
            || episode.cluster.can_place(
                sh.container(i, level),
                sh.worker_count(i, base_w),
                sh.within(i),
            );
    }
    episode.cluster.end_probe(&own);
    episode.jobs[i].containers = own;
    fits_now
}

/// The cluster's block of features: free shares, stranded GPUs, counts, time, and the
/// queued demand beyond the window.
fn cluster_features(sh: &Shared, episode: &Episode, cluster: &mut [f32]) {
    let w = &sh.workload;
    let free = episode.cluster.free_total();
    let cap = episode.cluster.capacity_total();
    for r in 0..3 {
        cluster[r] = if cap[r] > 0 {
            free[r] as f32 / cap[r] as f32
        } else {
            0.0
        };
    }
    cluster[3] = if free[2] > 0 {
        (episode.cluster.stranded_total()[0] / free[2] as f64) as f32
    } else {
        0.0
    };
    cluster[4] = (episode.counts[Status::Queued as usize] as f32).ln_1p();
    cluster[5] = (episode.counts[Status::Running as usize] as f32).ln_1p();
    cluster[6] = (episode.now / w.episode.max_time_s) as f32;
    cluster[7] = ((w.jobs.len() - episode.arrived()) as f32).ln_1p();
    let mut beyond = episode.queued_demand;
    let mut shown = 0;
    for &j in episode.window.iter().flatten() {
        let job = &episode.jobs[j as usize];
        if job.status == Status::Queued {
            shown += 1;
            let spec = &w.jobs[j as usize];
            for (r, amount) in spec.request().into_iter().enumerate() {
                beyond[r] -= amount as u64 * spec.workers as u64;
            }
        }
    }
    let queued = episode.counts[Status::Queued as usize];
    cluster[8] = (queued.saturating_sub(shown) as f32).ln_1p();
    let r = if cap[2] > 0 { 2 } else { 0 };
    cluster[9] = (beyond[r] as f64 / cap[r].max(1) as f64) as f32;
}

/// The oldest queued jobs, then running jobs round-robin.
pub(super) fn window(sh: &Shared, episode: &mut Episode) -> Vec<Option<u32>> {
    let w = &sh.workload.window;
    let mut slots: Vec<Option<u32>> = episode
        .queue
        .values()
        .take(w.queued)
        .map(|&j| Some(j))
        .collect();
    slots.resize(w.queued, None);
    let mut shown = Vec::new();
    let mut looked = 0;
    let ring_len = episode.running_ring.len();
    while shown.len() < w.running && looked < ring_len {
        looked += 1;
        let Some((j, version)) = episode.running_ring.pop_front() else {
            break;
        };
        let job = &episode.jobs[j as usize];
        if job.status == Status::Running && job.version == version {
            if !shown.contains(&j) {
                shown.push(j);
            }
            episode.running_ring.push_back((j, version));
        }
    }
    slots.extend(shown.into_iter().map(Some));
    slots.resize(w.slots(), None);
    slots
}
