//! Calibrating a jobs workload on its real episodes. Measured: the mean virtual time from a
//! start's decision to the job's first iteration (`episode.start_s`) and from a running job's
//! rescale to its first iteration again (`episode.restart_s`). Fitted: `episode.speed_factor`,
//! the one factor on every job's speed that brings the simulator's mean JCT closest to the
//! real one over the calibration episodes (relative error, on a log grid from 1/2 to 2), with
//! the measured costs in place. The speed-up curves of the templates are left as they are:
//! real execution's jobs speed up linearly in their quota (docs/real-execution.md), and the
//! error on policies that rescale shows what that costs.

use indicatif::ProgressBar;
use schedlab_env::jobs::JobsMetrics;
use schedlab_env::real::jobs::RealJobsReport;

use super::fitted::{Fitted, JobsCalibration};
use super::{Plan, Sides};
use crate::play::{play, play_observed};
use crate::workloads::{Jobs, Loaded};

/// Points of the speed factor's grid.
const SPEED_GRID: usize = 61;

/// A real episode's metrics and what its processes measured.
pub fn play_real(
    jobs: &Jobs,
    policy: &str,
    options: &[(String, String)],
    seed: u64,
) -> anyhow::Result<(JobsMetrics, RealJobsReport)> {
    let mut report = None;
    let (metrics, _) = play_observed(jobs, policy, options, seed, |_, step| {
        if let Some(r) = &step.info.real {
            report = Some(r.clone());
        }
    })?;
    Ok((metrics, report.unwrap_or_default()))
}

pub fn calibrate(
    sides: &Sides,
    real: &Jobs,
    options: &[(String, String)],
    plan: &Plan,
    bar: &ProgressBar,
) -> anyhow::Result<(Fitted, Vec<(String, String)>)> {
    let mut measured = Vec::new();
    let mut reports = Vec::new();
    for policy in &plan.calibration_policies {
        for &seed in &plan.calibration_seeds {
            let (metrics, report) = play_real(real, policy, options, seed)?;
            measured.push((policy.clone(), seed, metrics.jct_avg_s));
            reports.push(report);
            bar.inc(1);
        }
    }
    let starts: usize = reports.iter().map(|r| r.starts).sum();
    let restarts: usize = reports.iter().map(|r| r.restarts).sum();
    let weighted = |f: &dyn Fn(&RealJobsReport) -> (f64, usize)| {
        let (sum, n) = reports
            .iter()
            .map(f)
            .fold((0.0, 0), |(s, c), (v, n)| (s + v * n as f64, c + n));
        (n > 0).then(|| sum / n as f64)
    };
    let start_s = weighted(&|r| (r.start_cost_s, r.starts)).unwrap_or(0.0);
    let restart_s = weighted(&|r| {
        (
            r.restart_cost_s.unwrap_or(0.0),
            usize::from(r.restart_cost_s.is_some()) * r.restarts,
        )
    })
    .unwrap_or(real.workload.episode.restart_s);
    let mut best: Option<JobsCalibration> = None;
    for k in 0..SPEED_GRID {
        let speed_factor = 0.5 * 4f64.powf(k as f64 / (SPEED_GRID - 1) as f64);
        let candidate = JobsCalibration {
            episodes: measured.len(),
            starts,
            restarts,
            start_s,
            restart_s,
            speed_factor,
            fit_error: 0.0,
        };
        let Loaded::Jobs(sim) = sides.with(&candidate.settings())? else {
            unreachable!("a jobs workload loads as one")
        };
        let mut error = 0.0;
        for (policy, seed, real_jct) in &measured {
            let jct = play(&sim, policy, options, *seed)?.jct_avg_s;
            error += (jct - real_jct).abs() / real_jct.max(f64::MIN_POSITIVE);
        }
        let fit_error = error / measured.len().max(1) as f64;
        if best.as_ref().is_none_or(|b| fit_error < b.fit_error) {
            best = Some(JobsCalibration {
                fit_error,
                ..candidate
            });
        }
    }
    let best = best.expect("the grid has points");
    let settings = best.settings();
    Ok((Fitted::Jobs(best), settings))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A simulator whose jobs run 1.3 times as fast stands in for the machine: the fit finds
    /// that factor within the grid's step.
    #[test]
    fn calibration_recovers_a_known_speed_factor_from_synthetic_runs() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data/workloads/philly-real.toml");
        let file = schedlab_env::workload_file::WorkloadFile::read(&path).unwrap();
        let sides = Sides::of(&file, &[], schedlab_env::execution::Execution::Real).unwrap();
        let truth = [("execution", "sim"), ("episode.speed_factor", "1.3")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()));
        let Loaded::Jobs(synthetic) = crate::workloads::load(&path, &truth).unwrap() else {
            panic!("a jobs workload")
        };
        let plan = Plan {
            policies: Vec::new(),
            seeds: Vec::new(),
            calibration_policies: vec!["fifo".into(), "sjf".into()],
            calibration_seeds: vec![0, 1],
        };
        let bar = ProgressBar::hidden();
        let (Fitted::Jobs(fit), settings) =
            calibrate(&sides, &synthetic, &[], &plan, &bar).unwrap()
        else {
            panic!("a jobs calibration")
        };
        let step = 4f64.powf(1.0 / (SPEED_GRID - 1) as f64);
        assert!((fit.speed_factor / 1.3).ln().abs() <= step.ln(), "{fit:?}");
        assert!(fit.fit_error < 0.02, "{fit:?}");
        assert_eq!(fit.episodes, 4);
        assert!(settings.iter().any(|(k, _)| k == "episode.speed_factor"));
    }
}
