//! The one interface every scheduler implements.

use schedlab_env::Observation;

/// A scheduler. `act` must return, for every dimension, a level the observation's mask allows.
pub trait Policy: Send {
    fn name(&self) -> &str;
    /// Called at the start of every episode with that episode's seed.
    fn reset(&mut self, seed: u64);
    fn act(&mut self, observation: &Observation) -> Vec<usize>;
}
