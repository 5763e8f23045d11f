//! `schedlab fidelity`: the same policies and seeds played in the simulator and on real
//! processes (`execution = "real"`, `schedlab_env::real`), the simulator calibrated on other
//! real episodes (`single_job.rs` and `calibrate.rs`, `jobs.rs`), and how far each is from the
//! machine: relative error of the completion time (single job) or mean JCT (jobs), and whether
//! the policies rank alike (Kendall's tau).

pub mod calibrate;
mod jobs;
mod single_job;

use std::collections::BTreeMap;
use std::path::Path;

use indicatif::ProgressBar;
use schedlab_env::EnvKind;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::workloads::Loaded;
pub use calibrate::Calibration;
pub use jobs::JobsCalibration;

/// What to play.
pub struct Plan {
    pub policies: Vec<String>,
    pub seeds: Vec<u64>,
    /// The real episodes the simulator is calibrated on: policies and seeds apart from the
    /// compared ones, so that the error is measured on episodes the fit never saw.
    pub calibration_policies: Vec<String>,
    pub calibration_seeds: Vec<u64>,
}

/// One (policy, seed) played three ways; each side holds the episode's metrics.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Episode {
    pub policy: String,
    pub seed: u64,
    pub sim: Value,
    pub sim_calibrated: Value,
    pub real: Value,
    /// Wall seconds of the real episode.
    pub real_wall_s: f64,
    /// What the real processes measured beside the metrics (jobs: start and restart costs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real_execution: Option<Value>,
}

/// A policy's mean of the compared metric each way and its rank (1: lowest) under each.
#[derive(Debug, Clone, Serialize, Deserialize)]
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

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub workload: String,
    /// The metric compared: `completion_time_s` (single job) or `jct_avg_s` (jobs).
    pub metric: String,
    pub episodes: Vec<Episode>,
    pub policies: Vec<PolicyRow>,
    pub calibration: Fitted,
    /// The workload settings that make the simulator the calibrated one.
    pub calibrated_settings: BTreeMap<String, String>,
    /// Mean absolute relative error of the metric over every episode.
    pub sim_error: f64,
    pub calibrated_error: f64,
    /// Kendall's tau between the policies' order in the simulator and on the machine.
    pub sim_tau: f64,
    pub calibrated_tau: f64,
}

/// Plays `plan` on the workload at `path` (single-job or jobs) under `overrides` (workload
/// settings) with the policies' `options`; `bar` counts real episodes.
pub fn measure(
    path: &Path,
    overrides: &[(String, String)],
    options: &[(String, String)],
    plan: &Plan,
    bar: &ProgressBar,
) -> anyhow::Result<Report> {
    check_plan(plan)?;
    let loaded = Sides::load(path, overrides)?;
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
                real,
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
            loaded.path.display()
        ),
    }
}

/// A workload loaded for the simulator and for real execution.
pub struct Sides {
    path: std::path::PathBuf,
    overrides: Vec<(String, String)>,
    pub sim: Loaded,
    pub real: Loaded,
}

impl Sides {
    pub fn load(path: &Path, overrides: &[(String, String)]) -> anyhow::Result<Sides> {
        let load = |execution: &str| {
            let mut all = overrides.to_vec();
            all.push(("execution".into(), execution.into()));
            crate::workloads::load(path, &all)
        };
        Ok(Sides {
            path: path.to_owned(),
            overrides: overrides.to_vec(),
            sim: load("sim")?,
            real: load("real")?,
        })
    }

    /// The simulator with `settings` on top.
    fn with(&self, settings: &[(String, String)]) -> anyhow::Result<Loaded> {
        let mut all = self.overrides.clone();
        all.extend(settings.iter().cloned());
        all.push(("execution".into(), "sim".into()));
        crate::workloads::load(&self.path, &all)
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

/// Per policy, means and ranks of `metric`; over all episodes, errors and Kendall's tau.
pub fn summarise(
    workload: &str,
    metric: &str,
    episodes: Vec<Episode>,
    (calibration, calibrated_settings): (Fitted, BTreeMap<String, String>),
    policies: &[String],
) -> Report {
    let value = |side: &Value| side[metric].as_f64().unwrap_or(f64::NAN);
    let error = |a: &Value, real: &Value| {
        (value(a) - value(real)).abs() / value(real).max(f64::MIN_POSITIVE)
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let mut rows: Vec<PolicyRow> = policies
        .iter()
        .map(|policy| {
            let own: Vec<&Episode> = episodes.iter().filter(|e| &e.policy == policy).collect();
            let pick = |f: &dyn Fn(&Episode) -> f64| own.iter().map(|e| f(e)).collect::<Vec<_>>();
            PolicyRow {
                policy: policy.clone(),
                sim_s: mean(&pick(&|e| value(&e.sim))),
                sim_calibrated_s: mean(&pick(&|e| value(&e.sim_calibrated))),
                real_s: mean(&pick(&|e| value(&e.real))),
                sim_error: mean(&pick(&|e| error(&e.sim, &e.real))),
                calibrated_error: mean(&pick(&|e| error(&e.sim_calibrated, &e.real))),
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
        metric: metric.to_owned(),
        sim_error: all(&|e| error(&e.sim, &e.real)),
        calibrated_error: all(&|e| error(&e.sim_calibrated, &e.real)),
        sim_tau: kendall_tau(&sim, &real),
        calibrated_tau: kendall_tau(&calibrated, &real),
        episodes,
        policies: rows,
        calibration,
        calibrated_settings,
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
