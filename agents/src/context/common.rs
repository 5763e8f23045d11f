//! What every env offers a policy.

use schedlab_env::{ActionSpace, ObservationSpace};

/// What every env offers a policy: its declared spaces.
#[derive(Debug, Clone)]
pub struct PolicyContext {
    pub action_space: ActionSpace,
    pub observation_space: ObservationSpace,
}

impl PolicyContext {
    pub fn new(action_space: ActionSpace, observation_space: ObservationSpace) -> Self {
        PolicyContext {
            action_space,
            observation_space,
        }
    }
}
