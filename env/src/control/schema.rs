//! The control workload file's schema (`kind = "control"`): which task and its time limit.
//! Checking it is `checks.rs`'s, reading it `load.rs`'s.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlWorkloadSpec {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub control: ControlSpec,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlSpec {
    pub task: Task,
    /// Steps after which an episode is truncated (Gymnasium's `max_episode_steps`: 500 for
    /// both v1 tasks).
    #[serde(default = "gymnasium_time_limit")]
    pub max_steps: usize,
}

fn gymnasium_time_limit() -> usize {
    500
}

/// The task, as Gymnasium names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Task {
    /// CartPole-v1: push a cart left or right to keep its pole up; +1 per step.
    Cartpole,
    /// Acrobot-v1: torque -1, 0 or +1 on the joint to swing the tip above the bar; -1 per step.
    Acrobot,
}
