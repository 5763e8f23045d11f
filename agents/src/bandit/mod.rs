//! Schedulers of the masked bandit ([`schedlab_env::bandit::BanditEnv`]): none of its own;
//! the generic ones (random, the learned agents) act in it, and its known optimum is the
//! env's (`BanditWorkload::optimum`), which learners' tests compare with.

use crate::scheduler_row::SchedulerRow;

/// The bandit's own schedulers: none.
pub const SCHEDULERS: &[SchedulerRow] = &[];
