//! What a markov scheduler knows of its env.

use std::ops::Deref;
use std::sync::Arc;

use schedlab_env::markov::{MarkovEnv, MarkovSpec, MarkovWorkload};
use schedlab_env::{EnvKind, Environment};

use super::common::PolicyContext;

/// What a markov scheduler knows: the spaces and the workload (its chain).
#[derive(Debug, Clone)]
pub struct MarkovContext {
    pub common: PolicyContext,
    pub workload: Arc<MarkovWorkload>,
}

impl Deref for MarkovContext {
    type Target = PolicyContext;
    fn deref(&self) -> &PolicyContext {
        &self.common
    }
}

impl MarkovContext {
    /// The kind of env this context is of.
    pub fn kind(&self) -> EnvKind {
        EnvKind::Markov
    }

    /// What sets the shapes of this env's spaces, as `(setting, value)`.
    pub fn shape_settings(&self) -> Vec<(String, String)> {
        match self.workload.task() {
            MarkovSpec::Chain { length, .. } => vec![("markov.length".into(), length.to_string())],
            MarkovSpec::SemiMarkov { choices, .. } => {
                vec![("markov.choices".into(), choices.to_string())]
            }
        }
    }

    pub fn of(env: &MarkovEnv) -> Self {
        MarkovContext {
            common: PolicyContext::new(env.action_space().clone(), env.observation_space().clone()),
            workload: Arc::clone(env.workload()),
        }
    }
}
