//! What calibration fits: the single job's constants ([`Calibration`]) or the jobs cluster's
//! start, restart and speed ([`JobsCalibration`]), with the settings they write.

use serde::{Deserialize, Serialize};

use super::calibrate::Calibration;

/// The simulator's constants fitted to real episodes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Fitted {
    SingleJob(Calibration),
    Jobs(JobsCalibration),
}

impl Fitted {
    /// One line: what was fitted and measured, on what.
    pub fn describe(&self) -> String {
        match self {
            Fitted::SingleJob(c) => format!(
                "compute x{:.3} and jitter sigma {:.3} from {} real pushes (Amdahl, GPU saturation, interference and transfers off, as the emulation has none)",
                c.compute_scale, c.straggler_sigma, c.pushes
            ),
            Fitted::Jobs(c) => format!(
                "start {:.0} s over {} starts and restart {:.0} s over {} restarts (measured), speed x{:.3} (fitted, {:.1}% off on the {} calibration episodes)",
                c.start_s,
                c.starts,
                c.restart_s,
                c.restarts,
                c.speed_factor,
                100.0 * c.fit_error,
                c.episodes
            ),
        }
    }
}

/// The jobs cluster's constants fitted to real episodes: start and restart latencies
/// measured, the speed factor fitted.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JobsCalibration {
    pub episodes: usize,
    pub starts: usize,
    pub restarts: usize,
    /// Mean virtual seconds from a start's decision to the first iteration.
    pub start_s: f64,
    /// Mean virtual seconds from a rescale to the first iteration again (the workload's own
    /// where no calibration episode rescaled a job).
    pub restart_s: f64,
    pub speed_factor: f64,
    /// Mean |sim - real| / real of the mean JCT over the calibration episodes, at the fit.
    pub fit_error: f64,
}

impl JobsCalibration {
    pub(super) fn settings(&self) -> Vec<(String, String)> {
        [
            ("episode.start_s", self.start_s),
            ("episode.restart_s", self.restart_s),
            ("episode.speed_factor", self.speed_factor),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), format!("{v:e}")))
        .collect()
    }
}
