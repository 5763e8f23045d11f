//! Playing a fidelity plan: the calibration episodes first, then each compared (policy, seed)
//! in the simulator, in the calibrated simulator and on real processes.

use indicatif::ProgressBar;
use schedlab_env::EnvKind;
use schedlab_env::execution::Execution;
use schedlab_env::workload_file::WorkloadFile;
use serde_json::Value;

use super::fitted::Fitted;
use super::plan::Plan;
use super::report::{Episode, RealSide, Report, summarise};
use super::sides::Sides;
use super::{jobs, single_job};
use crate::workloads::Loaded;

/// Plays `plan` on the workload file `file` (single-job or jobs, already read) under
/// `overrides` (workload settings), its real side on `execution`'s backend, with the
/// policies' `options`; `bar` counts real episodes.
pub fn measure(
    file: &WorkloadFile,
    (overrides, execution): (&[(String, String)], Execution),
    options: &[(String, String)],
    plan: &Plan,
    bar: &ProgressBar,
) -> anyhow::Result<Report> {
    check_plan(plan)?;
    let loaded = Sides::of(file, overrides, execution)?;
    let fitted = calibrate_on(&loaded, options, plan, bar)?;
    let calibrated = loaded.with(&fitted.1)?;
    let mut episodes = Vec::new();
    for policy in &plan.policies {
        for &seed in &plan.seeds {
            let started = std::time::Instant::now();
            let (real, real_execution) = play_real(&loaded.real, policy, options, seed)?;
            let real_wall_s = started.elapsed().as_secs_f64();
            bar.inc(1);
            episodes.push(Episode {
                policy: policy.clone(),
                seed,
                sim: play_sim(&loaded.sim, policy, options, seed)?,
                sim_calibrated: play_sim(&calibrated, policy, options, seed)?,
                real: match execution {
                    Execution::Slurm => RealSide::Slurm(real),
                    _ => RealSide::Real(real),
                },
                real_wall_s,
                real_execution,
            });
        }
    }
    let (calibration, settings) = fitted;
    Ok(summarise(
        loaded.sim.name(),
        metric_of(&loaded.sim),
        episodes,
        (calibration, settings.into_iter().collect()),
        &plan.policies,
    ))
}

/// The real episodes of `plan`'s calibration, and the settings fitted to them.
pub fn calibrate_on(
    loaded: &Sides,
    options: &[(String, String)],
    plan: &Plan,
    bar: &ProgressBar,
) -> anyhow::Result<(Fitted, Vec<(String, String)>)> {
    match (&loaded.sim, &loaded.real) {
        (Loaded::SingleJob(sim), Loaded::SingleJob(real)) => {
            single_job::calibrate(sim, real, options, plan, bar)
        }
        (Loaded::Jobs(_), Loaded::Jobs(real)) => jobs::calibrate(loaded, real, options, plan, bar),
        _ => anyhow::bail!(
            "{}: fidelity plays single-job and jobs workloads; real execution of the other kinds is not built",
            loaded.file.path.display()
        ),
    }
}

/// The calibration's policies where none are given: on a single job, random covers many
/// container sizes; on a jobs window, static starts every job once and periodic rescales
/// (restarts) one per interval, where preempting policies (las, random) restart jobs so often
/// that their starts measure the churn more than a start.
pub fn default_calibration_policies(kind: EnvKind) -> Vec<String> {
    let names: &[&str] = match kind {
        EnvKind::Jobs => &["static", "periodic"],
        _ => &["random", "greedy", "periodic"],
    };
    names.iter().map(|&n| n.to_owned()).collect()
}

fn metric_of(loaded: &Loaded) -> &'static str {
    match loaded {
        Loaded::Jobs(_) => "jct_avg_s",
        _ => "completion_time_s",
    }
}

fn play_sim(
    loaded: &Loaded,
    policy: &str,
    options: &[(String, String)],
    seed: u64,
) -> anyhow::Result<Value> {
    crate::with_kind!(loaded, |k| Ok(serde_json::to_value(crate::play::play(
        k, policy, options, seed
    )?)?))
}

/// A real episode's metrics and what real execution measured beside them.
fn play_real(
    loaded: &Loaded,
    policy: &str,
    options: &[(String, String)],
    seed: u64,
) -> anyhow::Result<(Value, Option<Value>)> {
    match loaded {
        Loaded::Jobs(jobs) => {
            let (metrics, report) = jobs::play_real(jobs, policy, options, seed)?;
            Ok((
                serde_json::to_value(metrics)?,
                Some(serde_json::to_value(report)?),
            ))
        }
        other => Ok((play_sim(other, policy, options, seed)?, None)),
    }
}

/// The calibration's episodes must not be among the compared ones.
pub(super) fn check_plan(plan: &Plan) -> anyhow::Result<()> {
    anyhow::ensure!(!plan.policies.is_empty(), "no policy to compare");
    anyhow::ensure!(!plan.seeds.is_empty(), "no seed to play");
    anyhow::ensure!(
        !plan.calibration_seeds.is_empty(),
        "no seed to calibrate on"
    );
    for policy in &plan.calibration_policies {
        if !plan.policies.contains(policy) {
            continue;
        }
        let shared: Vec<u64> = plan
            .seeds
            .iter()
            .filter(|s| plan.calibration_seeds.contains(s))
            .copied()
            .collect();
        anyhow::ensure!(
            shared.is_empty(),
            "the calibration's episodes ({policy} on seeds {shared:?}) are among the compared ones: calibrate on other seeds (--calibrate-seeds) so the error is measured on episodes the fit never saw"
        );
    }
    Ok(())
}
