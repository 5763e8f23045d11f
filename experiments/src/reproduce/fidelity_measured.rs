//! A fidelity case (`[fidelity.*]` in the protocol) measured: its real episodes played on an
//! execution backend, or the report kept in the output folder from an earlier run of the same
//! protocol and sources, so that an interrupted `reproduce fidelity` resumes by workload.

use schedlab_env::execution::Execution;
use schedlab_env::workload_file::WorkloadFile;
use serde::{Deserialize, Serialize};

use super::context::Context;
use super::protocol::FidelityCase;
use crate::fidelity::{Plan, Report, measure};
use crate::output::write_atomic;
use crate::paths::shipped_workload;
use crate::play::episode_bar;
use crate::sources::REAL_EXECUTION_SOURCES_FINGERPRINT;
use crate::sweep::spec::pairs;

/// A measurement as kept on disk, with what it was measured from.
#[derive(Serialize, Deserialize)]
struct Kept {
    key: String,
    report: serde_json::Value,
}

/// The report of `case` with its real side on `execution`, measured now or kept from an
/// earlier run of the same protocol and sources.
pub(super) fn measured(
    cx: &Context,
    name: &str,
    case: &FidelityCase,
    execution: Execution,
) -> anyhow::Result<Report> {
    let protocol = &cx.protocol.fidelity;
    let key = format!(
        "{case:?} on {} seeds {:?} calibrated on {:?}; sources {REAL_EXECUTION_SOURCES_FINGERPRINT}",
        execution.name(),
        protocol.seeds,
        protocol.calibrate_seeds
    );
    let kept_at = cx.args.out.join("fidelity").join(format!("{name}.json"));
    if let Some(kept) = std::fs::read_to_string(&kept_at)
        .ok()
        .and_then(|t| serde_json::from_str::<Kept>(&t).ok())
        .filter(|k| k.key == key)
    {
        return Ok(serde_json::from_value(kept.report)?);
    }
    let plan = Plan {
        policies: case.policies.clone(),
        seeds: protocol.seeds.clone(),
        calibration_policies: case.calibrate.clone(),
        calibration_seeds: protocol.calibrate_seeds.clone(),
    };
    let episodes = plan.policies.len() * plan.seeds.len()
        + plan.calibration_policies.len() * plan.calibration_seeds.len();
    let bar = episode_bar(
        episodes as u64,
        format!("fidelity: real episodes of {}", case.workload),
    )?;
    let file = WorkloadFile::read(&shipped_workload(&case.workload))?;
    let (settings, _) =
        crate::settings::Settings::load_file(&pairs(&case.set), &file, &plan.policies)?;
    let report = measure(
        &file,
        (&settings.workload, execution),
        &settings.policy,
        &plan,
        &bar,
    )?;
    bar.finish_and_clear();
    let kept = Kept {
        key,
        report: serde_json::to_value(&report)?,
    };
    write_atomic(&kept_at, serde_json::to_string_pretty(&kept)?.as_bytes())?;
    Ok(report)
}
