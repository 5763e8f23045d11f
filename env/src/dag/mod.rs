//! DAG-structured training workloads on heterogeneous GPUs (see ARCHITECTURE.md and the
//! docs/dag.md): tasks with data dependencies placed on GPUs grouped on machines
//! with limited bandwidth, after Du, Wu, Hou, Nie and Song, "Efficient Scheduling for
//! GPU-Based Neural Network Training via Hybrid Reinforcement Learning and Metaheuristic
//! Optimization", 2025 (abstract only at hand; what it leaves open is reconstructed and
//! documented). Holds the workload file (`schema.rs`, `checks.rs`, `load.rs`, as every
//! kind's) and each episode's draw of it (`instance.rs`), the seeded generators and the
//! Alibaba v2018 DAG reader (`alibaba.rs`), the compiled [`Problem`] every DAG
//! scheduler reads, the insertion-based schedule [`Builder`] (the env's executor and the
//! metaheuristics' decoder), list-scheduling ranks, and the gym env.

mod alibaba;
mod checks;
mod env;
mod generate;
mod instance;
mod load;
mod metrics;
mod platform;
mod problem;
mod ranks;
mod schedule;
mod schema;
mod window;

#[cfg(test)]
mod tests;

pub use alibaba::TraceJob;
pub use env::{DagEnv, DagInfo, GPU_FEATURES, TASK_FEATURES};
pub use generate::{TaskDraw, fork_join, layered, set_edge_data, topcuoglu_example};
pub use instance::DagWorkload;
pub use metrics::DagMetrics;
pub use platform::{GpuType, MachineGroup, PaiSample, Platform, PlatformSpec};
pub use problem::{Dag, DagError, Edge, Problem, Task};
pub use ranks::{
    downward_rank, env_order, lower_bound_s, mean_exec_s, optimistic_cost_table, priority_order,
    same_priority, topological, upward_rank,
};
pub use schedule::{Builder, Schedule};
pub use schema::{Arrivals, DagMix, DagSource, DagWorkloadSpec};
pub use window::ReadyWindow;
