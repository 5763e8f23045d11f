//! Heuristic search for large clusters: greedy construction (workers with the most to lose
//! first, each taking its cheapest option that still fits; if that breaks a budget, the
//! smallest options everywhere), then local search (single-worker
//! moves and pair moves) until no move improves. Pairs are the workers of one node, or with
//! a budget every pair, since the budget couples all nodes (quadratic per pass).

use super::problem::{Allocation, AllocationProblem, CAPACITY_TOLERANCE, RESOURCES};

/// What is left on every node and in the budget (infinite without one).
struct Room<'a> {
    problem: &'a AllocationProblem,
    free: Vec<[f64; RESOURCES]>,
    pool: [f64; RESOURCES],
}

impl<'a> Room<'a> {
    fn new(problem: &'a AllocationProblem) -> Self {
        Room {
            problem,
            free: problem.capacity.clone(),
            pool: problem.budget.unwrap_or([f64::INFINITY; RESOURCES]),
        }
    }

    fn request(&self, worker: usize, option: usize) -> &'a [f64; RESOURCES] {
        &self.problem.workers[worker].options[option].request
    }

    fn fits(&self, worker: usize, option: usize) -> bool {
        let request = self.request(worker, option);
        let node = &self.free[self.problem.node_of(worker, option)];
        (0..RESOURCES).all(|r| {
            request[r] <= node[r] + CAPACITY_TOLERANCE
                && request[r] <= self.pool[r] + CAPACITY_TOLERANCE
        })
    }

    fn take(&mut self, worker: usize, option: usize) {
        self.shift(worker, option, -1.0);
    }

    fn release(&mut self, worker: usize, option: usize) {
        self.shift(worker, option, 1.0);
    }

    fn shift(&mut self, worker: usize, option: usize, sign: f64) {
        let request = self.request(worker, option);
        let node = &mut self.free[self.problem.node_of(worker, option)];
        for r in 0..RESOURCES {
            node[r] += sign * request[r];
            self.pool[r] += sign * request[r];
        }
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
    let mut room = Room::new(problem);
    let mut choice = greedy(&mut room);
    if !problem.feasible(&choice) {
        // greedy spent a shared budget early: start small everywhere and let the search grow
        choice = (0..problem.workers.len())
            .map(|i| smallest(problem, i))
            .collect();
        if !problem.feasible(&choice) {
            return None;
        }
        room = Room::new(problem);
        for (i, &o) in choice.iter().enumerate() {
            room.take(i, o);
        }
    }
    improve(&mut room, &mut choice);
    Some(problem.allocation(choice))
}

/// Workers with the most to lose first, each its cheapest option that still fits (else its
/// smallest, which may not fit).
fn greedy(room: &mut Room) -> Vec<usize> {
    let problem = room.problem;
    let n = problem.workers.len();
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
        let pick = orders[i]
            .iter()
            .copied()
            .find(|&o| room.fits(i, o))
            .unwrap_or_else(|| smallest(problem, i));
        choice[i] = pick;
        room.take(i, pick);
    }
    choice
}

/// Groups of workers that compete for the same room: one per node (a worker with options on
/// several nodes in each of theirs), or all of them when a budget couples the nodes.
fn rivals(problem: &AllocationProblem) -> Vec<Vec<usize>> {
    if problem.budget.is_some() {
        return vec![(0..problem.workers.len()).collect()];
    }
    let mut by_node: Vec<Vec<usize>> = vec![Vec::new(); problem.capacity.len()];
    for (i, w) in problem.workers.iter().enumerate() {
        for o in 0..w.options.len() {
            let group = &mut by_node[problem.node_of(i, o)];
            if group.last() != Some(&i) {
                group.push(i);
            }
        }
    }
    by_node
}

/// Local search: take any improving move (one worker changes option, or two rival workers
/// change together) until none is left.
fn improve(room: &mut Room, choice: &mut [usize]) {
    let problem = room.problem;
    let cost = |i: usize, o: usize| problem.workers[i].options[o].cost;
    let groups = rivals(problem);
    let mut improved = true;
    while improved {
        improved = false;
        for (i, chosen) in choice.iter_mut().enumerate() {
            room.release(i, *chosen);
            let best = (0..problem.workers[i].options.len())
                .filter(|&o| room.fits(i, o))
                .min_by(|&a, &b| cost(i, a).total_cmp(&cost(i, b)))
                .filter(|&o| cost(i, o) < cost(i, *chosen) - 1e-12);
            if let Some(o) = best {
                *chosen = o;
                improved = true;
            }
            room.take(i, *chosen);
        }
        if improved {
            continue;
        }
        // pair moves: shrink one worker to grow a rival
        for members in &groups {
            for (a_pos, &a) in members.iter().enumerate() {
                for &b in &members[a_pos + 1..] {
                    if pair_move(room, choice, a, b) {
                        improved = true;
                    }
                }
            }
        }
    }
}

/// Moves workers `a` and `b` to the cheapest-found pair of options that beats their current
/// pair and fits; reports whether it moved them.
fn pair_move(room: &mut Room, choice: &mut [usize], a: usize, b: usize) -> bool {
    let workers = &room.problem.workers;
    let current = workers[a].options[choice[a]].cost + workers[b].options[choice[b]].cost;
    room.release(a, choice[a]);
    room.release(b, choice[b]);
    for oa in 0..workers[a].options.len() {
        if !room.fits(a, oa) {
            continue;
        }
        room.take(a, oa);
        let better = (0..workers[b].options.len()).find(|&ob| {
            workers[a].options[oa].cost + workers[b].options[ob].cost < current - 1e-12
                && room.fits(b, ob)
        });
        if let Some(ob) = better {
            room.take(b, ob);
            choice[a] = oa;
            choice[b] = ob;
            return true;
        }
        room.release(a, oa);
    }
    room.take(a, choice[a]);
    room.take(b, choice[b]);
    false
}
