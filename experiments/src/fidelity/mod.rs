//! `schedlab fidelity`: the same policies and seeds played in the simulator and on real
//! processes (`execution = "real"`, `schedlab_env::real`), the simulator calibrated on other
//! real episodes (`single_job.rs` and `calibrate.rs`, `jobs.rs`), and how far each is from the
//! machine: relative error of the completion time (single job) or mean JCT (jobs), and whether
//! the policies rank alike (Kendall's tau). `measure.rs` plays, `sides.rs` loads the workload
//! each way, `report.rs` summarises.

pub mod calibrate;
mod fitted;
mod jobs;
mod measure;
mod plan;
mod report;
mod sides;
mod single_job;
#[cfg(test)]
mod tests;

pub use calibrate::Calibration;
pub use fitted::{Fitted, JobsCalibration};
pub use measure::{calibrate_on, default_calibration_policies, measure};
pub use plan::Plan;
pub use report::{Episode, PolicyRow, RealSide, Report, kendall_tau, ranks, summarise};
pub use sides::{RealBackend, Sides};
