//! The context of an env of any kind, and the envs schedulers can act in.

use std::fmt;
use std::sync::Arc;

use schedlab_env::EnvKind;

use super::common::PolicyContext;
use super::dag::DagContext;
use super::jobs::JobsContext;
use super::network::NetworkContext;
use super::single_job::SingleJobContext;
use crate::options::PolicyError;
use crate::policy::Policy;

/// From env's table of kinds (`schedlab_env::kinds_table!`): the context enum, and each
/// kind's env as a [`SchedulingEnv`] whose context is its row's.
macro_rules! env_contexts {
    ([] $(($kind:ident, $name:literal, $doc:literal, $workload:ty, $env:ty, $context:ident)),+) => {
        /// What a scheduler of one kind of env knows of it: the common part and that env's own.
        #[derive(Debug, Clone)]
        pub enum EnvContext {
            $($kind($context),)+
        }

        $(impl SchedulingEnv for $env {
            fn context(&self) -> EnvContext {
                EnvContext::$kind($context::of(self))
            }
        })+
    };
}

schedlab_env::kinds_table!(callback env_contexts []);

/// The trained agent a spec names (a run folder, a shipped policy), acting in the env of the
/// context; `None` when the spec names no trained agent.
pub type LoadTrained =
    dyn Fn(&str, &EnvContext) -> Option<Result<Box<dyn Policy>, PolicyError>> + Send + Sync;

/// A shared [`LoadTrained`]; the command line provides it.
#[derive(Clone)]
pub struct TrainedLoader(pub Arc<LoadTrained>);

impl fmt::Debug for TrainedLoader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TrainedLoader")
    }
}

impl EnvContext {
    pub fn kind(&self) -> EnvKind {
        schedlab_env::each_kind!(EnvContext, self, ctx => ctx.kind())
    }

    pub fn common(&self) -> &PolicyContext {
        schedlab_env::each_kind!(EnvContext, self, ctx => &ctx.common)
    }

    /// What sets the shapes of this env's spaces, as `(setting, value)`: named where a trained
    /// policy's spaces differ.
    pub fn shape_settings(&self) -> Vec<(String, String)> {
        schedlab_env::each_kind!(EnvContext, self, ctx => ctx.shape_settings())
    }
}

/// The single-job part of `ctx`; a registry row of this kind is only built with one.
pub fn single_job_context(ctx: &EnvContext) -> &SingleJobContext {
    match ctx {
        EnvContext::SingleJob(ctx) => ctx,
        other => unreachable!("a single-job scheduler built for {:?}", other.kind()),
    }
}

/// The jobs part of `ctx`; a registry row of this kind is only built with one.
pub fn jobs_context(ctx: &EnvContext) -> &JobsContext {
    match ctx {
        EnvContext::Jobs(ctx) => ctx,
        other => unreachable!("a jobs scheduler built for {:?}", other.kind()),
    }
}

/// The DAG part of `ctx`; a registry row of this kind is only built with one.
pub fn dag_context(ctx: &EnvContext) -> &DagContext {
    match ctx {
        EnvContext::Dag(ctx) => ctx,
        other => unreachable!("a DAG scheduler built for {:?}", other.kind()),
    }
}

/// The network part of `ctx`; a registry row of this kind is only built with one.
pub fn network_context(ctx: &EnvContext) -> &NetworkContext {
    match ctx {
        EnvContext::Network(ctx) => ctx,
        other => unreachable!("a network scheduler built for {:?}", other.kind()),
    }
}

/// An environment schedulers can act in: its context for them.
pub trait SchedulingEnv: schedlab_env::Environment + 'static {
    fn context(&self) -> EnvContext;
    /// What every env offers (for the generic policies: random, the learned agents).
    fn policy_context(&self) -> PolicyContext {
        self.context().common().clone()
    }
}
