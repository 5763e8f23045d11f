//! The PPO loop in CleanRL's order, a file per phase that owns its state: collect
//! `rollout_steps` rounds from every env copy (`rollout`), estimate advantages with GAE
//! (`advantages`), then optimise the clipped objective for `epochs` passes over shuffled
//! minibatches (`update`). `trainer` holds the three and the agent they share.

mod advantages;
mod algorithm;
mod config;
mod learner;
mod network;
mod record;
mod resume;
mod rollout;
mod same_window;
mod schedule;
mod shards;
mod trainer;
mod update;
mod windows;

pub use algorithm::Ppo;
pub use config::{Baseline, Curriculum, PpoConfig, TrajectoryFilter, WarmStart};
pub use network::network;
pub use trainer::PpoTrainer;

#[cfg(test)]
mod tests;
