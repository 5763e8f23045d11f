//! Many training jobs arriving over time on a shared cluster (DESIGN §4): the jobs workload
//! file, machines with shareable GPUs, the surrogate progress model fitted per model
//! template, and a gym-like env whose policy decides at each decision point which queued
//! jobs start, where, and with how many containers of what size.

mod cluster;
mod env;
mod metrics;
pub mod observe;
pub mod real;
mod spec;

#[cfg(test)]
mod tests;

pub use cluster::{Cluster, Container, Placement};
pub use env::{JobsEnv, JobsInfo, JobsStep};
pub use metrics::JobsMetrics;
pub use spec::{
    Fidelity, GPU_MILLI, JobRecord, JobsEpisode, JobsWorkload, MAX_CONTENTION, MAX_GPUS,
    MILLI_PER_UNIT, MachineSpec, Scaling, TableReader, Template, TraceSource, Window, fits_empty,
    scaled_request, speedup,
};
