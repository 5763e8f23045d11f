//! # schedlab-agents
//!
//! Every scheduler behind one [`Policy`] trait: observation and action mask in, action out.
//! A new scheduler is one new file here plus one line in [`registry`].
//!
//! It knows the environment's public API (spaces, observations, masks) and nothing of how the
//! environment simulates, of training loops, logging or the command line.

pub mod dqn;
mod greedy;
pub mod jobs;
pub mod learned;
mod periodic;
mod policy;
pub mod ppo;
pub mod raes;
mod random;
pub mod registry;
pub mod rollout;
mod static_alloc;

pub use greedy::GreedyPolicy;
pub use periodic::PeriodicPolicy;
pub use policy::{Policy, PolicyContext, SchedulingEnv};
pub use random::RandomPolicy;
pub use registry::{PolicyError, by_name, names};
pub use rollout::{run_episode, run_episode_observed};
pub use static_alloc::StaticPolicy;
