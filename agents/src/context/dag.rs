//! What a DAG scheduler knows of its env.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use schedlab_env::dag::{DagEnv, DagWorkload};

use super::common::PolicyContext;
use crate::options::PolicyError;
use crate::policy::Policy;
use schedlab_env::EnvKind;

/// What a DAG scheduler knows: the spaces and the workload it draws instances from.
#[derive(Debug, Clone)]
pub struct DagContext {
    pub common: PolicyContext,
    pub workload: Arc<DagWorkload>,
    /// Resolves the spec of a policy that guides another (WORL-RTGS's guide): a trained agent
    /// or any DAG scheduler. The registry sets it (`agents/src/registry.rs`).
    pub guides: Option<GuideResolver>,
}

/// Resolves a guide's spec in a DAG env.
pub type ResolveGuide =
    dyn Fn(&str, &DagContext) -> Result<Box<dyn Policy>, PolicyError> + Send + Sync;

/// A shared [`ResolveGuide`].
#[derive(Clone)]
pub struct GuideResolver(pub Arc<ResolveGuide>);

impl fmt::Debug for GuideResolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GuideResolver")
    }
}

impl Deref for DagContext {
    type Target = PolicyContext;
    fn deref(&self) -> &PolicyContext {
        &self.common
    }
}

impl DagContext {
    /// The kind of env this context is of.
    pub fn kind(&self) -> EnvKind {
        EnvKind::Dag
    }

    /// What sets the shapes of this env's spaces, as `(setting, value)`.
    pub fn shape_settings(&self) -> Vec<(String, String)> {
        vec![
            ("GPUs".into(), self.workload.platform.gpus().to_string()),
            (
                "ready_tasks".into(),
                self.workload.spec.ready_tasks.to_string(),
            ),
        ]
    }

    pub fn of(env: &DagEnv) -> Self {
        use schedlab_env::Environment;
        DagContext {
            common: PolicyContext::new(env.action_space().clone(), env.observation_space().clone()),
            workload: Arc::clone(env.workload()),
            guides: None,
        }
    }
}
