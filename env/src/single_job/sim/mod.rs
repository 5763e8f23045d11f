//! The real training loop on a virtual clock: workers pull parameters, compute real
//! minibatch gradients, and push them to a parameter server, with compute and communication
//! times from the cluster model.

mod cost;
mod engine;
pub mod rules;
mod server;
mod worker;

pub use cost::CostModel;
pub use engine::TrainingSim;
pub use server::{Applied, Server};
pub use worker::WorkerRound;
pub(crate) use worker::compute_gradient;
