//! # schedlab-trainer
//!
//! Trains learned schedulers: rollouts over vectorised environments and the optimisation
//! loops (PPO, A2C, DQN with replay, REINFORCE for the DAG network, evolution strategies), run
//! folders with TensorBoard event files, hyperparameters and checkpoints; [`algorithms`] is
//! the table of learning algorithms. It uses the environment and the agents; it must know
//! nothing of the command line.

pub mod a2c;
pub mod algorithm;
pub mod algorithms;
pub mod device;
pub mod dqn;
pub mod errors;
pub mod es;
pub mod evaluation;
pub mod gnn;
pub mod grad_norm;
pub mod imitation;
#[cfg(test)]
mod known_answers;
pub mod learner;
pub mod play_settings;
pub mod ppo;
pub mod replay;
pub mod reward_scale;
pub mod run;
pub mod tensorboard;
#[cfg(test)]
mod toy;
pub mod train;
pub mod trained;
pub mod training_env;
