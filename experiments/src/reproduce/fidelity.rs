//! fidelity: the simulator against real execution (docs/real-execution.md). The paper's
//! Table 2 schedulers (static, periodic, RAES and a learned one) on a small single-job
//! workload, and four jobs schedulers on a 20-job window, each played in the simulator, in the
//! simulator calibrated on other real episodes, and on real processes under cgroup limits
//! (`crate::fidelity`), and the jobs window through Slurm where a cluster answers
//! (`fidelity_slurm.rs`). Each measurement is kept and reused by `fidelity_measured.rs`.

use schedlab_env::execution::Execution;
use schedlab_env::real::cgroup::Hierarchy;

use super::cached_training::{Training, trained};
use super::context::Context;
use super::fidelity_measured::measured;
use crate::fidelity::Report;
use crate::paths::shipped_workload;

/// Why real processes cannot run on this machine (its cgroups cannot be written), or None
/// where they can.
pub(super) fn real_unavailable() -> Option<String> {
    let probe = Hierarchy::detect(None).and_then(|h| h.create_run(u64::MAX)?.remove());
    probe.err().map(|e| e.to_string())
}

/// The section, or `None` (said on the terminal) where this machine's cgroups cannot be
/// written: the document then keeps the section it has.
pub fn fidelity(cx: &Context) -> anyhow::Result<Option<String>> {
    if let Some(why) = real_unavailable() {
        eprintln!("fidelity: skipped, real execution is not possible on this machine: {why}");
        return Ok(None);
    }
    crate::settings::remove_real_runs_on_interrupt();
    let protocol = &cx.protocol.fidelity;
    let single_job = shipped_workload(&protocol.single_job.workload);
    let learner = trained(
        &Training {
            section: "fidelity",
            family: &single_job,
            root: cx.args.out.join("fidelity").join("runs"),
            eval_episodes: 5,
            stale: Vec::new(),
            reuse: cx.args.reuse_runs,
        },
        &protocol.learner,
        protocol.learner.seeds[0],
    )?;
    let learned = learner.run.display().to_string();
    let mut single_case = protocol.single_job.clone();
    single_case.policies.push(learned.clone());
    let single = measured(cx, "single-job", &single_case, Execution::Real)?;
    let jobs = measured(cx, "jobs", &protocol.jobs, Execution::Real)?;
    let mut text = format!(
        "## Simulator against real execution (fidelity)\n\n`schedlab reproduce fidelity` (seeds and policies from `[fidelity]` in the protocol, not `--seeds`): each (policy, seed) played in the simulator as shipped, in the simulator calibrated on real episodes of other policies and seeds (calibration seeds {:?}, compared seeds {:?}), and on real processes under cgroup CPU and memory limits on this machine, GPUs emulated as CPU quota (docs/real-execution.md). Errors are mean absolute relative errors against real; ranks are 1 for the lowest.\n\n",
        protocol.calibrate_seeds, protocol.seeds,
    );
    text += &format!(
        "### Table 2 at a small scale, with a real-execution column ({})\n\nCompletion time in virtual seconds (time to the target loss); the learned row is PPO trained for {} rounds on the same workload.\n\n",
        protocol.single_job.workload, protocol.learner.steps
    );
    text += &table(&single, |p| {
        if p == learned {
            "PPO (learned)".into()
        } else {
            p.to_owned()
        }
    });
    text += &format!(
        "\n### A jobs window on real processes ({})\n\nMean JCT in virtual seconds; every job a real training process whose preemption checkpoints it to disk.\n\n",
        protocol.jobs.workload
    );
    text += &table(&jobs, str::to_owned);
    text += &super::fidelity_slurm::slurm_column(cx, &jobs)?;
    let scatter = cx.figure("fidelity.png")?;
    crate::plots::scatter(
        &scatter,
        "simulated against real, per episode (relative to the real mean)",
        ("real / mean real", "simulated / mean real"),
        &clouds(&[("single job", &single), ("jobs", &jobs)]),
    )?;
    text += &format!("\n![sim against real]({})\n\n", cx.link("fidelity.png"));
    text += &reading(&single, &jobs, &learned);
    Ok(Some(text))
}

fn table(report: &Report, label: impl Fn(&str) -> String) -> String {
    let mut text = "| policy | simulator | calibrated | real | error, simulator | error, calibrated | rank s/c/r |\n| --- | --- | --- | --- | --- | --- | --- |\n".to_owned();
    for row in &report.policies {
        text += &format!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1}% | {:.1}% | {}/{}/{} |\n",
            label(&row.policy),
            row.sim_s,
            row.sim_calibrated_s,
            row.real_s,
            100.0 * row.sim_error,
            100.0 * row.calibrated_error,
            row.sim_rank,
            row.calibrated_rank,
            row.real_rank
        );
    }
    text += &format!(
        "\nOver all episodes: {:.1}% uncalibrated, {:.1}% calibrated; Kendall's tau of the policies' order against real {:.2} uncalibrated, {:.2} calibrated. Calibration: {}.\n",
        100.0 * report.sim_error,
        100.0 * report.calibrated_error,
        report.sim_tau,
        report.calibrated_tau,
        report.calibration.describe()
    );
    text
}

/// Per workload and side, each episode as (real, simulated) over the workload's mean real.
fn clouds(reports: &[(&str, &Report)]) -> Vec<(String, Vec<(f64, f64)>)> {
    let mut clouds = Vec::new();
    for (name, report) in reports {
        let value = |side: &serde_json::Value| side[&report.metric].as_f64().unwrap_or(f64::NAN);
        let reals: Vec<f64> = report
            .episodes
            .iter()
            .map(|e| value(e.real.metrics()))
            .collect();
        let scale = reals.iter().sum::<f64>() / reals.len().max(1) as f64;
        for (side, calibrated) in [("simulator", false), ("calibrated", true)] {
            let points = report
                .episodes
                .iter()
                .map(|e| {
                    let simulated = if calibrated {
                        &e.sim_calibrated
                    } else {
                        &e.sim
                    };
                    (value(e.real.metrics()) / scale, value(simulated) / scale)
                })
                .collect();
            clouds.push((format!("{name}, {side}"), points));
        }
    }
    clouds
}

/// What the two tables say against the 10% bar and where the ranking differs.
fn reading(single: &Report, jobs: &Report, learned: &str) -> String {
    let label = |p: &str| {
        if p == learned {
            "PPO".to_owned()
        } else {
            p.to_owned()
        }
    };
    let verdict = |r: &Report| {
        let side = if r.calibrated_error <= 0.10 {
            "within"
        } else {
            "above"
        };
        format!(
            "calibrated error {side} the 10% bar ({:.1}%)",
            100.0 * r.calibrated_error
        )
    };
    let ranking = |r: &Report| {
        let rows = &r.policies;
        let mut swapped = Vec::new();
        for (i, a) in rows.iter().enumerate() {
            for b in &rows[i + 1..] {
                let simulated = a.sim_calibrated_s.partial_cmp(&b.sim_calibrated_s);
                let real = a.real_s.partial_cmp(&b.real_s);
                if simulated != real {
                    swapped.push(format!(
                        "{} and {} (real {:.1} and {:.1}, {:.1}% apart)",
                        label(&a.policy),
                        label(&b.policy),
                        a.real_s,
                        b.real_s,
                        100.0 * (a.real_s - b.real_s).abs() / a.real_s.min(b.real_s)
                    ));
                }
            }
        }
        if swapped.is_empty() {
            "the calibrated simulator orders every pair of policies as the machine does".to_owned()
        } else {
            format!(
                "the calibrated simulator orders these pairs otherwise than the machine (or ties them): {}",
                swapped.join("; ")
            )
        }
    };
    let restarts = |r: &Report| {
        r.policies
            .iter()
            .map(|p| {
                let own: Vec<f64> = r
                    .episodes
                    .iter()
                    .filter(|e| e.policy == p.policy)
                    .filter_map(|e| e.real_execution.as_ref()?["restarts"].as_f64())
                    .collect();
                format!(
                    "{} {:.0}",
                    label(&p.policy),
                    own.iter().sum::<f64>() / own.len().max(1) as f64
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "**Reading.** Single job: {}; {}. Jobs window: {}; {}; real restarts (rescales) per episode: {}. docs/real-execution.md (Measured) says which part of the model each error comes from.\n\n",
        verdict(single),
        ranking(single),
        verdict(jobs),
        ranking(jobs),
        restarts(jobs)
    )
}
