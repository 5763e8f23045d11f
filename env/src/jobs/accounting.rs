//! The jobs env's accounting: time integrals of allocation, use, free and stranded capacity,
//! jobs in the system and idle cost; the reward from them; an episode's metrics.

use super::metrics::{JobsMetrics, quantile, share};
use super::spec::{JobRecord, MILLI_PER_UNIT};
use super::state::{Episode, Job, Shared, Status, status_index};

pub(super) fn integrate(sh: &Shared, episode: &mut Episode, to: f64) {
    let dt = to - episode.now;
    if dt > 0.0 {
        let s = &mut episode.sums;
        let cap = episode.cluster.capacity_total();
        let free = episode.cluster.free_total();
        let stranded = episode.cluster.stranded_total();
        let prices = sh.workload.prices.per_second();
        for r in 0..3 {
            let allocated = (cap[r] - free[r]) as f64;
            s.allocated[r] += allocated * dt;
            s.used[r] += episode.used_rate[r] * dt;
            s.capacity[r] += cap[r] as f64 * dt;
            s.free[r] += free[r] as f64 * dt;
            s.idle_cost += prices[r] * (allocated - episode.used_rate[r]) / MILLI_PER_UNIT[r] * dt;
        }
        s.stranded[0] += stranded[0] * dt;
        s.stranded[1] += stranded[1] * dt;
        let in_system = episode.next_arrival - episode.counts[status_index(Status::Done)];
        s.in_system += in_system as f64 * dt;
    }
    episode.now = to;
}

/// Minus the time term (jobs in the system, Little's law: its integral is the total
/// completion time) and the idle term, each per decision interval and normalised.
pub(super) fn reward(sh: &Shared, episode: &mut Episode) -> f64 {
    let w = &sh.workload;
    let interval = w.episode.reward_interval_s();
    let (in_system, idle) = (episode.sums.in_system, episode.sums.idle_cost);
    let (last_in_system, last_idle) = episode.reward_marks;
    episode.reward_marks = (in_system, idle);
    let prices = w.prices.per_second();
    let cap = episode.cluster.capacity_total();
    let cluster_price: f64 = (0..3)
        .map(|r| prices[r] * cap[r] as f64 / MILLI_PER_UNIT[r])
        .sum();
    let time_term = (in_system - last_in_system) / (interval * w.window.slots() as f64);
    let idle_term = share(idle - last_idle, cluster_price * interval);
    -(w.reward.lambda_time * time_term + w.reward.lambda_idle * idle_term)
}

pub(super) fn metrics(sh: &Shared, episode: &Episode) -> JobsMetrics {
    let jobs = &sh.workload.jobs;
    let mut jct = Vec::new();
    let mut delays = Vec::new();
    let mut last_finish: f64 = 0.0;
    let now = episode.now;
    for (spec, job) in jobs.iter().zip(&episode.jobs) {
        if let Some(t) = completion_time(spec, job, now) {
            jct.push(t);
            last_finish = last_finish.max(spec.arrival_s + t);
        }
        match job.first_start_s {
            Some(start) => delays.push(start - job.eligible_s),
            None if job.status == Status::Queued => delays.push(now - job.eligible_s),
            None => {}
        }
    }
    let finished = episode.counts[status_index(Status::Done)];
    let first_arrival = jobs
        .iter()
        .map(|j| j.arrival_s)
        .fold(f64::INFINITY, f64::min);
    let mean = |v: &[f64]| share(v.iter().sum(), v.len() as f64);
    let s = &episode.sums;
    let has_gpus = episode.cluster.capacity_total()[2] > 0;
    let fragmentation = if has_gpus {
        share(s.stranded[0], s.free[2])
    } else {
        share(s.stranded[1], s.free[0])
    };
    JobsMetrics {
        jobs: jobs.len(),
        finished,
        unfinished: jobs.len() - finished,
        jct_avg_s: mean(&jct),
        jct_p95_s: quantile(&mut jct, 0.95),
        makespan_s: if jct.is_empty() {
            0.0
        } else {
            last_finish - first_arrival
        },
        queueing_delay_avg_s: mean(&delays),
        gpu_occupancy: share(s.allocated[2], s.capacity[2]),
        cpu_occupancy: share(s.allocated[0], s.capacity[0]),
        gpu_util: share(s.used[2], s.allocated[2]),
        cpu_util: share(s.used[0], s.allocated[0]),
        fragmentation,
        idle_cost: s.idle_cost,
        episode_return: episode.episode_return,
        rejected_actions: episode.rejected_total,
        decision_points: episode.decision_points,
        steps: episode.steps,
        time_s: episode.now,
    }
}

/// Finish − arrival of an arrived job; a job still in the system at `now` (a truncation)
/// counts its time so far, a lower bound, so holding jobs back never flatters the averages.
pub(super) fn completion_time(spec: &JobRecord, job: &Job, now: f64) -> Option<f64> {
    job.arrived
        .then(|| job.finish_s.unwrap_or(now) - spec.arrival_s)
}
