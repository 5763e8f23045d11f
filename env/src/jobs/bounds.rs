//! Lower bounds on completion times that hold under any scheduler: how much room a
//! workload leaves, whatever decides.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::state::{Episode, Shared, Time};

/// Each job's completion time were it to start the moment it arrives, alone on the empty
/// cluster, at the fastest allocation the scaling levels allow, and never pause. Workload
/// order.
pub(super) fn no_wait_s(sh: &Shared, episode: &Episode) -> Vec<f64> {
    (0..episode.jobs.len())
        .map(|i| {
            let fastest = allocations(sh, i).map(|a| a.speedup).fold(0.0, f64::max);
            episode.jobs[i].work / (fastest * episode.jobs[i].speed)
        })
        .collect()
}

/// The total completion time (finish − arrival) no schedule that finishes every job can go
/// under. Two relaxations bound each order statistic of the finish times:
/// - no-wait: job `j` finishes no earlier than its arrival plus `no_wait_s`, so the k-th
///   earliest finish is no earlier than the k-th smallest of those;
/// - pooled: per resource, the whole cluster as one machine that any job may use at its most
///   efficient allocation (the fewest resource-seconds for its work). Every real schedule
///   fits in it, since a job at any allocation uses at least that much of each resource per
///   unit of work, and there shortest-remaining-first finishes, by every time, as many jobs
///   as any schedule can (`srpt_finishes`' test checks this against all subsets).
///
/// The total is the sum over k of the larger of the k-th bounds, less the arrivals.
pub(super) fn total_jct_s(sh: &Shared, episode: &Episode) -> f64 {
    let arrivals: Vec<f64> = (0..episode.jobs.len())
        .map(|i| sh.workload.jobs[i].arrival_s)
        .collect();
    let mut earliest: Vec<f64> = no_wait_s(sh, episode)
        .iter()
        .zip(&arrivals)
        .map(|(alone, arrival)| arrival + alone)
        .collect();
    earliest.sort_by(f64::total_cmp);
    let cluster = &sh.empty_cluster;
    for r in 0..3 {
        let capacity: f64 = (0..cluster.machines())
            .map(|m| cluster.capacity_of(m)[r] as f64)
            .sum();
        if capacity == 0.0 {
            continue;
        }
        let jobs: Vec<(f64, f64)> = (0..episode.jobs.len())
            .map(|i| {
                let per_work = allocations(sh, i)
                    .map(|a| a.usage[r] / a.speedup)
                    .fold(f64::INFINITY, f64::min);
                let job = &episode.jobs[i];
                // a zero-length job needs nothing, even where no allocation fits
                let usage = if job.work > 0.0 {
                    job.work / job.speed * per_work
                } else {
                    0.0
                };
                (arrivals[i], usage)
            })
            .collect();
        for (bound, pooled) in earliest.iter_mut().zip(srpt_finishes(jobs, capacity)) {
            *bound = bound.max(pooled);
        }
    }
    earliest.iter().sum::<f64>() - arrivals.iter().sum::<f64>()
}

/// One allocation of a job that fits the empty cluster: its speed-up and what it holds.
struct Allocation {
    speedup: f64,
    usage: [f64; 3],
}

fn allocations(sh: &Shared, i: usize) -> impl Iterator<Item = Allocation> + '_ {
    let scaling = &sh.workload.scaling;
    let template = &sh.workload.templates[sh.template[i]];
    (1..=scaling.workers.len())
        .flat_map(|w| (0..scaling.sizes.len()).map(move |s| (w, s)))
        .filter_map(move |(w, s)| {
            let (container, count) = (sh.container(i, s), sh.worker_count(i, w));
            sh.empty_cluster
                .can_place(container, count, sh.within(i))
                .then(|| Allocation {
                    speedup: template.speedup(count as f64, scaling.sizes[s])
                        * sh.fastest_factor(i),
                    usage: container.map(|c| c as f64 * count as f64),
                })
        })
}

/// Finish times, in increasing order, of shortest-remaining-first on one preemptive machine
/// of `rate` units per second; `jobs`: (release s, size in units).
fn srpt_finishes(mut jobs: Vec<(f64, f64)>, rate: f64) -> Vec<f64> {
    jobs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut ready: BinaryHeap<Reverse<Time>> = BinaryHeap::new();
    let (mut now, mut next) = (f64::NEG_INFINITY, 0);
    let mut finishes = Vec::with_capacity(jobs.len());
    while next < jobs.len() || !ready.is_empty() {
        if ready.is_empty() {
            now = now.max(jobs[next].0);
        }
        while next < jobs.len() && jobs[next].0 <= now {
            ready.push(Reverse(Time(jobs[next].1)));
            next += 1;
        }
        let Reverse(Time(left)) = ready.pop().expect("a ready job");
        let done_at = now + left / rate;
        match jobs.get(next) {
            Some(&(arrival, _)) if arrival < done_at => {
                ready.push(Reverse(Time(left - (arrival - now) * rate)));
                now = arrival;
            }
            _ => {
                finishes.push(done_at);
                now = done_at;
            }
        }
    }
    finishes
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::srpt_finishes;

    #[test]
    fn shortest_remaining_first_preempts_for_a_shorter_arrival() {
        // a: 0..10 alone; b (2 units at t=1) preempts: b 1..3, a finishes at 12
        assert_eq!(
            srpt_finishes(vec![(0.0, 10.0), (1.0, 2.0)], 1.0),
            vec![3.0, 12.0]
        );
        // a longer arrival waits: a 0..2, b 2..12
        assert_eq!(
            srpt_finishes(vec![(1.0, 10.0), (0.0, 2.0)], 1.0),
            vec![2.0, 12.0]
        );
        // an idle gap, and twice the rate halves each service time
        assert_eq!(
            srpt_finishes(vec![(0.0, 4.0), (10.0, 4.0)], 2.0),
            vec![2.0, 12.0]
        );
        assert_eq!(srpt_finishes(vec![(5.0, 0.0)], 1.0), vec![5.0]);
    }

    /// The earliest a set of jobs can all be done on one machine: served in release order
    /// without idling while any is released.
    fn makespan(mut set: Vec<(f64, f64)>) -> f64 {
        set.sort_by(|a, b| a.0.total_cmp(&b.0));
        set.iter()
            .fold(0.0, |done, &(release, size)| done.max(release) + size)
    }

    proptest! {
        /// By its k-th finish, shortest-remaining-first has done k jobs, and no set of k + 1
        /// jobs can all be done by then (nor any k jobs earlier): its k-th finish is the
        /// earliest time any schedule can have finished k jobs.
        #[test]
        fn no_schedule_finishes_k_jobs_before_srpt_does(
            jobs in proptest::collection::vec((0u8..20, 1u8..10), 1..8),
        ) {
            let jobs: Vec<(f64, f64)> = jobs.iter().map(|&(r, p)| (r as f64, p as f64)).collect();
            let finishes = srpt_finishes(jobs.clone(), 1.0);
            let n = jobs.len();
            let mut fastest = vec![f64::INFINITY; n + 1];
            for subset in 1u32..(1 << n) {
                let set: Vec<(f64, f64)> =
                    (0..n).filter(|j| subset >> j & 1 == 1).map(|j| jobs[j]).collect();
                let k = set.len();
                fastest[k] = fastest[k].min(makespan(set));
            }
            for k in 1..=n {
                prop_assert!((finishes[k - 1] - fastest[k]).abs() < 1e-9, "k {}: {:?} {:?}", k, finishes, fastest);
            }
        }
    }
}
