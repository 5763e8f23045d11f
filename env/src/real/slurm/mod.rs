//! Slurm as the jobs cluster's resource manager (`execution = "slurm"`,
//! docs/real-execution.md): the commands schedlab drives it with, each timed
//! ([`commands`]), and the batch script a job runs ([`script`]). Slurm's own scheduler decides
//! nothing: every job is submitted held, and schedlab's start sets its nodes and releases it.

pub mod commands;
pub mod script;

pub use commands::{CommandTiming, Slurm, SlurmNode};
