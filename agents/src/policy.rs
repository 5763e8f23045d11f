//! The one interface every scheduler implements, and what a scheduler may know of its env:
//! what every env offers ([`PolicyContext`]) and what one kind of env adds ([`EnvContext`]).

use std::fmt;
use std::sync::Arc;

use schedlab_env::dag::DagEnv;
use schedlab_env::jobs::JobsEnv;
use schedlab_env::network::NetworkEnv;
use schedlab_env::{ActionSpace, Observation, ObservationSpace, SingleJobEnv};

use crate::dag::DagContext;
use crate::jobs::{JobsContext, OneChoice};
use crate::network::NetworkContext;
use crate::single_job::SingleJobContext;

/// What every env offers a policy: its declared spaces, and a way to load trained agents.
#[derive(Debug, Clone)]
pub struct PolicyContext {
    pub action_space: ActionSpace,
    pub observation_space: ObservationSpace,
    /// Loads trained agents for schedulers built on another policy (WORL-RTGS's guide);
    /// the command line provides it.
    pub trained: Option<TrainedLoader>,
}

impl PolicyContext {
    pub fn new(action_space: ActionSpace, observation_space: ObservationSpace) -> Self {
        PolicyContext {
            action_space,
            observation_space,
            trained: None,
        }
    }
}

/// The trained agent a spec names (a run folder, a shipped policy), acting in the env of the
/// context; `None` when the spec names no trained agent.
pub type LoadTrained =
    dyn Fn(&str, &EnvContext) -> Option<Result<Box<dyn Policy>, String>> + Send + Sync;

/// A shared [`LoadTrained`].
#[derive(Clone)]
pub struct TrainedLoader(pub Arc<LoadTrained>);

impl fmt::Debug for TrainedLoader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TrainedLoader")
    }
}

/// The kinds of env a scheduler can act in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvKind {
    /// One training job on a cluster of nodes ([`SingleJobEnv`]).
    SingleJob,
    /// Many jobs arriving at a cluster of machines ([`JobsEnv`]).
    Jobs,
    /// DAGs of tasks placed on heterogeneous GPUs ([`DagEnv`]).
    Dag,
    /// Computing centres sharing CPUs and training by consensus ([`NetworkEnv`]).
    Network,
}

impl EnvKind {
    pub const ALL: [EnvKind; 4] = [
        EnvKind::SingleJob,
        EnvKind::Jobs,
        EnvKind::Dag,
        EnvKind::Network,
    ];

    /// As the command line and workload files say it.
    pub fn name(self) -> &'static str {
        match self {
            EnvKind::SingleJob => "single-job",
            EnvKind::Jobs => "jobs",
            EnvKind::Dag => "dag",
            EnvKind::Network => "network",
        }
    }
}

/// What a scheduler of one kind of env knows of it: the common part and that env's own.
#[derive(Debug, Clone)]
pub enum EnvContext {
    SingleJob(SingleJobContext),
    Jobs(JobsContext),
    Dag(DagContext),
    Network(NetworkContext),
}

impl EnvContext {
    pub fn kind(&self) -> EnvKind {
        match self {
            EnvContext::SingleJob(_) => EnvKind::SingleJob,
            EnvContext::Jobs(_) => EnvKind::Jobs,
            EnvContext::Dag(_) => EnvKind::Dag,
            EnvContext::Network(_) => EnvKind::Network,
        }
    }
    /// A scheduler of this kind, planning in its native interface, as the env takes actions:
    /// with the jobs env's one-choice interface it acts through [`OneChoice`].
    pub fn through_interface(&self, policy: Box<dyn Policy>) -> Box<dyn Policy> {
        match self {
            EnvContext::Jobs(ctx) => match &ctx.one_choice {
                Some(layout) => Box::new(OneChoice::new(policy, ctx.clone(), layout.clone())),
                None => policy,
            },
            EnvContext::SingleJob(_) | EnvContext::Dag(_) | EnvContext::Network(_) => policy,
        }
    }

    pub fn common(&self) -> &PolicyContext {
        match self {
            EnvContext::SingleJob(ctx) => ctx,
            EnvContext::Jobs(ctx) => ctx,
            EnvContext::Dag(ctx) => ctx,
            EnvContext::Network(ctx) => ctx,
        }
    }

    /// This context with a loader of trained agents.
    pub fn with_trained(mut self, loader: TrainedLoader) -> Self {
        let common = match &mut self {
            EnvContext::SingleJob(ctx) => &mut ctx.common,
            EnvContext::Jobs(ctx) => &mut ctx.common,
            EnvContext::Dag(ctx) => &mut ctx.common,
            EnvContext::Network(ctx) => &mut ctx.common,
        };
        common.trained = Some(loader);
        self
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

impl SchedulingEnv for SingleJobEnv {
    fn context(&self) -> EnvContext {
        EnvContext::SingleJob(SingleJobContext::of(self))
    }
}

impl SchedulingEnv for JobsEnv {
    fn context(&self) -> EnvContext {
        EnvContext::Jobs(JobsContext::of(self))
    }
}

impl SchedulingEnv for DagEnv {
    fn context(&self) -> EnvContext {
        EnvContext::Dag(DagContext::of(self))
    }
}

impl SchedulingEnv for NetworkEnv {
    fn context(&self) -> EnvContext {
        EnvContext::Network(NetworkContext::of(self))
    }
}

/// A scheduler. `act` must return, for every dimension, a level the observation's mask allows.
pub trait Policy: Send {
    fn name(&self) -> &str;
    /// Called at the start of every episode with that episode's seed.
    fn reset(&mut self, seed: u64);
    fn act(&mut self, observation: &Observation) -> Vec<usize>;
}
