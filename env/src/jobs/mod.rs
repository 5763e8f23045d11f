//! Many training jobs arriving over time on a shared cluster (see ARCHITECTURE.md): the jobs workload
//! file (`schema.rs`, `checks.rs`, `load.rs`, as every kind's), machines with shareable GPUs,
//! the surrogate progress model fitted per model template (`speedup.rs`), optionally scaled by
//! the GPU model a job runs on (`heterogeneity.rs`, from `throughputs.rs`), and a gym-like env
//! whose policy decides at each decision point which queued jobs start, where, and with how
//! many containers of what size. Its metrics include finish-time fairness per job and between
//! tenants (`fairness.rs`).

mod accounting;
mod bounds;
mod checks;
mod choice;
mod conserve;
mod dynamics;
mod env;
mod fairness;
mod family;
mod fragmentation;
mod heterogeneity;
mod load;
mod machines;
mod metrics;
pub mod observe;
mod refusals;
mod requests;
mod room;
mod schema;
mod sharing;
mod speedup;
mod state;
pub mod throughputs;
pub mod trained;

#[cfg(test)]
mod constraint_tests;
#[cfg(test)]
mod heterogeneity_tests;
#[cfg(test)]
mod machines_tests;
#[cfg(test)]
mod model_choice_tests;
#[cfg(test)]
mod sharing_tests;
#[cfg(test)]
mod tests;

pub use choice::{Choice, ChoiceLayout, Restriction, level_distance};
pub use env::{JobsEnv, JobsInfo, JobsStep};
pub use fairness::{finish_time_fairness, jain};
pub use family::{WindowDraw, sample_window};
pub use load::JobsSetup;
pub use machines::{Cluster, Container, MAX_MODEL_LABELS, Models, Placement, Within};
pub use metrics::{JobsMetrics, TenantMetrics, quantile};
pub use requests::{fits_empty, scaled_request};
pub use schema::{
    FamilySpec, Fidelity, GPU_MILLI, Heterogeneity, Interface, JobRecord, JobsEpisode, JobsReward,
    JobsWorkload, MAX_CONTENTION, MAX_GPUS, MILLI_PER_UNIT, MachineSpec, ModelMapping, Scaling,
    Template, TraceSource, Window,
};
pub use sharing::Sharer;
pub use speedup::speedup;
