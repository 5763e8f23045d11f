//! What a bandit scheduler knows of its env.

use std::ops::Deref;
use std::sync::Arc;

use schedlab_env::bandit::{BanditEnv, BanditWorkload};
use schedlab_env::{EnvKind, Environment};

use super::common::PolicyContext;

/// What a bandit scheduler knows: the spaces and the workload (its mean rewards).
#[derive(Debug, Clone)]
pub struct BanditContext {
    pub common: PolicyContext,
    pub workload: Arc<BanditWorkload>,
}

impl Deref for BanditContext {
    type Target = PolicyContext;
    fn deref(&self) -> &PolicyContext {
        &self.common
    }
}

impl BanditContext {
    /// The kind of env this context is of.
    pub fn kind(&self) -> EnvKind {
        EnvKind::Bandit
    }

    /// What sets the shapes of this env's spaces, as `(setting, value)`.
    pub fn shape_settings(&self) -> Vec<(String, String)> {
        let b = &self.workload.spec.bandit;
        vec![
            ("bandit.states".into(), b.states.to_string()),
            ("bandit.dims".into(), b.dims.to_string()),
            ("bandit.levels".into(), b.levels.to_string()),
        ]
    }

    pub fn of(env: &BanditEnv) -> Self {
        BanditContext {
            common: PolicyContext::new(env.action_space().clone(), env.observation_space().clone()),
            workload: Arc::clone(env.workload()),
        }
    }
}
