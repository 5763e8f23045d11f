//! A network of computing centres co-optimising CPU allocation and distributed training
//! (after Doostmohammadian, Gabidullina and Rabiee, "Machine Learning and CPU Scheduling
//! Co-Optimization over a Network of Computing Centers", 2025; only its abstract is at hand, so what it does not fix is the workbench's reconstruction, see the
//! docs/network.md): communication graphs that may change over time, quantised
//! channels, the centres' costs of CPUs, the centralised optimum, and the all-time-feasible
//! allocation dynamics, and distributed training by consensus with gradient tracking; the
//! workload file (`kind = "network"`; `schema.rs`, `checks.rs`, `load.rs`, as every kind's)
//! with each episode's instance of it (`instance.rs`), and the gym env where schedulers move
//! CPUs along the graph's edges while the centres train.

pub mod allocation;
mod checks;
pub mod cost;
mod env;
pub mod graph;
mod instance;
mod ladder;
mod load;
mod metrics;
pub mod quantize;
mod schema;
pub mod switching;
pub mod training;

pub use allocation::{
    BelowBound, Dynamics, capacity_proportional, lipschitz, proportional, step_size, uniform,
};
pub use cost::{CentreCost, optimum, sampled_costs, total_cost};
pub use env::{CENTRE_FEATURES, EDGE_FEATURES, NETWORK_FEATURES, NetworkEnv, NetworkInfo};
pub use graph::{Graph, Weights};
pub use instance::{Instance, NetworkWorkload};
pub use ladder::FlowLadder;
pub use metrics::NetworkMetrics;
pub use quantize::Quantizer;
pub use schema::{CentresSpec, EpisodeSpec, GraphSpec, NetworkWorkloadSpec, TrainingSpec};
pub use switching::{Disconnected, GraphKind, GraphSequence, Switching};
pub use training::{ConsensusTraining, centralised_descent, centralised_objective, shards};

#[cfg(test)]
mod env_tests;
#[cfg(test)]
mod tests;
