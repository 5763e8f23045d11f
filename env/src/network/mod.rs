//! A network of computing centres co-optimising CPU allocation and distributed training
//! (after Doostmohammadian, Gabidullina and Rabiee 2025, `../shared/papers/003_*`; only its
//! abstract is at hand, so what it does not fix is the workbench's reconstruction, see the
//! README's network section): communication graphs that may change over time, quantised
//! channels, the centres' costs of CPUs, the centralised optimum, and the all-time-feasible
//! allocation dynamics, and distributed training by consensus with gradient tracking.

pub mod allocation;
pub mod cost;
pub mod graph;
pub mod quantize;
pub mod switching;
pub mod training;

pub use allocation::{Dynamics, capacity_proportional, proportional, uniform};
pub use cost::{CentreCost, optimum, sampled_costs, total_cost};
pub use graph::{Graph, Weights};
pub use quantize::Quantizer;
pub use switching::{GraphKind, GraphSequence, Switching};
pub use training::{ConsensusTraining, centralised_objective, shards};

#[cfg(test)]
mod tests;
