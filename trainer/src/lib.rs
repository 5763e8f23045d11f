//! # schedlab-trainer
//!
//! Will own the training of learned schedulers: rollouts over vectorised environments,
//! replay buffers, optimisation loops, checkpoints and TensorBoard logging (DESIGN §5).
//! It uses the environment and the agents; it must know nothing of the command line.
//!
//! Empty until the learned-agents issue lands.
