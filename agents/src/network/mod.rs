//! Schedulers of the network of computing centres ([`schedlab_env::network::NetworkEnv`]):
//! each step they choose a flow of CPUs per edge on the env's log ladder. `consensus` follows
//! the all-time-feasible dynamics on the marginal costs the centres send; `rikos`,
//! `proportional` and `optimum` steer the allocation to a fixed split by quantised averaging
//! of each centre's excess over its target; `uniform` keeps the even split it starts from.

mod consensus;
mod tracking;
mod uniform;

pub use consensus::ConsensusFlows;
pub use tracking::{Target, Tracking};

use crate::scheduler_row::SchedulerRow;

/// The network schedulers, in listing order.
pub const SCHEDULERS: &[SchedulerRow] = &[
    consensus::ROW,
    uniform::ROW,
    tracking::PROPORTIONAL,
    tracking::RIKOS,
    tracking::OPTIMUM,
];

#[cfg(test)]
mod tests;
