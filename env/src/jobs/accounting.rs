//! The jobs env's accounting: time integrals of allocation, use, free and stranded capacity,
//! jobs in the system and idle cost; the reward from them; an episode's metrics.

use super::fairness::rho_of;
use super::metrics::{JobsMetrics, quantile, share};
use super::schema::MILLI_PER_UNIT;
use super::state::{Episode, Shared, Status, status_index};

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
        for (sum, &n) in episode
            .tenant_in_system_s
            .iter_mut()
            .zip(&episode.tenant_in_system)
        {
            *sum += f64::from(n) * dt;
        }
    }
    episode.now = to;
}

/// Minus the job-seconds spent in the system since the last step, in `reward.time_unit_s`
/// (the integral of jobs in the system is their total completion time), plus at `max_time_s` (the settlement that ends the episode)
/// every unfinished job's remaining time at its request; minus the idle term when
/// `reward.lambda_idle` is set. So the return times the unit is minus the total JCT that
/// [`metrics`] reports, and holding a job forever never pays.
pub(super) fn reward(sh: &Shared, episode: &mut Episode, settled: bool) -> f64 {
    let w = &sh.workload;
    let unit = w.reward.time_unit_s;
    let (in_system, idle) = (episode.sums.in_system, episode.sums.idle_cost);
    let (last_in_system, last_idle) = episode.reward_marks;
    episode.reward_marks = (in_system, idle);
    let mut job_seconds = in_system - last_in_system;
    if settled {
        job_seconds += (0..episode.jobs.len())
            .filter(|&i| episode.jobs[i].arrived && episode.jobs[i].status != Status::Done)
            .map(|i| remaining_at_request_s(sh, episode, i))
            .sum::<f64>();
    }
    // potential-based shaping (Ng, Harada and Russell, "Policy invariance under reward
    // transformations", ICML 1999): F = gamma_t Phi(s') - Phi(s) with Phi minus the jobs'
    // projected remaining seconds and gamma_t the step's discount, so that slowing a long job
    // is charged when it is done rather than days later and the optimal policy of the
    // discounted return stands; none is left at the end, where the settlement stands in for it
    let shaping = if w.reward.remaining_potential {
        let now = if settled {
            0.0
        } else {
            projected_remaining_s(sh, episode)
        };
        let (before, at) = std::mem::replace(&mut episode.potential_mark, (now, episode.now));
        let discount = w.reward.potential_gamma.powf((episode.now - at) / unit);
        (before - discount * now) / unit
    } else {
        0.0
    };
    let idle_term = if w.reward.lambda_idle > 0.0 {
        let prices = w.prices.per_second();
        let cap = episode.cluster.capacity_total();
        let cluster_price: f64 = (0..3)
            .map(|r| prices[r] * cap[r] as f64 / MILLI_PER_UNIT[r])
            .sum();
        w.reward.lambda_idle * share(idle - last_idle, cluster_price * unit)
    } else {
        0.0
    };
    shaping - (job_seconds / unit + idle_term + fairness_term(sh, episode, settled))
}

/// `reward.lambda_fairness` times the ρ above 1 of the jobs finished since the last step
/// (and at the settlement of every job still in the system).
fn fairness_term(sh: &Shared, episode: &mut Episode, settled: bool) -> f64 {
    let weight = sh.workload.reward.lambda_fairness;
    if weight <= 0.0 {
        return 0.0;
    }
    let mut excess = std::mem::take(&mut episode.fairness_due);
    if settled {
        excess += (0..episode.jobs.len())
            .filter(|&i| episode.jobs[i].arrived && episode.jobs[i].status != Status::Done)
            .filter_map(|i| completion_time(sh, episode, i).map(|jct| (i, jct)))
            .map(|(i, jct)| (rho_of(sh, episode, i, jct) - 1.0).max(0.0))
            .sum::<f64>();
    }
    weight * excess
}

/// The seconds every job in the system still needs: a running job at its current rate, a
/// queued one at its requested allocation (the potential of `reward.remaining_potential`).
pub(super) fn projected_remaining_s(sh: &Shared, episode: &Episode) -> f64 {
    (0..episode.jobs.len())
        .filter(|&i| episode.jobs[i].arrived && episode.jobs[i].status != Status::Done)
        .map(|i| {
            let job = &episode.jobs[i];
            if job.status == Status::Running && job.rate > 0.0 && episode.trained_jobs.is_empty() {
                job.remaining_at(episode.now) / job.rate
            } else {
                remaining_at_request_s(sh, episode, i)
            }
        })
        .sum()
}

/// Seconds job `i` still needs at its requested allocation and its own speed. A `trained`
/// job's progress lives in its training loop, so it is charged its whole work.
fn remaining_at_request_s(sh: &Shared, episode: &Episode, i: usize) -> f64 {
    let w = &sh.workload;
    let job = &episode.jobs[i];
    let template = &w.templates[sh.template[i]];
    let workers = sh.worker_count(i, w.scaling.requested_workers_level());
    let size = w.scaling.sizes[w.scaling.requested_size_level()];
    let rate = template.speedup(workers as f64, size) * job.speed;
    let remaining = if episode.trained_jobs.is_empty() {
        job.remaining_at(episode.now)
    } else {
        job.work
    };
    remaining / rate
}

/// The episode's metrics; `stranded_at_end` counts the queued jobs that fit at its end
/// (`super::conserve::queued_that_fit`, counted by the caller).
pub(super) fn metrics(sh: &Shared, episode: &Episode, stranded_at_end: usize) -> JobsMetrics {
    let jobs = &sh.workload.jobs;
    let mut jct = Vec::new();
    let mut delays = Vec::new();
    let mut last_finish: f64 = 0.0;
    let now = episode.now;
    let completion_times: Vec<Option<f64>> = (0..jobs.len())
        .map(|i| completion_time(sh, episode, i))
        .collect();
    for ((spec, job), &completion) in jobs.iter().zip(&episode.jobs).zip(&completion_times) {
        if let Some(t) = completion {
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
    let fairness = super::fairness::fairness(sh, episode, &completion_times);
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
        forced_starts: episode.forced_total,
        decision_points: episode.decision_points,
        running_at_end: episode.counts[status_index(Status::Running)],
        queued_at_end: episode.counts[status_index(Status::Queued)],
        stranded_at_end,
        rho_avg: fairness.rho_avg,
        rho_max: fairness.rho_max,
        tenant_jain: fairness.tenant_jain,
        tenants: fairness.tenants,
        steps: episode.steps,
        time_s: episode.now,
    }
}

/// Finish − arrival of an arrived job; a job still in the system at a truncation counts
/// its time so far plus its remaining time at its request, as the reward charges it, so
/// holding jobs back never flatters the averages.
pub(super) fn completion_time(sh: &Shared, episode: &Episode, i: usize) -> Option<f64> {
    let job = &episode.jobs[i];
    let arrival = sh.workload.jobs[i].arrival_s;
    job.arrived.then(|| match job.finish_s {
        Some(finish) => finish - arrival,
        None => episode.now - arrival + remaining_at_request_s(sh, episode, i),
    })
}
