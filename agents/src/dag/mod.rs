//! Schedulers of DAG workloads ([`schedlab_env::dag::DagEnv`]): each plans the whole
//! instance of an episode at `reset` (the same instance the env drew from the same seed)
//! and answers, per step, the GPU its plan gives the env's current task. The env's executor
//! is also their decoder ([`schedlab_env::dag::Builder::play`] in the env's order), so a
//! plan's makespan in the env is the one the planner saw, except for the list schedulers
//! with their own task order (CPOP, PEFT, min-min, max-min): the env replays their GPU
//! choices in its order.

mod cpop;
mod decoder;
mod ga;
pub mod gnn;
mod guide;
mod heft;
mod max_min;
mod min_min;
mod peft;
mod plan;
pub mod plan_distance;
mod round_robin;
mod woa;
mod worl_rtgs;

use std::ops::Deref;
use std::sync::Arc;

use schedlab_env::dag::{DagEnv, DagWorkload};

pub use cpop::cpop;
pub use decoder::Decoder;
pub use ga::Ga;
pub use guide::Guide;
pub use heft::heft;
pub use min_min::{max_min, min_min};
pub use peft::peft;
pub use plan::{ListScheduler, PlanPolicy, Planner};
pub use woa::{SearchBudget, Whale, Woa, WoaDraws, woa_move};
pub use worl_rtgs::{DEFAULT_GUIDE, WorlRtgs};

use crate::policy::{EnvContext, PolicyContext};
use crate::scheduler_row::SchedulerRow;

/// The DAG schedulers, in listing order.
pub const SCHEDULERS: &[SchedulerRow] = &[
    heft::ROW,
    cpop::ROW,
    peft::ROW,
    min_min::ROW,
    max_min::ROW,
    round_robin::ROW,
    ga::ROW,
    woa::ROW,
    worl_rtgs::ROW,
];

/// The published list schedulers by name, for benchmarks.
pub const LIST_SCHEDULERS: [(&str, ListScheduler); 5] = [
    ("heft", heft),
    ("cpop", cpop),
    ("peft", peft),
    ("min-min", min_min),
    ("max-min", max_min),
];

/// What a DAG scheduler knows: the spaces and the workload it draws instances from.
#[derive(Debug, Clone)]
pub struct DagContext {
    pub common: PolicyContext,
    pub workload: Arc<DagWorkload>,
}

impl Deref for DagContext {
    type Target = PolicyContext;
    fn deref(&self) -> &PolicyContext {
        &self.common
    }
}

impl DagContext {
    pub fn of(env: &DagEnv) -> Self {
        use schedlab_env::Environment;
        DagContext {
            common: PolicyContext::new(env.action_space().clone(), env.observation_space().clone()),
            workload: Arc::clone(env.workload()),
        }
    }
}

pub(crate) fn dag_context(ctx: &EnvContext) -> &DagContext {
    match ctx {
        EnvContext::Dag(ctx) => ctx,
        other => unreachable!("a DAG scheduler built for {:?}", other.kind()),
    }
}

#[cfg(test)]
mod tests;
