//! Gavel's heterogeneity-aware allocations (Narayanan et al., "Heterogeneity-Aware Cluster
//! Scheduling Policies for Deep Learning Workloads", 2020) as linear programs: `x[j][m]`, the
//! share of time job `j` runs on GPU model `m`, with `sum_m x[j][m] <= 1` and, per model,
//! `sum_j gpus_j x[j][m] <= capacity_m`. A job's effective throughput is
//! `sum_m speed[j][m] x[j][m]`.
//!
//! Both programs normalise by the job's throughput on its isolated share: `1/N` of the cluster
//! (at most all of its request), on the cluster's mix of models, N the jobs in the system. This
//! is the share env/src/jobs/fairness.rs measures finish-time fairness against. microlp is
//! called directly, as in agents/src/raes/exact.rs: one solver, and pure LPs need no limit.

use microlp::{ComparisonOp, OptimizationDirection, Problem, SolveOutcome, Variable};

/// One job the program allocates.
#[derive(Debug, Clone, PartialEq)]
pub struct LpJob {
    /// GPUs it runs on (Gavel's scale factor).
    pub gpus: f64,
    /// Per model, its throughput against the reference model's; 0 where it may not run.
    pub speed: Vec<f64>,
    /// Seconds since it arrived.
    pub elapsed_s: f64,
    /// Seconds of work left on the reference model at its request.
    pub remaining_s: f64,
}

/// The GPUs the program may give out, and what the isolated share is taken of.
#[derive(Debug, Clone, PartialEq)]
pub struct LpCluster {
    /// Per model, the GPUs free or held by the jobs allocated.
    pub capacity: Vec<f64>,
    /// Per model, the cluster's GPUs.
    pub totals: Vec<f64>,
    /// Jobs in the system (the `N` of the isolated share), at least the jobs allocated.
    pub in_system: usize,
}

/// `x[j][m]`.
pub type Allocation = Vec<Vec<f64>>;

/// Bisection steps of finish-time fairness, at most; it stops once the bracket is within
/// `RATIO_TOLERANCE` of its top (each step is one LP, at every drawing of the window).
const BISECTIONS: usize = 20;
const RATIO_TOLERANCE: f64 = 1e-3;

/// Job `job`'s throughput on its isolated share.
pub fn isolated_rate(job: &LpJob, cluster: &LpCluster) -> f64 {
    let total: f64 = cluster.totals.iter().sum();
    if total <= 0.0 || job.gpus <= 0.0 {
        return 0.0;
    }
    let share = (total / (cluster.in_system.max(1) as f64 * job.gpus)).min(1.0);
    let mix: f64 = cluster
        .totals
        .iter()
        .zip(&job.speed)
        .map(|(g, s)| g / total * s)
        .sum();
    share * mix
}

/// The effective throughput of job `j` under `x`.
pub fn rate(jobs: &[LpJob], x: &Allocation, j: usize) -> f64 {
    jobs[j].speed.iter().zip(&x[j]).map(|(s, x)| s * x).sum()
}

/// The program's variables and its two constraints, maximising `sum_j weight[j] rate_j(x)`.
/// A job may take no time on a model it does not run on.
fn base(jobs: &[LpJob], cluster: &LpCluster, weight: &[f64]) -> Program {
    let mut problem = Problem::new(OptimizationDirection::Maximize);
    let x: Vec<Vec<Variable>> = jobs
        .iter()
        .zip(weight)
        .map(|(job, &w)| {
            job.speed
                .iter()
                .map(|&s| {
                    let upper = if s > 0.0 && job.gpus > 0.0 { 1.0 } else { 0.0 };
                    problem.add_var(w * s, (0.0, upper))
                })
                .collect()
        })
        .collect();
    for xs in &x {
        let terms: Vec<(Variable, f64)> = xs.iter().map(|&v| (v, 1.0)).collect();
        problem.add_constraint(terms.as_slice(), ComparisonOp::Le, 1.0);
    }
    for (m, &capacity) in cluster.capacity.iter().enumerate() {
        let terms: Vec<(Variable, f64)> = jobs
            .iter()
            .zip(&x)
            .map(|(job, xs)| (xs[m], job.gpus))
            .collect();
        problem.add_constraint(terms.as_slice(), ComparisonOp::Le, capacity.max(0.0));
    }
    Program { problem, x }
}

struct Program {
    problem: Problem,
    x: Vec<Vec<Variable>>,
}

impl Program {
    /// `rate_j(x) * weight >= rhs + t`, or `>= rhs` without `t`.
    fn at_least(&mut self, jobs: &[LpJob], j: usize, weight: f64, t: Option<Variable>, rhs: f64) {
        let mut terms: Vec<(Variable, f64)> = self.x[j]
            .iter()
            .zip(&jobs[j].speed)
            .map(|(&v, &s)| (v, s * weight))
            .collect();
        if let Some(t) = t {
            terms.push((t, -1.0));
        }
        self.problem
            .add_constraint(terms.as_slice(), ComparisonOp::Ge, rhs);
    }

    fn solve(self) -> Option<Allocation> {
        match self.problem.solve().ok()? {
            SolveOutcome::Solution(solution) => Some(
                self.x
                    .iter()
                    .map(|xs| {
                        xs.iter()
                            .map(|&v| solution.var_value(v).clamp(0.0, 1.0))
                            .collect()
                    })
                    .collect(),
            ),
            SolveOutcome::Interrupted(_) => None,
        }
    }
}

/// The jobs that can run at all: a GPU request, some model to run on, an isolated share.
fn allocatable(jobs: &[LpJob], cluster: &LpCluster) -> Vec<bool> {
    jobs.iter()
        .map(|job| {
            job.gpus > 0.0
                && isolated_rate(job, cluster) > 0.0
                && job
                    .speed
                    .iter()
                    .zip(&cluster.capacity)
                    .any(|(&s, &c)| s > 0.0 && c >= job.gpus.min(1.0))
        })
        .collect()
}

/// Per job, `1 / isolated_rate` where it can run, else 0: the weight of its normalised rate.
fn normalising(jobs: &[LpJob], cluster: &LpCluster, live: &[bool]) -> Vec<f64> {
    jobs.iter()
        .zip(live)
        .map(|(job, &l)| {
            if l {
                1.0 / isolated_rate(job, cluster)
            } else {
                0.0
            }
        })
        .collect()
}

/// Max-min fairness over effective throughput (Gavel's heterogeneity-aware LAS): maximise
/// the least `rate_j(x) / isolated_rate_j` over the jobs that can run. The least alone leaves
/// the others' shares free (an optimum may idle GPUs), so a second program keeps every job at
/// that least and maximises the sum of the normalised rates, as Gavel's water-filling variant
/// would not leave them either. Every job that cannot run gets nothing.
pub fn max_min_fairness(jobs: &[LpJob], cluster: &LpCluster) -> Allocation {
    let live = allocatable(jobs, cluster);
    let weight = normalising(jobs, cluster, &live);
    let mut program = base(jobs, cluster, &vec![0.0; jobs.len()]);
    let t = program.problem.add_var(1.0, (0.0, f64::INFINITY));
    for j in (0..jobs.len()).filter(|&j| live[j]) {
        program.at_least(jobs, j, weight[j], Some(t), 0.0);
    }
    let Some(first) = program.solve() else {
        return nothing(jobs);
    };
    let least = (0..jobs.len())
        .filter(|&j| live[j])
        .map(|j| weight[j] * rate(jobs, &first, j))
        .fold(f64::INFINITY, f64::min);
    if !least.is_finite() {
        return first;
    }
    let mut program = base(jobs, cluster, &weight);
    for j in (0..jobs.len()).filter(|&j| live[j]) {
        program.at_least(jobs, j, weight[j], None, least * (1.0 - 1e-7));
    }
    program.solve().unwrap_or(first)
}

/// Finish-time fairness (Themis's ρ as Gavel's policy minimises it): minimise the largest
/// `(elapsed_j + remaining_j / rate_j(x)) / (elapsed_j + remaining_j / isolated_rate_j)`.
/// The ratio is convex in `x`, not linear, so the least feasible ratio is found by
/// bisection, each step one LP of `rate_j(x) >= remaining_j / (ρ T_j - elapsed_j)`. Jobs
/// with no work left, or that cannot run, take no part.
pub fn finish_time_fairness(jobs: &[LpJob], cluster: &LpCluster) -> Allocation {
    let live = allocatable(jobs, cluster);
    let timed: Vec<usize> = (0..jobs.len())
        .filter(|&j| live[j] && jobs[j].remaining_s > 0.0)
        .collect();
    if timed.is_empty() {
        return max_min_fairness(jobs, cluster);
    }
    let isolated_time =
        |j: usize| jobs[j].elapsed_s + jobs[j].remaining_s / isolated_rate(&jobs[j], cluster);
    // among the allocations at a ratio, the one of the most normalised throughput
    let weight = normalising(jobs, cluster, &live);
    let feasible = |rho: f64| {
        let mut program = base(jobs, cluster, &weight);
        for &j in &timed {
            let budget = rho * isolated_time(j) - jobs[j].elapsed_s;
            if budget <= 0.0 {
                return None;
            }
            program.at_least(jobs, j, 1.0, None, jobs[j].remaining_s / budget);
        }
        program.solve()
    };
    // the max-min allocation is feasible at its own largest ratio: the bracket's top
    let fair = max_min_fairness(jobs, cluster);
    let ratio_under = |x: &Allocation, j: usize| {
        let r = rate(jobs, x, j);
        (jobs[j].elapsed_s + jobs[j].remaining_s / r) / isolated_time(j)
    };
    let mut high = timed
        .iter()
        .map(|&j| ratio_under(&fair, j))
        .fold(0.0, f64::max);
    if !high.is_finite() {
        return fair;
    }
    let mut best = fair;
    // no allocation beats each job alone on its fastest model, all of the time
    let mut low = timed
        .iter()
        .map(|&j| {
            let fastest = jobs[j].speed.iter().copied().fold(0.0, f64::max);
            (jobs[j].elapsed_s + jobs[j].remaining_s / fastest) / isolated_time(j)
        })
        .fold(0.0, f64::max);
    for _ in 0..BISECTIONS {
        if high - low <= RATIO_TOLERANCE * high {
            break;
        }
        let mid = 0.5 * (low + high);
        match feasible(mid) {
            Some(x) => {
                best = x;
                high = mid;
            }
            None => low = mid,
        }
    }
    best
}

fn nothing(jobs: &[LpJob]) -> Allocation {
    jobs.iter().map(|job| vec![0.0; job.speed.len()]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(gpus: f64, speed: &[f64], elapsed_s: f64, remaining_s: f64) -> LpJob {
        LpJob {
            gpus,
            speed: speed.to_vec(),
            elapsed_s,
            remaining_s,
        }
    }

    fn cluster(capacity: &[f64], in_system: usize) -> LpCluster {
        LpCluster {
            capacity: capacity.to_vec(),
            totals: capacity.to_vec(),
            in_system,
        }
    }

    fn within_capacity(jobs: &[LpJob], c: &LpCluster, x: &Allocation) {
        for (j, xs) in x.iter().enumerate() {
            assert!(xs.iter().sum::<f64>() <= 1.0 + 1e-7, "job {j}: {xs:?}");
        }
        for (m, cap) in c.capacity.iter().enumerate() {
            let used: f64 = jobs.iter().zip(x).map(|(job, xs)| job.gpus * xs[m]).sum();
            assert!(used <= cap + 1e-7, "model {m}: {used} > {cap}");
        }
    }

    /// Two jobs whose faster models cross, one GPU of each model: each gets its faster model
    /// all the time, which no equal split beats.
    #[test]
    fn max_min_gives_each_job_its_faster_model_when_their_rankings_cross() {
        let jobs = [
            job(1.0, &[2.0, 1.0], 0.0, 0.0),
            job(1.0, &[1.0, 3.0], 0.0, 0.0),
        ];
        let c = cluster(&[1.0, 1.0], 2);
        let x = max_min_fairness(&jobs, &c);
        within_capacity(&jobs, &c, &x);
        assert!(
            (x[0][0] - 1.0).abs() < 1e-6 && x[0][1].abs() < 1e-6,
            "{x:?}"
        );
        assert!(
            (x[1][1] - 1.0).abs() < 1e-6 && x[1][0].abs() < 1e-6,
            "{x:?}"
        );
    }

    /// Three one-GPU jobs on one GPU of one model: the fair allocation is a third each.
    #[test]
    fn max_min_splits_one_gpu_equally_between_equal_jobs() {
        let jobs = vec![job(1.0, &[1.0], 0.0, 0.0); 3];
        let c = cluster(&[1.0], 3);
        let x = max_min_fairness(&jobs, &c);
        for xs in &x {
            assert!((xs[0] - 1.0 / 3.0).abs() < 1e-6, "{x:?}");
        }
        // each at its isolated rate: 1/3 of the cluster
        assert!((rate(&jobs, &x, 0) - isolated_rate(&jobs[0], &c)).abs() < 1e-6);
    }

    /// A job that may run on no model with capacity gets nothing, and the others still share.
    #[test]
    fn a_job_that_cannot_run_gets_nothing_and_does_not_block_the_rest() {
        let jobs = [
            job(1.0, &[0.0, 1.0], 0.0, 0.0),
            job(1.0, &[1.0, 1.0], 0.0, 0.0),
        ];
        let c = LpCluster {
            capacity: vec![1.0, 0.0],
            totals: vec![1.0, 1.0],
            in_system: 2,
        };
        let x = max_min_fairness(&jobs, &c);
        within_capacity(&jobs, &c, &x);
        assert_eq!(x[0], vec![0.0, 0.0]);
        assert!((x[1][0] - 1.0).abs() < 1e-6, "{x:?}");
    }

    /// One GPU free for two of four jobs in the system (isolated share: a quarter each): one
    /// old and nearly done, one new and long. Max-min splits the GPU in half; finish-time
    /// fairness gives the old job about three quarters, as its ratio `(e + r/s) / (e + 4r)`
    /// is the worse one at half, and lowers the largest ratio.
    #[test]
    fn finish_time_fairness_lowers_the_largest_ratio_below_max_min() {
        let jobs = [
            job(1.0, &[1.0], 10_000.0, 100.0),
            job(1.0, &[1.0], 0.0, 10_000.0),
        ];
        let c = LpCluster {
            capacity: vec![1.0],
            totals: vec![1.0],
            in_system: 4,
        };
        let fair = max_min_fairness(&jobs, &c);
        let ftf = finish_time_fairness(&jobs, &c);
        within_capacity(&jobs, &c, &ftf);
        let worst = |x: &Allocation| {
            (0..2)
                .map(|j| {
                    let (e, r) = (jobs[j].elapsed_s, jobs[j].remaining_s);
                    (e + r / rate(&jobs, x, j)) / (e + r / isolated_rate(&jobs[j], &c))
                })
                .fold(0.0, f64::max)
        };
        assert!((fair[0][0] - 0.5).abs() < 1e-6, "{fair:?}");
        // by hand: (10000 + 100/s) / 10400 = 0.25 / (1 - s) at s = 0.743, both 0.9745; the
        // bisection stops within RATIO_TOLERANCE of it
        assert!((ftf[0][0] - 0.743).abs() < 0.03, "{ftf:?}");
        assert!((worst(&ftf) - 0.9745).abs() < 2e-3, "{}", worst(&ftf));
        assert!(worst(&fair) > 0.98, "{}", worst(&fair));
    }
}
