//! The metaheuristics' decoder: a plan's makespan as the env would play it (its order,
//! insertion), and a continuous position mapped to GPUs that hold each task.

use schedlab_env::dag::{Builder, Problem, env_order};

pub struct Decoder<'a> {
    pub problem: &'a Problem,
    /// The env's order, and the problem renumbered by it (played front to back).
    order: Vec<usize>,
    in_order: Problem,
    identity: Vec<usize>,
    /// A plan renumbered the same way.
    scratch: Vec<usize>,
    builder: Builder,
    /// Each task's GPUs that hold it.
    pub fitting: Vec<Vec<usize>>,
    /// Plans evaluated so far.
    pub evaluations: usize,
}

impl<'a> Decoder<'a> {
    pub fn new(problem: &'a Problem) -> Self {
        let order = env_order(problem);
        Decoder {
            problem,
            in_order: problem.renumbered(&order),
            identity: (0..problem.len()).collect(),
            scratch: vec![0; problem.len()],
            order,
            builder: Builder::new(problem),
            fitting: fitting_gpus(problem),
            evaluations: 0,
        }
    }

    /// The makespan of `assignment` in the env.
    pub fn makespan_s(&mut self, assignment: &[usize]) -> f64 {
        self.evaluations += 1;
        for (slot, &t) in self.scratch.iter_mut().zip(&self.order) {
            *slot = assignment[t];
        }
        self.builder
            .play(&self.in_order, &self.identity, &self.scratch)
    }

    /// Position `x[t]` in `[0, 1)` picks among task `t`'s GPUs that hold it.
    pub fn gpus_of(&self, position: &[f64]) -> Vec<usize> {
        position
            .iter()
            .zip(&self.fitting)
            .map(|(&x, gpus)| gpus[((x * gpus.len() as f64) as usize).min(gpus.len() - 1)])
            .collect()
    }

    /// The position in the middle of each task's interval for `assignment`'s GPU (so that
    /// [`Self::gpus_of`] gives `assignment` back).
    pub fn position_of(&self, assignment: &[usize]) -> Vec<f64> {
        assignment
            .iter()
            .zip(&self.fitting)
            .map(|(g, gpus)| {
                let k = gpus
                    .iter()
                    .position(|x| x == g)
                    .expect("a plan uses GPUs that hold its tasks");
                (k as f64 + 0.5) / gpus.len() as f64
            })
            .collect()
    }
}

/// Each task's GPUs that hold it.
fn fitting_gpus(problem: &Problem) -> Vec<Vec<usize>> {
    (0..problem.len())
        .map(|t| {
            (0..problem.gpus())
                .filter(|&g| problem.fits(t, g))
                .collect()
        })
        .collect()
}
