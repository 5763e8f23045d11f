//! What a control scheduler knows of its env.

use std::ops::Deref;
use std::sync::Arc;

use schedlab_env::control::{ControlEnv, ControlWorkload};
use schedlab_env::{EnvKind, Environment};

use super::common::PolicyContext;

/// What a control scheduler knows: the spaces and the workload (its task).
#[derive(Debug, Clone)]
pub struct ControlContext {
    pub common: PolicyContext,
    pub workload: Arc<ControlWorkload>,
}

impl Deref for ControlContext {
    type Target = PolicyContext;
    fn deref(&self) -> &PolicyContext {
        &self.common
    }
}

impl ControlContext {
    /// The kind of env this context is of.
    pub fn kind(&self) -> EnvKind {
        EnvKind::Control
    }

    /// What sets the shapes of this env's spaces, as `(setting, value)`.
    pub fn shape_settings(&self) -> Vec<(String, String)> {
        let task = format!("{:?}", self.workload.spec.control.task).to_lowercase();
        vec![("control.task".into(), task)]
    }

    pub fn of(env: &ControlEnv) -> Self {
        ControlContext {
            common: PolicyContext::new(env.action_space().clone(), env.observation_space().clone()),
            workload: Arc::clone(env.workload()),
        }
    }
}
