//! What the single-job env asks of the training it schedules, simulated
//! ([`TrainingSim`](super::sim::TrainingSim)) or on real processes
//! ([`RealTraining`](crate::real::single_job::RealTraining)).

use super::sim::{TrainingSim, WorkerRound};
use crate::cluster::Amounts;
use crate::error::Result;

/// One push as measured, for calibrating the simulator (`schedlab fidelity`).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PushRecord {
    pub node: usize,
    pub alloc: Amounts,
    pub batch: usize,
    /// The node's mean background CPU load over the round, as a share of its cores.
    pub background_share: f64,
    /// Virtual seconds from the worker's receiving the work to its sending the gradient.
    pub compute_s: f64,
    /// Virtual seconds from the pull's reply to the push's arrival.
    pub delay_s: f64,
}

pub(crate) trait Training: Send + Sync {
    /// The episode's clock, virtual seconds.
    fn now(&self) -> f64;
    /// Server updates so far.
    fn iterations(&self) -> u64;
    /// The validation loss at the latest check.
    fn val_loss(&self) -> f64;
    fn initial_loss(&self) -> f64;
    fn lr_factor(&self) -> f64;
    /// Full validation passes so far.
    fn validations(&self) -> u64;
    /// Bits the workers sent so far.
    fn bits_sent(&self) -> u64;
    /// Applies the round's allocation; `background_cpu` is each node's mean background load
    /// over the round (cores) and `interference` the model's slowdown from it.
    fn set_allocation(
        &mut self,
        alloc: &[Amounts],
        background_cpu: &[f64],
        interference: &[f64],
        reference_rate: f64,
    ) -> Result<()>;
    /// Trains until `t_end` or the target, whichever comes first; the time the target was
    /// reached, if it was.
    fn run_until(&mut self, t_end: f64) -> Result<Option<f64>>;
    /// Ends the round at `t`: what each worker did in it.
    fn close_round(&mut self, t: f64) -> Result<Vec<WorkerRound>>;
    /// Validates the current parameters unless they were already; the completion time if
    /// the target has been reached.
    fn validate(&mut self) -> Result<Option<f64>>;
    /// Every push of the round just closed, measured (real execution only).
    fn take_pushes(&mut self) -> Vec<PushRecord> {
        Vec::new()
    }
    /// Releases what the episode holds (real processes and groups); called at its end.
    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

impl Training for TrainingSim {
    fn now(&self) -> f64 {
        TrainingSim::now(self)
    }
    fn iterations(&self) -> u64 {
        TrainingSim::iterations(self)
    }
    fn val_loss(&self) -> f64 {
        TrainingSim::val_loss(self)
    }
    fn initial_loss(&self) -> f64 {
        TrainingSim::initial_loss(self)
    }
    fn lr_factor(&self) -> f64 {
        TrainingSim::lr_factor(self)
    }
    fn validations(&self) -> u64 {
        TrainingSim::validations(self)
    }
    fn bits_sent(&self) -> u64 {
        TrainingSim::bits_sent(self)
    }
    fn set_allocation(
        &mut self,
        alloc: &[Amounts],
        _background_cpu: &[f64],
        interference: &[f64],
        reference_rate: f64,
    ) -> Result<()> {
        TrainingSim::set_allocation(self, alloc, interference, reference_rate);
        Ok(())
    }
    fn run_until(&mut self, t_end: f64) -> Result<Option<f64>> {
        TrainingSim::run_until(self, t_end)
    }
    fn close_round(&mut self, t: f64) -> Result<Vec<WorkerRound>> {
        Ok(TrainingSim::close_round(self, t))
    }
    fn validate(&mut self) -> Result<Option<f64>> {
        TrainingSim::validate(self)
    }
}
