//! Planning schedulers acting in the DAG env: a plan per episode, replayed a task at a time.

use std::sync::Arc;

use schedlab_env::Observation;
use schedlab_env::dag::{DagWorkload, Problem, Schedule, env_order};

use crate::context::DagContext;
use crate::context::EnvContext;
use crate::options::{OptionSpec, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::{BuildFn, SchedulerRow};
use schedlab_env::EnvKind;

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
    let workload = DagContext::part_of(ctx).workload.clone();
    Ok(Box::new(PlanPolicy::new(name, workload, Box::new(planner))))
}

/// Plans a whole instance: a GPU for every task.
pub trait Planner: Send {
    fn plan(&mut self, problem: &Problem, seed: u64) -> Vec<usize>;
}

/// A list scheduler's published algorithm: the instance in, its schedule out.
pub type ListScheduler = fn(&Problem) -> Schedule;

/// A list scheduler plans its schedule's GPUs (it draws nothing from the seed).
impl Planner for ListScheduler {
    fn plan(&mut self, problem: &Problem, _seed: u64) -> Vec<usize> {
        self(problem).gpu
    }
}

/// A [`Planner`] acting in the DAG env.
pub struct PlanPolicy {
    name: &'static str,
    workload: Arc<DagWorkload>,
    planner: Box<dyn Planner>,
    order: Vec<usize>,
    plan: Vec<usize>,
    step: usize,
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
        }
    }
}

impl Policy for PlanPolicy {
    fn name(&self) -> &str {
        self.name
    }

    fn reset(&mut self, seed: u64) {
        let problem = self.workload.instance(seed);
        self.plan = self.planner.plan(&problem, seed);
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
