//! Schedulers of the single-job env ([`schedlab_env::SingleJobEnv`]): per node and resource a
//! level of the container ladder, read from the node blocks of the observation.

mod consensus;
mod greedy;
mod periodic;
pub mod raes;
mod static_alloc;
#[cfg(test)]
pub(crate) mod test_envs;

pub use consensus::ConsensusPolicy;
pub use greedy::GreedyPolicy;
pub use periodic::PeriodicPolicy;
pub use raes::{RaesOptions, RaesPolicy};
pub use static_alloc::StaticPolicy;

use crate::scheduler_row::SchedulerRow;

/// The single-job schedulers, in listing order: one row each.
#[rustfmt::skip]
pub const SCHEDULERS: &[SchedulerRow] = &[
    static_alloc::ROW,
    greedy::ROW,
    periodic::ROW,
    raes::ROW,
    consensus::ROW,
];
