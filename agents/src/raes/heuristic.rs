//! Heuristic search for large clusters: greedy construction (workers with the most to lose
//! first, each taking its cheapest option that still fits), then local search (single-worker
//! moves and same-node pair moves) until no move improves.

use super::problem::{Allocation, AllocationProblem, CAPACITY_TOLERANCE, RESOURCES};

fn fits(free: &[f64; RESOURCES], request: &[f64; RESOURCES]) -> bool {
    (0..RESOURCES).all(|r| request[r] <= free[r] + CAPACITY_TOLERANCE)
}

/// `free += sign * request`, per resource.
fn shift(free: &mut [f64; RESOURCES], request: &[f64; RESOURCES], sign: f64) {
    for (f, q) in free.iter_mut().zip(request) {
        *f += sign * q;
    }
}

/// Options of a worker, cheapest first.
fn by_cost(problem: &AllocationProblem, worker: usize) -> Vec<usize> {
    let options = &problem.workers[worker].options;
    let mut order: Vec<usize> = (0..options.len()).collect();
    order.sort_by(|&a, &b| options[a].cost.total_cmp(&options[b].cost));
    order
}

/// The option of a worker with the smallest total request: the fallback when nothing fits.
fn smallest(problem: &AllocationProblem, worker: usize) -> usize {
    let options = &problem.workers[worker].options;
    (0..options.len())
        .min_by(|&a, &b| {
            let size = |o: usize| options[o].request.iter().sum::<f64>();
            size(a).total_cmp(&size(b))
        })
        .expect("every worker has an option")
}

/// A good allocation, or `None` when even the smallest options do not fit.
pub fn solve_heuristic(problem: &AllocationProblem) -> Option<Allocation> {
    let n = problem.workers.len();
    let mut free = problem.capacity.clone();
    let orders: Vec<Vec<usize>> = (0..n).map(|i| by_cost(problem, i)).collect();
    // regret: how much worse the worst option is than the best one
    let regret = |i: usize| {
        let options = &problem.workers[i].options;
        options[*orders[i].last().expect("options")].cost - options[orders[i][0]].cost
    };
    let mut sequence: Vec<usize> = (0..n).collect();
    sequence.sort_by(|&a, &b| regret(b).total_cmp(&regret(a)));
    let mut choice = vec![0; n];
    for &i in &sequence {
        let node = problem.workers[i].node;
        let pick = orders[i]
            .iter()
            .copied()
            .find(|&o| fits(&free[node], &problem.workers[i].options[o].request))
            .unwrap_or_else(|| smallest(problem, i));
        choice[i] = pick;
        shift(
            &mut free[node],
            &problem.workers[i].options[pick].request,
            -1.0,
        );
    }
    if !problem.feasible(&choice) {
        return None;
    }
    improve(problem, &mut choice, &mut free);
    Some(problem.allocation(choice))
}

/// Local search: take any improving move (one worker changes option, or two workers of one
/// node change together) until none is left.
fn improve(problem: &AllocationProblem, choice: &mut [usize], free: &mut [[f64; RESOURCES]]) {
    let workers = &problem.workers;
    let mut by_node: Vec<Vec<usize>> = vec![Vec::new(); problem.capacity.len()];
    for (i, w) in workers.iter().enumerate() {
        by_node[w.node].push(i);
    }
    let released = |free: &[f64; RESOURCES], i: usize, o: usize| {
        let mut f = *free;
        shift(&mut f, &workers[i].options[o].request, 1.0);
        f
    };
    let take = |free: &mut [f64; RESOURCES], i: usize, o: usize| {
        shift(free, &workers[i].options[o].request, -1.0);
    };
    let mut improved = true;
    while improved {
        improved = false;
        for i in 0..workers.len() {
            let node = workers[i].node;
            let room = released(&free[node], i, choice[i]);
            let current = workers[i].options[choice[i]].cost;
            let better = (0..workers[i].options.len())
                .filter(|&o| fits(&room, &workers[i].options[o].request))
                .min_by(|&a, &b| {
                    workers[i].options[a]
                        .cost
                        .total_cmp(&workers[i].options[b].cost)
                })
                .filter(|&o| workers[i].options[o].cost < current - 1e-12);
            if let Some(o) = better {
                free[node] = room;
                take(&mut free[node], i, o);
                choice[i] = o;
                improved = true;
            }
        }
        if improved {
            continue;
        }
        // pair moves: free room on a node by shrinking one worker to grow another
        'nodes: for members in &by_node {
            for (a_pos, &a) in members.iter().enumerate() {
                for &b in &members[a_pos + 1..] {
                    let node = workers[a].node;
                    let room = released(&released(&free[node], a, choice[a]), b, choice[b]);
                    let current =
                        workers[a].options[choice[a]].cost + workers[b].options[choice[b]].cost;
                    for oa in 0..workers[a].options.len() {
                        if !fits(&room, &workers[a].options[oa].request) {
                            continue;
                        }
                        let mut after_a = room;
                        take(&mut after_a, a, oa);
                        for ob in 0..workers[b].options.len() {
                            let cost = workers[a].options[oa].cost + workers[b].options[ob].cost;
                            if cost < current - 1e-12
                                && fits(&after_a, &workers[b].options[ob].request)
                            {
                                free[node] = after_a;
                                take(&mut free[node], b, ob);
                                choice[a] = oa;
                                choice[b] = ob;
                                improved = true;
                                continue 'nodes;
                            }
                        }
                    }
                }
            }
        }
    }
}
