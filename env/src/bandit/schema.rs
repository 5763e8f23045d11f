//! The bandit workload file's schema (`kind = "bandit"`): how many states, dimensions and
//! levels, an episode's steps, the reward noise and the seed that draws the mean rewards.
//! Checking it is `checks.rs`'s, reading it `load.rs`'s.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BanditWorkloadSpec {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub bandit: BanditSpec,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BanditSpec {
    /// States, one drawn uniformly at each step and shown one-hot.
    pub states: usize,
    /// Choice dimensions of the action, each paying its own reward.
    pub dims: usize,
    /// Levels of each dimension (at least 2: odd states mask one).
    pub levels: usize,
    /// Steps of an episode; the episode terminates after the last.
    pub steps: usize,
    /// Standard deviation of the Gaussian noise on each dimension's reward.
    pub noise: f64,
    /// Orders each (state, dimension)'s evenly spaced mean rewards in [0, 1]: the workload's
    /// fixed instance.
    pub seed: u64,
}
