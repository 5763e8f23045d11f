//! # schedlab-agents
//!
//! Every scheduler behind one [`Policy`] trait: observation and action mask in, action out.
//! Schedulers are rows of one table ([`registry`]): a name, the kinds of env it acts in, typed
//! options, a constructor. A new scheduler is one new file plus one row beside it.
//!
//! It knows the environments' public API (spaces, observations, masks, what each kind of
//! workload declares) and nothing of how they simulate, of training loops, logging or the
//! command line.

pub mod bandit;
pub mod context;
pub mod control;
pub mod dag;
pub mod dqn;
pub mod jobs;
pub mod learned;
pub mod markov;
pub mod network;
pub mod options;
mod policy;
pub mod ppo;
pub mod raes;
mod random;
pub mod registry;
pub mod rollout;
pub mod scheduler_row;
pub mod single_job;

pub use context::{
    DagContext, EnvContext, JobsContext, NetworkContext, PolicyContext, SchedulingEnv,
    SingleJobContext, TrainedLoader,
};
pub use options::PolicyError;
pub use policy::Policy;
pub use random::RandomPolicy;
pub use rollout::{run_episode, run_episode_observed};
pub use schedlab_env::EnvKind;
pub use single_job::{GreedyPolicy, PeriodicPolicy, StaticPolicy};
