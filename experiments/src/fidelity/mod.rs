//! `schedlab fidelity`: the same policies and seeds played in the simulator and on real
//! processes (`execution = "real"`, `schedlab_env::real`), the simulator calibrated on other
//! real episodes (`single_job.rs` and `calibrate.rs`, `jobs.rs`), and how far each is from the
//! machine: relative error of the completion time (single job) or mean JCT (jobs), and whether
//! the policies rank alike (Kendall's tau). `measure.rs` plays, `sides.rs` loads the workload
//! each way, `report.rs` summarises.

pub mod calibrate;
mod jobs;
mod measure;
mod report;
mod sides;
mod single_job;
#[cfg(test)]
mod tests;

pub use calibrate::Calibration;
pub use jobs::JobsCalibration;
pub use measure::{Plan, calibrate_on, default_calibration_policies, measure};
pub use report::{Episode, Fitted, PolicyRow, Report, kendall_tau, summarise};
pub use sides::Sides;
