//! DAG-structured training workloads on heterogeneous GPUs (see ARCHITECTURE.md and the
//! docs/dag.md): tasks with data dependencies placed on GPUs grouped on machines
//! with limited bandwidth, after Du, Wu, Hou, Nie and Song, "Efficient Scheduling for
//! GPU-Based Neural Network Training via Hybrid Reinforcement Learning and Metaheuristic
//! Optimization", 2025 (abstract only at hand; what it leaves open is reconstructed and
//! documented). Holds the workload file, the
//! seeded generators and the Alibaba v2018 DAG reader, the compiled [`Problem`] every DAG
//! scheduler reads, the insertion-based schedule [`Builder`] (the env's executor and the
//! metaheuristics' decoder), list-scheduling ranks, and the gym env.

mod env;
mod generate;
mod metrics;
mod platform;
mod problem;
mod ranks;
mod schedule;
mod window;
mod workload;

#[cfg(test)]
mod tests;

pub use env::{DagEnv, DagInfo, GPU_FEATURES, TASK_FEATURES};
pub use generate::{TaskDraw, fork_join, layered, set_edge_data, topcuoglu_example};
pub use metrics::DagMetrics;
pub use platform::{GpuType, MachineGroup, PaiSample, Platform, PlatformSpec};
pub use problem::{Dag, DagError, Edge, Problem, Task};
pub use ranks::{
    downward_rank, env_order, lower_bound_s, mean_exec_s, optimistic_cost_table, priority_order,
    same_priority, topological, upward_rank,
};
pub use schedule::{Builder, Schedule};
pub use window::ReadyWindow;
pub use workload::{Arrivals, DagMix, DagSource, DagWorkload, DagWorkloadSpec, TraceJob};
