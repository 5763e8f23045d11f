//! Calibrating a single-job workload: its real calibration episodes' pushes, fitted by
//! `calibrate.rs`.

use indicatif::ProgressBar;
use schedlab_env::single_job::PushRecord;
use schedlab_env::single_job::sim::CostModel;

use super::{Fitted, Plan, calibrate};
use crate::play::play_observed;
use crate::workloads::SingleJob;

pub fn calibrate(
    sim: &SingleJob,
    real: &SingleJob,
    options: &[(String, String)],
    plan: &Plan,
    bar: &ProgressBar,
) -> anyhow::Result<(Fitted, Vec<(String, String)>)> {
    let mut pushes: Vec<PushRecord> = Vec::new();
    for policy in &plan.calibration_policies {
        for &seed in &plan.calibration_seeds {
            play_observed(real, policy, options, seed, |_, step| {
                pushes.extend(step.info.real_pushes.iter().cloned());
            })?;
            bar.inc(1);
        }
    }
    let scenario = &sim.scenario;
    let cost = CostModel::new(&scenario.workload.sim, &scenario.workload.job);
    let calibration = calibrate::fit(&cost, &scenario.nodes, &pushes)?;
    let settings = calibration.overrides(scenario.workload.job.sample_gflop);
    Ok((Fitted::SingleJob(calibration), settings))
}
