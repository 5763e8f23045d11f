//! The context of an env of any kind, and the envs schedulers can act in.

use std::fmt;
use std::sync::Arc;

use schedlab_env::EnvKind;

use super::common::PolicyContext;
use crate::options::PolicyError;
use crate::policy::Policy;

/// From env's table of kinds (`schedlab_env::kinds_table!`): the context enum, each kind's
/// env as a [`SchedulingEnv`] whose context is its row's, and each context's `part_of`, the
/// one way a scheduler of that kind reads its part of an [`EnvContext`].
macro_rules! env_contexts {
    ([] $(($kind:ident, $module:ident, $name:literal, $doc:literal, $workload:ty, $env:ty, $context:ident)),+) => {
        /// What a scheduler of one kind of env knows of it: the common part and that env's own.
        #[derive(Debug, Clone)]
        pub enum EnvContext {
            $($kind(super::$module::$context),)+
        }

        $(impl SchedulingEnv for $env {
            fn context(&self) -> EnvContext {
                EnvContext::$kind(super::$module::$context::of(self))
            }
        }

        impl super::$module::$context {
            /// This kind's part of `ctx`; a registry row of this kind is only built with one.
            pub fn part_of(ctx: &EnvContext) -> &Self {
                match ctx {
                    EnvContext::$kind(ctx) => ctx,
                    #[allow(unreachable_patterns)]
                    other => unreachable!("a {} scheduler built for {:?}", $name, other.kind()),
                }
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

/// An environment schedulers can act in: its context for them.
pub trait SchedulingEnv: schedlab_env::Environment + 'static {
    fn context(&self) -> EnvContext;
    /// What every env offers (for the generic policies: random, the learned agents).
    fn policy_context(&self) -> PolicyContext {
        self.context().common().clone()
    }
}
