//! Schedulers of the classic control tasks ([`schedlab_env::control::ControlEnv`]): none of
//! their own; the generic ones (random, the learned agents) act in them.

use crate::scheduler_row::SchedulerRow;

/// The control tasks' own schedulers: none.
pub const SCHEDULERS: &[SchedulerRow] = &[];
