//! Schedulers of the chain MDPs ([`schedlab_env::markov::MarkovEnv`]): none of their own;
//! the generic ones (random, the learned agents) act in them, and their known answers are
//! the env's (`docs/learned.md`).

use crate::scheduler_row::SchedulerRow;

/// The chains' own schedulers: none.
pub const SCHEDULERS: &[SchedulerRow] = &[];
