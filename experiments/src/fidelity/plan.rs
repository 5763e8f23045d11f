//! What a fidelity measurement plays: the compared policies and seeds, and the episodes the
//! simulator is calibrated on.

/// What to play.
pub struct Plan {
    pub policies: Vec<String>,
    pub seeds: Vec<u64>,
    /// The real episodes the simulator is calibrated on: policies and seeds apart from the
    /// compared ones, so that the error is measured on episodes the fit never saw.
    pub calibration_policies: Vec<String>,
    pub calibration_seeds: Vec<u64>,
}
