//! The PPO loop: collect `rollout_steps` rounds from every env copy, estimate advantages
//! with GAE, then optimise the clipped objective for `epochs` passes over shuffled
//! minibatches.

mod algorithm;
mod collector;
mod config;
mod fit;
mod learner;
mod network;
mod record;
mod resume;
mod rollout;
mod same_window;
mod schedule;
mod shards;
mod trainer;
mod windows;

pub use algorithm::Ppo;
pub use config::{Baseline, Curriculum, PpoConfig, TrajectoryFilter, WarmStart};
pub use network::network;
pub use trainer::PpoTrainer;

#[cfg(test)]
mod tests;
