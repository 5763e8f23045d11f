//! Planning schedulers acting in the DAG env: a plan per episode, replayed a task at a time.

use std::sync::Arc;
use std::time::Instant;

use schedlab_env::Observation;
use schedlab_env::dag::{DagWorkload, Problem, env_order};

use super::dag_context;
use crate::options::{OptionSpec, PolicyError};
use crate::policy::{EnvContext, EnvKind, Policy};
use crate::registry::{BuildFn, SchedulerRow};

/// The registry row of a DAG scheduler.
pub(super) const fn row(
    name: &'static str,
    help: &'static str,
    options: &'static [OptionSpec],
    build: BuildFn,
) -> SchedulerRow {
    SchedulerRow {
        name,
        kinds: &[EnvKind::Dag],
        help,
        options,
        build,
    }
}

/// `planner` acting in the env of `ctx` as `name`.
pub(super) fn plan_policy(
    ctx: &EnvContext,
    name: &'static str,
    planner: impl Planner + 'static,
) -> Result<Box<dyn Policy>, PolicyError> {
    let workload = dag_context(ctx).workload.clone();
    Ok(Box::new(PlanPolicy::new(name, workload, Box::new(planner))))
}

/// Plans a whole instance: a GPU for every task.
pub trait Planner: Send {
    fn plan(&mut self, problem: &Problem, seed: u64) -> Vec<usize>;
}

/// A [`Planner`] acting in the DAG env.
pub struct PlanPolicy {
    name: &'static str,
    workload: Arc<DagWorkload>,
    planner: Box<dyn Planner>,
    order: Vec<usize>,
    plan: Vec<usize>,
    step: usize,
    /// Seconds the last plan took.
    pub wall_s: f64,
}

impl PlanPolicy {
    pub fn new(name: &'static str, workload: Arc<DagWorkload>, planner: Box<dyn Planner>) -> Self {
        PlanPolicy {
            name,
            workload,
            planner,
            order: Vec::new(),
            plan: Vec::new(),
            step: 0,
            wall_s: 0.0,
        }
    }
}

impl Policy for PlanPolicy {
    fn name(&self) -> &str {
        self.name
    }

    fn reset(&mut self, seed: u64) {
        let problem = self.workload.instance(seed);
        let started = Instant::now();
        self.plan = self.planner.plan(&problem, seed);
        self.wall_s = started.elapsed().as_secs_f64();
        self.order = env_order(&problem);
        self.step = 0;
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let gpu = self
            .order
            .get(self.step)
            .map(|&task| self.plan[task])
            .filter(|&g| observation.action_mask.get(g) == Some(&true))
            .expect(
                "a plan covers every task of the episode it was made for, on GPUs that hold it",
            );
        self.step += 1;
        vec![gpu]
    }
}

/// Each task's GPUs that hold it, for decoders that map a number to an allowed GPU.
pub(crate) fn fitting_gpus(problem: &Problem) -> Vec<Vec<usize>> {
    (0..problem.len())
        .map(|t| {
            (0..problem.gpus())
                .filter(|&g| problem.fits(t, g))
                .collect()
        })
        .collect()
}
