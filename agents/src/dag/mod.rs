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

#[cfg(test)]
mod tests;
