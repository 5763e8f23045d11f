//! Schedulers of the multi-job cluster ([`schedlab_env::jobs::JobsEnv`]): they read the
//! window of queued and running jobs from the observation's slot blocks and answer, per
//! slot, a workers level, a size level and a placement.

#[cfg(test)]
mod crossing;
mod gavel;
pub mod gavel_lp;
mod one_choice;
mod ordering;
mod periodic;
mod placement;
mod pollux;
mod raes;
mod restricted;
mod throughput_greedy;

pub use one_choice::OneChoice;
pub use ordering::{Order, OrderingPolicy};
pub use periodic::PeriodicPolicy;
pub use pollux::PolluxPolicy;
pub use raes::JobsRaesPolicy;
pub use restricted::{ChoiceRestriction, Restricted};

use crate::scheduler_row::SchedulerRow;

/// The jobs schedulers, in listing order.
pub const SCHEDULERS: &[SchedulerRow] = &[
    ordering::FIFO,
    ordering::SJF,
    ordering::LAS,
    ordering::STATIC,
    periodic::ROW,
    pollux::ROW,
    raes::ROW,
    throughput_greedy::ROW,
    throughput_greedy::GAVEL_FIFO,
    gavel::MAX_MIN,
    gavel::FINISH_TIME,
];
