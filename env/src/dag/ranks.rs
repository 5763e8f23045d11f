//! Priorities of list scheduling (Topcuoglu, Hariri and Wu 2002; Arabnejad and Barbosa
//! 2014), the env's task order, and the critical-path lower bound of any schedule.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::problem::Problem;

/// A task's mean execution time over the GPUs it fits (HEFT's `w̄`).
pub fn mean_exec_s(problem: &Problem, task: usize) -> f64 {
    let (sum, count) = (0..problem.gpus())
        .map(|g| problem.exec_s(task, g))
        .filter(|t| t.is_finite())
        .fold((0.0, 0usize), |(s, c), t| (s + t, c + 1));
    sum / count as f64
}

/// Tasks in an order where every parent comes before its children.
pub fn topological(problem: &Problem) -> Vec<usize> {
    let (order, _) = problem.kahn();
    debug_assert_eq!(order.len(), problem.len(), "problems are acyclic");
    order
}

/// HEFT's upward rank: `rank_u(i) = w̄_i + max over children j of (c̄_ij + rank_u(j))`.
pub fn upward_rank(problem: &Problem) -> Vec<f64> {
    let per_mb = problem.mean_per_mb_s();
    let mut rank = vec![0.0; problem.len()];
    for &t in topological(problem).iter().rev() {
        let tail = problem
            .succs(t)
            .iter()
            .map(|&(s, data)| data * per_mb + rank[s])
            .fold(0.0, f64::max);
        rank[t] = mean_exec_s(problem, t) + tail;
    }
    rank
}

/// CPOP's downward rank: `rank_d(i) = max over parents j of (rank_d(j) + w̄_j + c̄_ji)`.
pub fn downward_rank(problem: &Problem) -> Vec<f64> {
    let per_mb = problem.mean_per_mb_s();
    let mut rank = vec![0.0; problem.len()];
    for t in topological(problem) {
        rank[t] = problem
            .preds(t)
            .iter()
            .map(|&(p, data)| rank[p] + mean_exec_s(problem, p) + data * per_mb)
            .fold(0.0, f64::max);
    }
    rank
}

/// PEFT's optimistic cost table, `oct[task * gpus + gpu]`: the longest remaining path to an
/// exit if `task` runs on `gpu` and every later task on its best GPU, with average transfer
/// costs between different GPUs.
pub fn optimistic_cost_table(problem: &Problem) -> Vec<f64> {
    let (n, p) = (problem.len(), problem.gpus());
    let per_mb = problem.mean_per_mb_s();
    let mut oct = vec![0.0; n * p];
    for &t in topological(problem).iter().rev() {
        for g in 0..p {
            oct[t * p + g] = problem
                .succs(t)
                .iter()
                .map(|&(s, data)| {
                    (0..p)
                        .filter(|&q| problem.fits(s, q))
                        .map(|q| {
                            let comm = if q == g { 0.0 } else { data * per_mb };
                            oct[s * p + q] + problem.exec_s(s, q) + comm
                        })
                        .fold(f64::INFINITY, f64::min)
                })
                .fold(0.0, f64::max);
        }
    }
    oct
}

/// The order in which the env asks for tasks: repeatedly the ready task (all parents
/// placed) of highest upward rank, ties to the lower index. Since a parent's rank exceeds
/// its children's, this is HEFT's list.
pub fn env_order(problem: &Problem) -> Vec<usize> {
    priority_order(problem, &upward_rank(problem))
}

/// Whether two priorities tie: equal to 1e-9 relative, so that sums taken in another order
/// still tie.
pub fn same_priority(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Ready tasks taken by highest `priority`, ties ([`same_priority`]) to the lower index.
pub fn priority_order(problem: &Problem, priority: &[f64]) -> Vec<usize> {
    #[derive(PartialEq)]
    struct Ready(f64, usize);
    impl Eq for Ready {}
    impl PartialOrd for Ready {
        fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
            Some(self.cmp(other))
        }
    }
    impl Ord for Ready {
        fn cmp(&self, other: &Self) -> Ordering {
            let by_priority = if same_priority(self.0, other.0) {
                Ordering::Equal
            } else {
                self.0.total_cmp(&other.0)
            };
            by_priority.then(other.1.cmp(&self.1))
        }
    }
    let n = problem.len();
    let mut indegree: Vec<usize> = (0..n).map(|t| problem.preds(t).len()).collect();
    let mut heap: BinaryHeap<Ready> = (0..n)
        .filter(|&t| indegree[t] == 0)
        .map(|t| Ready(priority[t], t))
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(Ready(_, t)) = heap.pop() {
        order.push(t);
        for &(s, _) in problem.succs(t) {
            indegree[s] -= 1;
            if indegree[s] == 0 {
                heap.push(Ready(priority[s], s));
            }
        }
    }
    order
}

/// No schedule ends before this: the longest chain of releases and fastest execution times
/// with free transfers, and the total fastest work spread over every GPU.
pub fn lower_bound_s(problem: &Problem) -> f64 {
    let fastest = |t: usize| {
        (0..problem.gpus())
            .map(|g| problem.exec_s(t, g))
            .fold(f64::INFINITY, f64::min)
    };
    let mut finish = vec![0.0; problem.len()];
    let mut chain: f64 = 0.0;
    let mut work = 0.0;
    for t in topological(problem) {
        let start = problem
            .preds(t)
            .iter()
            .map(|&(p, _)| finish[p])
            .fold(problem.release_s(t), f64::max);
        finish[t] = start + fastest(t);
        chain = chain.max(finish[t]);
        work += fastest(t);
    }
    chain.max(work / problem.gpus() as f64)
}
