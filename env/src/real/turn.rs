//! One real episode at a time on this machine: a real run measures wall time under CPU
//! quotas, which another run's processes beside it would take.

use std::sync::{Condvar, Mutex};

/// One real episode at a time on this machine's cores, whatever plays in parallel: held from
/// the start of a run to its end.
pub(crate) struct Turn;

static TURN_TAKEN: Mutex<bool> = Mutex::new(false);
static TURN_FREED: Condvar = Condvar::new();

impl Turn {
    pub(crate) fn take() -> Turn {
        let mut taken = TURN_TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        while *taken {
            taken = TURN_FREED.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
        *taken = true;
        Turn
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        *TURN_TAKEN.lock().unwrap_or_else(|e| e.into_inner()) = false;
        TURN_FREED.notify_one();
    }
}
