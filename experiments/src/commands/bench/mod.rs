//! `schedlab bench ...`: one file per benchmark, and what they share.

pub mod cluster;
pub mod dag;
pub mod env;
pub mod network;
pub mod solvers;
pub mod steps;
pub mod suite;
pub mod train;

/// The process's peak resident memory (`VmHWM`), MiB; none where /proc is not there.
pub fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}
