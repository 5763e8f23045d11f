//! The jobs cluster on real processes (`execution = "real"`, docs/real-execution.md).
//!
//! Each machine is a control group under one folder per episode, and each container of a
//! running job a group inside its machine's, holding one worker process. A job trains its
//! template's model on its data for a fixed number of synchronous iterations
//! ([`job_run`]); the scheduler's starts, rescales and preemptions start, restart and stop
//! those runs, and a restart resumes from the checkpoint the preemption wrote
//! ([`checkpoint`]), so what a restart costs is real and measured.
//!
//! The mapping: `real.cores` are shared out over the cluster's GPUs (over its CPU cores
//! where it has none, and for containers without a GPU): a container holding `g` of the
//! cluster's `G` GPU-milli gets `cores g / G` real cores, the GPU emulated as a slice of CPU.
//! A job's iterations burn, at its requested allocation, `time_scale` times its trace
//! duration (over its speed factor) of that quota, in iterations of about `ITERATION_WALL_S`
//! (`cluster.rs`) wall seconds. Nothing else of the simulator is emulated: its speed-up curve,
//! restart pause and interference are what the real run measures.
//!
//! With `execution = "slurm"` the machines are a Slurm cluster's nodes and each job a Slurm
//! job, submitted held and placed and released by each start ([`slurm_run`]); the runs, their
//! checkpoints and the quotas are the same.

pub mod checkpoint;
mod cluster;
pub mod job_run;
pub mod slurm_run;

pub use cluster::{RealCluster, RealJobsReport, SlurmReport};
