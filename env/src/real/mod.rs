//! Real execution: the decisions of a scheduler applied to real processes under real
//! resource limits, on the wall clock, so that the simulator's error can be measured
//! (docs/real-execution.md).
//!
//! A run is a folder of control groups ([`cgroup`]): one group per node (single job) or
//! machine (jobs cluster) of the workload, with groups inside for its workers and other
//! tenants. Workers and tenants are processes of the schedlab binary ([`process`],
//! [`worker`]) that die with their parent; the server talks to the workers over loopback TCP
//! ([`wire`]). [`single_job`] runs the single-job episode so, and [`jobs`] the jobs cluster's,
//! whose runs a Slurm cluster may start and stop instead ([`slurm`]).
//! Every group and process of a run is removed at its end, on error, on Ctrl-C
//! ([`remove_every_run`]), and, for a run whose process was killed, by the next run.

pub mod cgroup;
pub(crate) mod connect;
pub mod jobs;
pub(crate) mod messages;
pub mod process;
mod runs;
pub mod single_job;
pub mod slurm;
mod turn;
pub mod wire;
pub mod worker;

pub use runs::remove_every_run;
pub(crate) use runs::{next_run_tag, register, remove_run};
pub(crate) use turn::Turn;
