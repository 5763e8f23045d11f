//! # schedlab-trainer
//!
//! Trains learned schedulers: rollouts over vectorised environments and the optimisation
//! loops (PPO so far), run folders with TensorBoard event files, hyperparameters and
//! checkpoints (DESIGN §5). It uses the environment and the agents; it must know nothing of
//! the command line.

pub mod files;
pub mod ppo;
pub mod run;
pub mod tensorboard;
pub mod train;
