//! Classic control tasks with known answers, with Gymnasium's dynamics, constants,
//! termination and time limits: CartPole-v1 (Barto, Sutton and Anderson, 1983) and
//! Acrobot-v1 (Sutton, 1996; the book's dynamics). They calibrate the learners against
//! CleanRL and Stable-Baselines3 through the same contract as the scheduling envs. The start
//! state is drawn from the episode's seed with schedlab's generator, not NumPy's, so an
//! episode of a seed differs from Gymnasium's of that seed; from the same state and actions
//! the trajectories are Gymnasium's (tests.rs replays recorded ones). The workload file
//! (`kind = "control"`) is laid out as every kind's: `schema.rs`, `checks.rs`, `load.rs`.

mod acrobot;
mod cartpole;
mod checks;
mod env;
mod load;
mod metrics;
mod schema;
mod workload;

pub use env::{ControlEnv, ControlInfo};
pub use metrics::ControlMetrics;
pub use schema::{ControlSpec, ControlWorkloadSpec, Task};
pub use workload::ControlWorkload;

#[cfg(test)]
mod tests;
