//! Real execution: the decisions of a scheduler applied to real processes under real
//! resource limits, on the wall clock, so that the simulator's error can be measured
//! (docs/real-execution.md).
//!
//! A run is a folder of control groups ([`cgroup`]): one group per node of the workload, with
//! a `job` group for its worker and a `background` group for its other tenants. Workers and
//! tenants are processes of the schedlab binary ([`process`]) that die with their parent; the
//! server talks to the workers over loopback TCP ([`wire`]). Every group and process of a run
//! is removed at its end, on error, on Ctrl-C ([`remove_every_run`]), and, for a run whose
//! process was killed, by the next run.

pub mod cgroup;
pub mod process;
pub mod wire;

use std::path::PathBuf;
use std::sync::{Condvar, Mutex};

use serde::{Deserialize, Serialize};

/// Whether a workload's episodes run in the simulator or on real processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Execution {
    #[default]
    Sim,
    Real,
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

static NEXT_RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A tag for a new run folder, unique in this process.
pub(crate) fn next_run_tag() -> u64 {
    NEXT_RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The run folders alive in this process, for [`remove_every_run`].
static LIVE_RUNS: Mutex<Vec<(u64, cgroup::Group)>> = Mutex::new(Vec::new());
/// One real episode at a time on this machine's cores, whatever plays in parallel: held from
/// the start of a run to its end.
pub(crate) struct Turn;

static TURN_TAKEN: Mutex<bool> = Mutex::new(false);
static TURN_FREED: Condvar = Condvar::new();

impl Turn {
    pub(crate) fn take() -> Turn {
        let mut taken = TURN_TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        while *taken {
            taken = TURN_FREED.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
        *taken = true;
        Turn
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        *TURN_TAKEN.lock().unwrap_or_else(|e| e.into_inner()) = false;
        TURN_FREED.notify_one();
    }
}

/// Keeps `group` for [`remove_every_run`] under `tag`.
pub(crate) fn register(tag: u64, group: cgroup::Group) {
    LIVE_RUNS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((tag, group));
}

/// Kills the processes of run `tag` and removes its groups.
pub(crate) fn remove_run(tag: u64) -> crate::Result<()> {
    let group = {
        let mut runs = LIVE_RUNS.lock().unwrap_or_else(|e| e.into_inner());
        let at = runs.iter().position(|(t, _)| *t == tag);
        at.map(|i| runs.remove(i).1)
    };
    group.map_or(Ok(()), |g| g.remove())
}

/// Kills every real process this program started and removes every group it made: what a
/// Ctrl-C handler calls before the program exits.
pub fn remove_every_run() {
    let runs = std::mem::take(&mut *LIVE_RUNS.lock().unwrap_or_else(|e| e.into_inner()));
    for (_, group) in runs {
        if let Err(e) = group.remove() {
            eprintln!("real execution: {e}");
        }
    }
}
