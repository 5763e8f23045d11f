//! `schedlab fidelity`: the same policies and seeds played in the simulator and on real
//! processes (`execution = "real"`, `schedlab_env::real`), the simulator calibrated on other
//! real episodes (`calibrate.rs`), and how far each is from the machine: relative error of the
//! completion time, and whether the policies rank alike (Kendall's tau).

pub mod calibrate;

use std::path::Path;

use indicatif::ProgressBar;
use schedlab_env::SingleJobMetrics;
use schedlab_env::single_job::PushRecord;
use schedlab_env::single_job::sim::CostModel;
use serde::Serialize;

use crate::play::{play, play_observed};
use crate::workloads::{Loaded, SingleJob};
pub use calibrate::Calibration;

/// What to play.
pub struct Plan {
    pub policies: Vec<String>,
    pub seeds: Vec<u64>,
    /// The real episodes the simulator is calibrated on: policies and seeds apart from the
    /// compared ones, so that the error is measured on episodes the fit never saw.
    pub calibration_policies: Vec<String>,
    pub calibration_seeds: Vec<u64>,
}

/// One (policy, seed) played three ways.
#[derive(Debug, Clone, Serialize)]
pub struct Episode {
    pub policy: String,
    pub seed: u64,
    pub sim: SingleJobMetrics,
    pub sim_calibrated: SingleJobMetrics,
    pub real: SingleJobMetrics,
    /// Wall seconds of the real episode.
    pub real_wall_s: f64,
}

/// A policy's mean completion time each way and its rank (1: fastest) under each.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyRow {
    pub policy: String,
    pub sim_s: f64,
    pub sim_calibrated_s: f64,
    pub real_s: f64,
    /// Mean over seeds of |sim - real| / real, and likewise calibrated.
    pub sim_error: f64,
    pub calibrated_error: f64,
    pub sim_rank: usize,
    pub calibrated_rank: usize,
    pub real_rank: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub workload: String,
    pub episodes: Vec<Episode>,
    pub policies: Vec<PolicyRow>,
    pub calibration: Calibration,
    /// Mean absolute relative error of completion time over every episode.
    pub sim_error: f64,
    pub calibrated_error: f64,
    /// Kendall's tau between the policies' order in the simulator and on the machine.
    pub sim_tau: f64,
    pub calibrated_tau: f64,
}

/// Plays `plan` on the single-job workload at `path` under `overrides` (workload settings)
/// with the policies' `options`; `bar` counts real episodes.
pub fn measure(
    path: &Path,
    overrides: &[(String, String)],
    options: &[(String, String)],
    plan: &Plan,
    bar: &ProgressBar,
) -> anyhow::Result<Report> {
    check_plan(plan)?;
    let with = |extra: &[(String, String)]| -> anyhow::Result<SingleJob> {
        let all: Vec<(String, String)> = overrides.iter().chain(extra).cloned().collect();
        match crate::workloads::load(path, &all)? {
            Loaded::SingleJob(w) => Ok(w),
            _ => anyhow::bail!(
                "{}: fidelity plays single-job workloads; real execution of the other kinds is not built yet",
                path.display()
            ),
        }
    };
    let execution = |e: &str| vec![("execution".to_owned(), e.to_owned())];
    let sim = with(&execution("sim"))?;
    let real = with(&execution("real"))?;
    let mut pushes: Vec<PushRecord> = Vec::new();
    for policy in &plan.calibration_policies {
        for &seed in &plan.calibration_seeds {
            play_observed(&real, policy, options, seed, |_, step| {
                pushes.extend(step.info.real_pushes.iter().cloned());
            })?;
            bar.inc(1);
        }
    }
    let scenario = &sim.scenario;
    let cost = CostModel::new(&scenario.workload.sim, &scenario.workload.job);
    let calibration = calibrate::fit(&cost, &scenario.nodes, &pushes)?;
    let mut calibrated_set = calibration.overrides(scenario.workload.job.sample_gflop);
    calibrated_set.extend(execution("sim"));
    let calibrated = with(&calibrated_set)?;
    let mut episodes = Vec::new();
    for policy in &plan.policies {
        for &seed in &plan.seeds {
            let started = std::time::Instant::now();
            let real_metrics = play(&real, policy, options, seed)?;
            let real_wall_s = started.elapsed().as_secs_f64();
            bar.inc(1);
            episodes.push(Episode {
                policy: policy.clone(),
                seed,
                sim: play(&sim, policy, options, seed)?,
                sim_calibrated: play(&calibrated, policy, options, seed)?,
                real: real_metrics,
                real_wall_s,
            });
        }
    }
    Ok(summarise(
        &scenario.workload.name,
        episodes,
        calibration,
        &plan.policies,
    ))
}

/// The calibration's episodes must not be among the compared ones.
fn check_plan(plan: &Plan) -> anyhow::Result<()> {
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

/// Per policy, means and ranks; over all episodes, errors and Kendall's tau.
pub fn summarise(
    workload: &str,
    episodes: Vec<Episode>,
    calibration: Calibration,
    policies: &[String],
) -> Report {
    let error = |a: f64, real: f64| (a - real).abs() / real.max(f64::MIN_POSITIVE);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let mut rows: Vec<PolicyRow> = policies
        .iter()
        .map(|policy| {
            let own: Vec<&Episode> = episodes.iter().filter(|e| &e.policy == policy).collect();
            let pick = |f: &dyn Fn(&Episode) -> f64| own.iter().map(|e| f(e)).collect::<Vec<_>>();
            PolicyRow {
                policy: policy.clone(),
                sim_s: mean(&pick(&|e| e.sim.completion_time_s)),
                sim_calibrated_s: mean(&pick(&|e| e.sim_calibrated.completion_time_s)),
                real_s: mean(&pick(&|e| e.real.completion_time_s)),
                sim_error: mean(&pick(&|e| {
                    error(e.sim.completion_time_s, e.real.completion_time_s)
                })),
                calibrated_error: mean(&pick(&|e| {
                    error(e.sim_calibrated.completion_time_s, e.real.completion_time_s)
                })),
                sim_rank: 0,
                calibrated_rank: 0,
                real_rank: 0,
            }
        })
        .collect();
    let sim: Vec<f64> = rows.iter().map(|r| r.sim_s).collect();
    let calibrated: Vec<f64> = rows.iter().map(|r| r.sim_calibrated_s).collect();
    let real: Vec<f64> = rows.iter().map(|r| r.real_s).collect();
    for (row, ((s, c), r)) in rows.iter_mut().zip(
        ranks(&sim)
            .into_iter()
            .zip(ranks(&calibrated))
            .zip(ranks(&real)),
    ) {
        (row.sim_rank, row.calibrated_rank, row.real_rank) = (s, c, r);
    }
    let all = |f: &dyn Fn(&Episode) -> f64| mean(&episodes.iter().map(f).collect::<Vec<_>>());
    Report {
        workload: workload.to_owned(),
        sim_error: all(&|e| error(e.sim.completion_time_s, e.real.completion_time_s)),
        calibrated_error: all(&|e| {
            error(e.sim_calibrated.completion_time_s, e.real.completion_time_s)
        }),
        sim_tau: kendall_tau(&sim, &real),
        calibrated_tau: kendall_tau(&calibrated, &real),
        episodes,
        policies: rows,
        calibration,
    }
}

/// 1-based ranks, lowest value first; ties share the lower rank.
fn ranks(values: &[f64]) -> Vec<usize> {
    values
        .iter()
        .map(|v| 1 + values.iter().filter(|o| *o < v).count())
        .collect()
}

/// Kendall's tau-a between two orderings of the same items (1: the same order, -1: reversed;
/// 1 for fewer than two items).
pub fn kendall_tau(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    if n < 2 {
        return 1.0;
    }
    let mut score = 0.0;
    for i in 0..n {
        for j in i + 1..n {
            let product = (a[i] - a[j]).signum() * (b[i] - b[j]).signum();
            if (a[i] - a[j]) != 0.0 && (b[i] - b[j]) != 0.0 {
                score += product;
            }
        }
    }
    score / (n * (n - 1) / 2) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kendall_tau_counts_agreeing_pairs() {
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 1.0);
        assert_eq!(kendall_tau(&[1.0, 2.0, 3.0], &[30.0, 20.0, 10.0]), -1.0);
        // one of three pairs swapped: (2 - 1) / 3
        assert!((kendall_tau(&[1.0, 2.0, 3.0], &[10.0, 30.0, 20.0]) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(ranks(&[3.0, 1.0, 2.0]), vec![3, 1, 2]);
    }

    #[test]
    fn calibration_on_compared_episodes_is_refused() {
        let plan = Plan {
            policies: vec!["static".into(), "raes".into()],
            seeds: vec![0, 1],
            calibration_policies: vec!["random".into(), "raes".into()],
            calibration_seeds: vec![1, 7],
        };
        let err = check_plan(&plan).unwrap_err().to_string();
        assert!(err.contains("raes on seeds [1]"), "{err}");
        let plan = Plan {
            calibration_seeds: vec![7],
            ..plan
        };
        assert!(check_plan(&plan).is_ok());
    }
}
