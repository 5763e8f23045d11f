//! The jobs env's dynamics: applying a step's choices (starts, rescales, suspensions) to the
//! machines, and moving the clock to the next decision point through arrivals, completions,
//! interval ticks and, at the `trained` fidelity, the jobs' training rounds.

use std::cmp::Reverse;

use super::accounting::integrate;
use super::fairness::rho_of;
use super::machines::{Cluster, Container, Placement, Within};
use super::observe::{FIELD_MODEL, FIELD_PLACEMENT, FIELD_SIZE, FIELD_WORKERS};
use super::state::{Episode, Job, Shared, Status, Time, status_index};
use crate::error::Result;
use crate::gym::ActionSpace;

/// A start or rescale the mask allowed that earlier choices of the same step left no room for.
#[derive(Debug, Clone, thiserror::Error)]
#[error(
    "job {job}: {count} containers of {request:?} (mCPU, MiB, mGPU) no longer fit after earlier choices in this step"
)]
pub(super) struct NoLongerFits {
    job: String,
    count: u32,
    request: [u32; 3],
}

/// Running jobs' changes first (shrinking frees room), then starts, each in slot order.
pub(super) fn apply(
    sh: &Shared,
    space: &ActionSpace,
    episode: &mut Episode,
    action: &[usize],
) -> (bool, Vec<String>) {
    let mut changed = false;
    let mut rejected = Vec::new();
    for pass_running in [true, false] {
        for slot in 0..episode.window.len() {
            let Some(j) = episode.window[slot] else {
                continue;
            };
            let running = episode.jobs[j as usize].status == Status::Running;
            if running != pass_running {
                continue;
            }
            let w = action[space.dim(slot, FIELD_WORKERS)];
            let s = action[space.dim(slot, FIELD_SIZE)];
            let placement = Placement::ALL[action[space.dim(slot, FIELD_PLACEMENT)]];
            let model = if space.fields().len() > FIELD_MODEL {
                action[space.dim(slot, FIELD_MODEL)]
            } else {
                0
            };
            let within = sh.within_model(j as usize, model);
            let job = &episode.jobs[j as usize];
            let unchanged = running && w == job.workers_level && s == job.size_level;
            if running && w == 0 {
                suspend(sh, episode, j);
                changed = true;
            } else if w > 0 && !unchanged {
                match allocate(sh, episode, j, w, s, (placement, within)) {
                    Ok(()) => changed = true,
                    Err(reason) => rejected.push(reason.to_string()),
                }
            }
        }
    }
    episode.rejected_total += rejected.len();
    (changed, rejected)
}

/// One job's change (the one-choice interface): workers level 0 suspends a running job;
/// otherwise it starts or rescales. `Err` says why it did not fit.
pub(super) fn apply_one(
    sh: &Shared,
    episode: &mut Episode,
    j: u32,
    (workers_level, size_level, placement, model): (usize, usize, Placement, usize),
) -> std::result::Result<(), NoLongerFits> {
    if workers_level == 0 {
        suspend(sh, episode, j);
        Ok(())
    } else {
        let within = sh.within_model(j as usize, model);
        allocate(
            sh,
            episode,
            j,
            workers_level,
            size_level,
            (placement, within),
        )
    }
}

/// Starts or rescales job `j` on the machines `within`; on failure nothing changes.
fn allocate(
    sh: &Shared,
    episode: &mut Episode,
    j: u32,
    workers_level: usize,
    size_level: usize,
    (placement, within): (Placement, Within),
) -> std::result::Result<(), NoLongerFits> {
    let i = j as usize;
    let now = episode.now;
    let count = sh.worker_count(i, workers_level);
    let request = sh.container(i, size_level);
    let old = std::mem::take(&mut episode.jobs[i].containers);
    old.iter().for_each(|c| episode.cluster.release(c));
    let Some(placed) = episode.cluster.place(request, count, placement, within) else {
        old.iter().for_each(|c| episode.cluster.reinstate(c));
        episode.jobs[i].containers = old;
        return Err(NoLongerFits {
            job: sh.workload.jobs[i].id.clone(),
            count,
            request,
        });
    };
    let mut partners = sharers_of(&episode.cluster, &old);
    let was_running = episode.jobs[i].status == Status::Running;
    // settle with the old allocation, then account for the new one
    episode.jobs[i].containers = old;
    change_used(sh, episode, i, -1.0);
    let job = &mut episode.jobs[i];
    job.settle(now);
    job.containers = placed;
    job.workers_level = workers_level;
    job.size_level = size_level;
    job.version += 1;
    job.rate = rate_on(
        sh,
        &episode.cluster,
        i,
        size_level,
        job.speed,
        &job.containers,
    );
    // restarting or starting containers are allocated but do no work
    let pause_from = if was_running {
        job.paused_until.max(now)
    } else {
        now
    };
    let pause_s = if was_running {
        sh.workload.episode.restart_s
    } else {
        sh.workload.episode.start_s
    };
    job.paused_until = now + pause_s;
    let pause = job.paused_until - pause_from;
    if !was_running {
        let key = episode.queue_key[i];
        episode.queue.remove(&key);
        job.status = Status::Running;
        job.first_start_s.get_or_insert(now);
        change_queued_demand(sh, episode, i, false);
        episode.counts[status_index(Status::Queued)] -= 1;
        episode.counts[status_index(Status::Running)] += 1;
    }
    let used = used_of(sh, i, &episode.jobs[i]);
    (0..3).for_each(|r| episode.sums.used[r] -= used[r] * pause);
    progress(sh, episode, i, (count, size_level));
    change_used(sh, episode, i, 1.0);
    partners.extend(sharers_of(&episode.cluster, &episode.jobs[i].containers));
    retime(sh, episode, partners);
    Ok(())
}

/// Sets newly allocated job `i`'s progress going at `count` containers of `size_level`: its
/// training rounds, its real processes, or its simulated completion.
fn progress(sh: &Shared, episode: &mut Episode, i: usize, (count, size_level): (u32, usize)) {
    let job = &episode.jobs[i];
    let resume = job.paused_until.max(episode.now);
    if let Some(trained) = episode.trained_jobs.get_mut(i) {
        let offset = size_level as i32 - sh.workload.scaling.requested_size_level() as i32;
        trained.set_allocation(count as usize, offset);
        trained.next_round_s = resume + trained.round_s;
    } else if let Some(cluster) = episode.executed.as_mut() {
        cluster.start(i, &episode.jobs[i].containers);
    } else {
        let finish = resume + job.remaining / job.rate;
        episode
            .completions
            .push(Reverse((Time(finish), i as u32, job.version)));
    }
    episode
        .running_ring
        .push_back((i as u32, episode.jobs[i].version));
}

/// Work per second of job `i` (of speed factor `speed`) on `containers` of size level
/// `size_level`: its template's speed-up, times its model's ratio and the pair ratios of the
/// GPUs it shares with `[heterogeneity]`.
fn rate_on(
    sh: &Shared,
    cluster: &Cluster,
    i: usize,
    size_level: usize,
    speed: f64,
    containers: &[Container],
) -> f64 {
    let t = sh.template[i];
    let count = containers.len() as f64;
    let speedup = sh.workload.templates[t].speedup(count, sh.workload.scaling.sizes[size_level]);
    let rate = speedup * speed;
    match &sh.model_speeds {
        Some(speeds) => {
            rate * speeds.factor(t, containers) * speeds.sharing_factor(cluster, t, containers)
        }
        None => rate,
    }
}

/// The jobs holding a share of a GPU one of `containers` holds a share of.
fn sharers_of(cluster: &Cluster, containers: &[Container]) -> Vec<u32> {
    containers
        .iter()
        .flat_map(|c| cluster.co_sharers(c))
        .map(|s| s.job)
        .collect()
}

/// Running jobs among `jobs` whose GPU partners changed go on at their new speed from now
/// (the simulated fidelity's completions; sharing is priced with `[heterogeneity]` only).
fn retime(sh: &Shared, episode: &mut Episode, mut jobs: Vec<u32>) {
    if jobs.is_empty() || episode.executed.is_some() || !episode.trained_jobs.is_empty() {
        return;
    }
    jobs.sort_unstable();
    jobs.dedup();
    let now = episode.now;
    for j in jobs {
        let i = j as usize;
        if episode.jobs[i].status != Status::Running {
            continue;
        }
        let job = &episode.jobs[i];
        let rate = rate_on(
            sh,
            &episode.cluster,
            i,
            job.size_level,
            job.speed,
            &job.containers,
        );
        let job = &mut episode.jobs[i];
        if rate == job.rate {
            continue;
        }
        job.settle(now);
        job.rate = rate;
        job.version += 1;
        let levels = (job.containers.len() as u32, job.size_level);
        progress(sh, episode, i, levels);
    }
}

/// Adds (or takes away) job `i`'s requested resources to the queue's total.
fn change_queued_demand(sh: &Shared, episode: &mut Episode, i: usize, add: bool) {
    let spec = &sh.workload.jobs[i];
    for (r, amount) in spec.request().into_iter().enumerate() {
        let demand = amount as u64 * spec.workers as u64;
        let total = &mut episode.queued_demand[r];
        *total = if add {
            *total + demand
        } else {
            *total - demand
        };
    }
}

/// Takes a running job off its containers and back to the end of the queue.
fn suspend(sh: &Shared, episode: &mut Episode, j: u32) {
    let i = j as usize;
    let now = episode.now;
    change_used(sh, episode, i, -1.0);
    let job = &mut episode.jobs[i];
    job.settle(now);
    let containers = std::mem::take(&mut job.containers);
    job.rate = 0.0;
    job.workers_level = 0;
    job.version += 1;
    job.status = Status::Queued;
    containers.iter().for_each(|c| episode.cluster.release(c));
    retime(sh, episode, sharers_of(&episode.cluster, &containers));
    episode.counts[status_index(Status::Running)] -= 1;
    if let Some(trained) = episode.trained_jobs.get_mut(i) {
        trained.next_round_s = f64::INFINITY;
    }
    if let Some(cluster) = episode.executed.as_mut() {
        cluster.stop(i);
    }
    enqueue(sh, episode, i);
}

fn enqueue(sh: &Shared, episode: &mut Episode, i: usize) {
    change_queued_demand(sh, episode, i, true);
    episode.jobs[i].status = Status::Queued;
    episode.counts[status_index(Status::Queued)] += 1;
    episode.queue_key[i] = episode.next_key;
    episode.queue.insert(episode.next_key, i as u32);
    episode.next_key += 1;
}

/// What a job's containers use per second, `[cpu, mem, gpu]` milli-units.
fn used_of(sh: &Shared, i: usize, job: &Job) -> [f64; 3] {
    let u = sh.workload.templates[sh.template[i]].utilisation;
    let mut out = [0.0; 3];
    for c in &job.containers {
        out[0] += c.cpu as f64 * u[0];
        out[1] += c.mem as f64 * u[1];
        out[2] += c.gpu_milli() as f64 * u[2];
    }
    out
}

fn change_used(sh: &Shared, episode: &mut Episode, i: usize, sign: f64) {
    let used = used_of(sh, i, &episode.jobs[i]);
    (0..3).for_each(|r| episode.used_rate[r] += sign * used[r]);
}

/// Moves the clock to the next decision point; returns `(terminated, truncated)`.
pub(super) fn advance(sh: &Shared, episode: &mut Episode) -> Result<(bool, bool)> {
    episode.steps_here = 0;
    let jobs = &sh.workload.jobs;
    let order = &sh.arrival_order;
    let max_time = sh.workload.episode.max_time_s;
    let next_completion = |e: &mut Episode| -> f64 {
        while let Some(Reverse((Time(t), j, version))) = e.completions.peek().copied() {
            let job = &e.jobs[j as usize];
            if job.status == Status::Running && job.version == version {
                return t;
            }
            e.completions.pop();
        }
        f64::INFINITY
    };
    let tick = if sh.workload.episode.decision_interval_s > 0.0 {
        episode.next_tick
    } else {
        f64::INFINITY
    };
    // trained jobs train round by round in between, silently until one finishes
    let t = loop {
        let arrival = order
            .get(episode.next_arrival)
            .map_or(f64::INFINITY, |&j| jobs[j as usize].arrival_s);
        let event = arrival.min(next_completion(episode)).min(tick);
        if episode.executed.is_some() {
            break wait_for_real(sh, episode, event, max_time)?;
        }
        let round = episode
            .trained_jobs
            .iter()
            .enumerate()
            .map(|(i, r)| (r.next_round_s, i))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        match round {
            Some((at, i)) if at < event && at < max_time => {
                integrate(sh, episode, at);
                if episode.trained_jobs[i].step()? {
                    episode.trained_jobs[i].next_round_s = f64::INFINITY;
                    finish(sh, episode, i);
                    break Some(at);
                }
                let trained = &mut episode.trained_jobs[i];
                trained.next_round_s += trained.round_s;
            }
            _ if event >= max_time => {
                integrate(sh, episode, max_time);
                return Ok((false, true));
            }
            _ => {
                integrate(sh, episode, event);
                break Some(event);
            }
        }
    };
    let Some(t) = t else {
        return Ok((false, true));
    };
    while next_completion(episode) <= t {
        let Reverse((_, j, _)) = episode.completions.pop().expect("peeked");
        finish(sh, episode, j as usize);
    }
    arrive_until(sh, episode, t);
    while tick <= t && episode.next_tick <= t {
        episode.next_tick += sh.workload.episode.decision_interval_s;
    }
    episode.decision_points += 1;
    Ok((
        episode.counts[status_index(Status::Done)] == jobs.len(),
        false,
    ))
}

/// Jobs arriving at or before `t` arrive; those without unfinished parents queue.
fn arrive_until(sh: &Shared, episode: &mut Episode, t: f64) {
    let (jobs, order) = (&sh.workload.jobs, &sh.arrival_order);
    while let Some(&j) = order.get(episode.next_arrival) {
        if jobs[j as usize].arrival_s > t {
            break;
        }
        episode.next_arrival += 1;
        if let Some((t, _)) = sh.tenant_share[j as usize] {
            episode.tenant_in_system[t] += 1;
        }
        let in_system = episode.in_system_for(sh.tenant_share[j as usize]);
        let job = &mut episode.jobs[j as usize];
        job.arrived = true;
        job.in_system_at_arrival = in_system;
        if job.parents_left == 0 {
            job.eligible_s = t;
            episode.counts[status_index(Status::Waiting)] -= 1;
            enqueue(sh, episode, j as usize);
        }
    }
}

/// The next decision point of a real cluster: a job's completion before `event`, or
/// `event`; `None` at `max_time` (truncated). Running jobs' remaining work follows their
/// real iterations, for the observation.
fn wait_for_real(
    sh: &Shared,
    episode: &mut Episode,
    event: f64,
    max_time: f64,
) -> Result<Option<f64>> {
    let cluster = episode
        .executed
        .as_mut()
        .expect("called for a real cluster");
    let until = event.min(max_time);
    let completed = cluster.wait(until)?;
    let at = completed.map_or(until, |(_, at)| at.clamp(episode.now, until));
    for (i, job) in episode.jobs.iter_mut().enumerate() {
        if job.status == Status::Running {
            job.settle(at);
            job.remaining = job.work * (1.0 - cluster.done_share(i)).max(0.0);
        }
    }
    integrate(sh, episode, at);
    match completed {
        Some((j, _)) => {
            finish(sh, episode, j);
            Ok(Some(at))
        }
        None if until >= max_time => Ok(None),
        None => Ok(Some(at)),
    }
}

fn finish(sh: &Shared, episode: &mut Episode, i: usize) {
    let now = episode.now;
    change_used(sh, episode, i, -1.0);
    let job = &mut episode.jobs[i];
    job.settle(now);
    job.remaining = 0.0;
    job.rate = 0.0;
    job.status = Status::Done;
    job.finish_s = Some(now);
    job.version += 1;
    if let Some((t, _)) = sh.tenant_share[i] {
        episode.tenant_in_system[t] -= 1;
    }
    episode.jobs[i].in_system_at_finish = episode.in_system_for(sh.tenant_share[i]);
    if sh.workload.reward.lambda_fairness > 0.0 {
        let jct = now - sh.workload.jobs[i].arrival_s;
        episode.fairness_due += (rho_of(sh, episode, i, jct) - 1.0).max(0.0);
    }
    let job = &mut episode.jobs[i];
    let containers = std::mem::take(&mut job.containers);
    containers.iter().for_each(|c| episode.cluster.release(c));
    retime(sh, episode, sharers_of(&episode.cluster, &containers));
    episode.counts[status_index(Status::Running)] -= 1;
    episode.counts[status_index(Status::Done)] += 1;
    for &child in &sh.children[i] {
        let c = &mut episode.jobs[child as usize];
        c.parents_left -= 1;
        if c.parents_left == 0 && c.arrived {
            c.eligible_s = now;
            episode.counts[status_index(Status::Waiting)] -= 1;
            enqueue(sh, episode, child as usize);
        }
    }
}
