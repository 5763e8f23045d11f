//! What a scheduler may know of its env: what every env offers ([`PolicyContext`]) and what
//! one kind of env adds ([`EnvContext`]). These files import no scheduler, so every scheduler
//! can import them.

mod bandit;
mod common;
mod control;
mod dag;
mod env_context;
mod jobs;
mod markov;
mod network;
mod single_job;

pub use common::PolicyContext;
pub use dag::{DagContext, GuideResolver, ResolveGuide};
pub use env_context::{EnvContext, LoadTrained, SchedulingEnv, TrainedLoader};
pub use jobs::{JobsContext, SlotView};
pub use network::NetworkContext;
pub use single_job::SingleJobContext;
