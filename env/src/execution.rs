//! What a workload says of real execution: whether its episodes run in the simulator, on real
//! processes under this machine's control groups, or on real processes that a Slurm cluster
//! runs (`execution`), and how it maps onto the machine (`[real]`). The single-job and the
//! jobs workload files share both.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Whether a workload's episodes run in the simulator or on real processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Execution {
    #[default]
    Sim,
    /// Real processes in control groups schedlab makes on this machine.
    Real,
    /// Real processes that Slurm starts, stops and requeues as the scheduler decides (jobs
    /// workloads; docs/real-execution.md).
    Slurm,
}

impl Execution {
    /// Whether episodes run on real processes (either backend).
    pub fn is_real(self) -> bool {
        self != Execution::Sim
    }

    /// The name a workload file and `--execution` give it.
    pub fn name(self) -> &'static str {
        match self {
            Execution::Sim => "sim",
            Execution::Real => "real",
            Execution::Slurm => "slurm",
        }
    }
}

/// How a workload maps onto the machine when it runs for real (`[real]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RealSpec {
    /// Wall-clock seconds per virtual second.
    pub time_scale: f64,
    /// Real CPU cores shared out over the whole cluster at full capacity (default: this
    /// machine's less one, and at most 80% of them: the server and the policy keep a core, so
    /// that they do not take CPU time the quotas promised the workers).
    pub cores: Option<f64>,
    /// Real MiB of memory limit per virtual GB of a container.
    pub mem_mb_per_gb: f64,
    /// A cgroup2 folder to make the run's groups in (a subtree delegated to the user);
    /// detected when unset.
    pub cgroup_root: Option<PathBuf>,
}

impl Default for RealSpec {
    fn default() -> Self {
        RealSpec {
            time_scale: 0.2,
            cores: None,
            mem_mb_per_gb: 128.0,
            cgroup_root: None,
        }
    }
}

impl RealSpec {
    /// The real cores the cluster's full capacity maps to.
    pub fn cores(&self) -> f64 {
        self.cores.unwrap_or_else(|| {
            let machine = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
            (machine - 1.0).min(0.8 * machine).max(0.5)
        })
    }

    /// The spec's own checks, as `(key, message)`.
    pub fn check(&self) -> Option<(&'static str, String)> {
        let positive = |v: f64| v > 0.0 && v.is_finite();
        if !positive(self.time_scale) {
            return Some((
                "real.time_scale",
                format!("must be a positive number, got {}", self.time_scale),
            ));
        }
        if let Some(c) = self.cores.filter(|&c| !positive(c)) {
            return Some(("real.cores", format!("must be a positive number, got {c}")));
        }
        if !positive(self.mem_mb_per_gb) {
            return Some((
                "real.mem_mb_per_gb",
                format!("must be a positive number, got {}", self.mem_mb_per_gb),
            ));
        }
        None
    }
}
