//! What a PPO (and A2C) checkpoint keeps beyond its records, so that a resumed run continues
//! exactly as an uninterrupted one: the update count (each update reseeds the action sampling
//! and minibatch shuffling from it), the env copies' histories with the plan each copy's
//! episode was reset under, the same-window rounds, and each copy's running discounted return.

use schedlab_agents::SchedulingEnv;
use serde::{Deserialize, Serialize};

use super::rollout::RolloutState;
use super::trainer::PpoTrainer;
use crate::errors::CheckpointError;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PpoResume {
    updates: u64,
    collector: RolloutState,
    /// The reward scale's running return per copy.
    returns: Vec<f64>,
}

impl<E: SchedulingEnv> PpoTrainer<E> {
    pub(super) fn resume(&self) -> PpoResume {
        PpoResume {
            updates: self.updates,
            collector: self.rollout.state(),
            returns: self.advantages.scale().returns().to_vec(),
        }
    }

    /// Puts the copies back where [`Self::resume`] found them.
    pub(super) fn restore_resume(&mut self, state: PpoResume) -> Result<(), CheckpointError> {
        self.advantages.scale_mut().restore_returns(state.returns)?;
        self.updates = state.updates;
        self.rollout.restore(state.collector, &self.kept_windows)
    }
}
