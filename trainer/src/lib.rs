//! # schedlab-trainer
//!
//! Trains learned schedulers: rollouts over vectorised environments and the optimisation
//! loops (PPO so far), later checkpoints and TensorBoard logging (DESIGN §5). It uses the
//! environment and the agents; it must know nothing of the command line.

pub mod ppo;
