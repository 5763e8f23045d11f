//! The allocation problem RAES solves each round (the paper's MIP):
//! `min sum_i cost_i(option_i)` with `cost_i = lambda1 T_i + lambda2 sum_r price_r u_{i,r}`,
//! one container option per worker (integer levels per resource), on every node the
//! options' requests within its capacity and, optionally, all requests within a cluster-wide
//! budget (a tenant's quota). Costs are precomputed per option, so the solvers only see a
//! multiple-choice packing problem.

/// Resources in ladder order: CPU cores, memory GB, GPUs.
pub const RESOURCES: usize = 3;

/// One container a worker could get.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerOption {
    /// Ladder level per resource (what the action holds).
    pub levels: [usize; RESOURCES],
    /// What it takes from its node, per resource.
    pub request: [f64; RESOURCES],
    pub cost: f64,
    /// The node it takes from, where not its worker's (the jobs cluster's options on each GPU
    /// model, agents/src/jobs/raes.rs).
    pub node: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Worker {
    pub node: usize,
    /// At least one option; the solvers pick exactly one.
    pub options: Vec<ContainerOption>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AllocationProblem {
    /// Free capacity per node and resource.
    pub capacity: Vec<[f64; RESOURCES]>,
    pub workers: Vec<Worker>,
    /// Cap on the sum of all workers' requests per resource, if any.
    pub budget: Option<[f64; RESOURCES]>,
}

/// An option index per worker and the objective it reaches.
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    pub choice: Vec<usize>,
    pub objective: f64,
}

/// Slack for float sums of requests against capacities.
pub const CAPACITY_TOLERANCE: f64 = 1e-9;

impl AllocationProblem {
    /// The node option `option` of worker `worker` takes from.
    pub fn node_of(&self, worker: usize, option: usize) -> usize {
        let w = &self.workers[worker];
        w.options[option].node.unwrap_or(w.node)
    }

    /// What the chosen options take from each node.
    pub fn load(&self, choice: &[usize]) -> Vec<[f64; RESOURCES]> {
        let mut load = vec![[0.0; RESOURCES]; self.capacity.len()];
        for (i, (worker, &o)) in self.workers.iter().zip(choice).enumerate() {
            for (l, q) in load[self.node_of(i, o)]
                .iter_mut()
                .zip(&worker.options[o].request)
            {
                *l += q;
            }
        }
        load
    }

    pub fn feasible(&self, choice: &[usize]) -> bool {
        let within = |l: &[f64; RESOURCES], c: &[f64; RESOURCES]| {
            (0..RESOURCES).all(|r| l[r] <= c[r] + CAPACITY_TOLERANCE)
        };
        let load = self.load(choice);
        let total = load.iter().fold([0.0; RESOURCES], |mut t, l| {
            (0..RESOURCES).for_each(|r| t[r] += l[r]);
            t
        });
        choice.len() == self.workers.len()
            && load.iter().zip(&self.capacity).all(|(l, c)| within(l, c))
            && self.budget.is_none_or(|b| within(&total, &b))
    }

    pub fn objective(&self, choice: &[usize]) -> f64 {
        self.workers
            .iter()
            .zip(choice)
            .map(|(w, &o)| w.options[o].cost)
            .sum()
    }

    pub fn allocation(&self, choice: Vec<usize>) -> Allocation {
        Allocation {
            objective: self.objective(&choice),
            choice,
        }
    }

    /// Every combination, for tests on tiny instances.
    pub fn brute_force(&self) -> Option<Allocation> {
        let mut choice = vec![0; self.workers.len()];
        let mut best: Option<Allocation> = None;
        loop {
            if self.feasible(&choice) {
                let objective = self.objective(&choice);
                if best.as_ref().is_none_or(|b| objective < b.objective) {
                    best = Some(Allocation {
                        choice: choice.clone(),
                        objective,
                    });
                }
            }
            // odometer increment
            let mut k = 0;
            loop {
                if k == choice.len() {
                    return best;
                }
                choice[k] += 1;
                if choice[k] < self.workers[k].options.len() {
                    break;
                }
                choice[k] = 0;
                k += 1;
            }
        }
    }
}

/// A seeded random instance: `workers` workers, `per_node` to a node, options from a small
/// ladder with time falling and price rising in the allocation (for tests and the benchmark;
/// a generator, not data).
pub fn random_problem(workers: usize, per_node: usize, seed: u64) -> AllocationProblem {
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    let mut rng = StdRng::seed_from_u64(seed);
    let nodes = workers.div_ceil(per_node.max(1));
    let capacity = (0..nodes)
        .map(|_| {
            [
                rng.random_range(8.0..24.0),
                rng.random_range(32.0..96.0),
                f64::from(rng.random_range(0..3u32)),
            ]
        })
        .collect();
    let cpu_sizes = [0.0, 1.0, 2.0, 4.0, 8.0];
    let gpu_sizes = [0.0, 0.5, 1.0];
    let workers = (0..workers)
        .map(|i| {
            let demand: f64 = rng.random_range(0.5..6.0);
            let gpu_speedup: f64 = rng.random_range(1.0..4.0);
            let mut options = Vec::new();
            for (c, &cores) in cpu_sizes.iter().enumerate() {
                for (g, &gpus) in gpu_sizes.iter().enumerate() {
                    let memory = cores * 4.0;
                    // no container: the worker idles a whole round
                    let time = if cores == 0.0 {
                        10.0
                    } else {
                        (demand / cores).max(1.0) / (1.0 + (gpu_speedup - 1.0) * gpus)
                    };
                    options.push(ContainerOption {
                        levels: [c, c, g],
                        request: [cores, memory, gpus],
                        cost: time + 0.05 * cores + 0.01 * memory + 0.6 * gpus,
                        node: None,
                    });
                    if cores == 0.0 {
                        break;
                    }
                }
            }
            Worker {
                node: i / per_node.max(1),
                options,
            }
        })
        .collect();
    AllocationProblem {
        capacity,
        workers,
        budget: None,
    }
}
