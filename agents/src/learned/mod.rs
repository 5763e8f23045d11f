//! Building blocks the learned schedulers share: masked factorised categorical heads,
//! generalised advantage estimation, and the actor-critic network with the PPO objective.

pub mod actor_critic;
pub mod batch;
pub mod gae;
pub mod host_actor;
pub mod masked;
