//! What a real run's server and workers say to each other (sent by `crate::real::wire`).

use serde::{Deserialize, Serialize};

use crate::single_job::SingleJobWorkload;
use crate::single_job::sim::rules::Shard;

/// Server to worker.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum ToWorker {
    /// The job: the workload as loaded (overrides applied), the file it came from (paths
    /// resolve against it), the episode's seed, and the worker's index.
    Setup {
        workload: Box<SingleJobWorkload>,
        path: std::path::PathBuf,
        seed: u64,
        index: usize,
    },
    /// An iteration: the parameters (the vector beside) at `version`, the batch, the shard of
    /// the training rows it samples, and the CPU seconds of emulated compute to burn beside
    /// the real gradient.
    Work {
        version: u64,
        epoch: u64,
        batch: usize,
        shard: Shard,
        burn_cpu_s: f64,
    },
    /// The episode is over.
    Stop,
}

/// Worker to server.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum FromWorker {
    /// The worker's index and process id, first thing on its connection (a worker that Slurm
    /// started is found by its id, to put it in its container's group).
    Hello { index: usize, pid: u32 },
    /// Data loaded; ready to work.
    Ready,
    /// Asks for the next iteration.
    Pull,
    /// A gradient (the vector beside) computed at `version`, with what it cost: wall seconds
    /// from receiving the work to sending this, and CPU seconds the worker ran meanwhile.
    Push {
        version: u64,
        epoch: u64,
        batch: usize,
        loss: f64,
        variance: f64,
        finite: bool,
        wall_s: f64,
        cpu_s: f64,
    },
}
