//! What the learned DAG scheduler reads: per task, static features of the instance (its
//! embedding's input), the successor matrix its messages travel along, and per decision one
//! row per (task, GPU) choice from the env's observation.

use schedlab_env::Observation;
use schedlab_env::dag::{
    GPU_FEATURES, Problem, TASK_FEATURES, downward_rank, mean_exec_s, upward_rank,
};

/// Per task: mean execution, upward rank, downward rank, parents, children, data in, data
/// out, spread of execution over the GPUs that hold it, share of GPUs that hold it, release.
pub const TASK_INPUTS: usize = 10;
/// Per (task, GPU) choice: the GPU's features for the task and the task's, as the env
/// observes them.
pub const CHOICE_INPUTS: usize = GPU_FEATURES + TASK_FEATURES;

/// An instance as the network's input: `features` `[tasks, TASK_INPUTS]` and `successors`
/// `[tasks, tasks]`, row `t` holding `1 / |succ(t)|` at each successor of `t` (a mean over
/// them), both row-major.
#[derive(Debug, Clone)]
pub struct TaskInputs {
    pub tasks: usize,
    pub features: Vec<f32>,
    pub successors: Vec<f32>,
}

impl TaskInputs {
    pub fn of(problem: &Problem) -> Self {
        let n = problem.len();
        let mean_exec: Vec<f64> = (0..n).map(|t| mean_exec_s(problem, t)).collect();
        // times in the instance's mean task execution, ranks in the longest upward rank, so
        // the inputs do not depend on the instance's scale
        let scale = (mean_exec.iter().sum::<f64>() / n as f64).max(f64::MIN_POSITIVE);
        let up = upward_rank(problem);
        let down = downward_rank(problem);
        let rank_max = up.iter().copied().fold(f64::MIN_POSITIVE, f64::max);
        let first_release = (0..n)
            .map(|t| problem.release_s(t))
            .fold(f64::INFINITY, f64::min);
        let per_mb = problem.mean_per_mb_s();
        let data = |edges: &[(usize, f64)]| edges.iter().map(|(_, d)| d * per_mb).sum::<f64>();
        let mut features = Vec::with_capacity(n * TASK_INPUTS);
        let mut successors = vec![0.0f32; n * n];
        for t in 0..n {
            let held: Vec<f64> = (0..problem.gpus())
                .filter(|&g| problem.fits(t, g))
                .map(|g| problem.exec_s(t, g))
                .collect();
            let (fastest, slowest) = held.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
            let row = [
                mean_exec[t] / scale,
                up[t] / rank_max,
                down[t] / rank_max,
                (problem.preds(t).len() as f64).ln_1p(),
                (problem.succs(t).len() as f64).ln_1p(),
                data(problem.preds(t)) / scale,
                data(problem.succs(t)) / scale,
                (slowest - fastest) / mean_exec[t].max(f64::MIN_POSITIVE),
                held.len() as f64 / problem.gpus() as f64,
                (problem.release_s(t) - first_release) / rank_max,
            ];
            features.extend(row.iter().map(|&x| x as f32));
            let succs = problem.succs(t);
            for &(s, _) in succs {
                successors[t * n + s] = 1.0 / succs.len() as f32;
            }
        }
        TaskInputs {
            tasks: n,
            features,
            successors,
        }
    }
}

/// One decision's choices as rows of [`CHOICE_INPUTS`]: with `ready_tasks = 0` one per GPU
/// (the env's next task), else one per (slot, GPU), slot-major, as the action indexes them.
pub fn choice_rows(observation: &Observation, ready_tasks: usize, gpus: usize) -> Vec<f32> {
    let f = &observation.features;
    if ready_tasks == 0 {
        let task = &f[gpus * GPU_FEATURES..gpus * GPU_FEATURES + TASK_FEATURES];
        (0..gpus)
            .flat_map(|g| {
                f[g * GPU_FEATURES..(g + 1) * GPU_FEATURES]
                    .iter()
                    .chain(task)
                    .copied()
            })
            .collect()
    } else {
        f[..ready_tasks * gpus * CHOICE_INPUTS].to_vec()
    }
}
