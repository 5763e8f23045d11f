//! What the server's connection threads and the env's side of a real single-job episode
//! share: the server, each worker's container and round, and the episode's progress.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Instant;

use crate::cluster::Amounts;
use crate::single_job::PushRecord;
use crate::single_job::scenario::Scenario;
use crate::single_job::sim::{CostModel, Server, WorkerRound};

pub(super) struct RealWorker {
    pub(super) alloc: Amounts,
    pub(super) running: bool,
    pub(super) max_batch: usize,
    pub(super) background_share: f64,
    /// Bumped when the container goes or shrinks below the batch in flight: that push is void.
    pub(super) epoch: u64,
    pub(super) last_base_time: Option<f64>,
    /// When the iteration in flight began, virtual seconds: the arrival of the worker's
    /// previous push when it went on without waiting for a container (throttled waits
    /// between iterations count, as they slow it down), else the reply to its pull.
    pub(super) pulled: Option<f64>,
    pub(super) last_arrival: Option<f64>,
    pub(super) round: WorkerRound,
}

pub(super) struct Shared {
    pub(super) server: Server,
    pub(super) workers: Vec<RealWorker>,
    pub(super) lr_factor: f64,
    pub(super) val_loss: f64,
    pub(super) evaluated_version: u64,
    pub(super) evaluated_at: f64,
    pub(super) validations: u64,
    pub(super) completed_at: Option<f64>,
    pub(super) failure: Option<String>,
    pub(super) bits_sent: u64,
    pub(super) pushes: Vec<PushRecord>,
    pub(super) stopping: bool,
    /// Virtual time zero: when the first allocation was written, as in the simulator.
    pub(super) started: Option<Instant>,
}

impl Shared {
    pub(super) fn virtual_now(&self, time_scale: f64) -> f64 {
        self.started
            .map_or(0.0, |s| s.elapsed().as_secs_f64() / time_scale)
    }
}

/// What every connection thread reads.
pub(super) struct Context {
    pub(super) scenario: Arc<Scenario>,
    pub(super) state: Mutex<Shared>,
    pub(super) changed: Condvar,
    pub(super) cost: CostModel,
    pub(super) time_scale: f64,
    /// Real cores per virtual GFLOP/s.
    pub(super) k: f64,
}

impl Context {
    pub(super) fn lock(&self) -> MutexGuard<'_, Shared> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub(super) fn idle_worker() -> RealWorker {
    RealWorker {
        alloc: [0.0; 3],
        running: false,
        max_batch: 0,
        background_share: 0.0,
        epoch: 0,
        last_base_time: None,
        pulled: None,
        last_arrival: None,
        round: WorkerRound::default(),
    }
}
