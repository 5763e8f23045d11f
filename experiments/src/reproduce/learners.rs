//! learners: PPO, DQN and A2C calibrated on tasks with known answers (CartPole-v1 and
//! Acrobot-v1) against a reference implementation at the same settings (issue 67): each
//! learner's learning curve, the IQM over seeds of the mean training return per bin of env
//! steps with a bootstrap CI (rliable), beside CleanRL's and Stable-Baselines3's recorded curves
//! (`data/reference/`, `examples/record_cleanrl_reference.py`, `examples/record_sb3_reference.py`);
//! its final IQM against the first reference's that ran it, its greedy return and its env steps
//! per second.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context as _;
use indicatif::ProgressBar;
use schedlab_env::EpisodeSummary;
use serde::Deserialize;

use super::cached_training::{Training, trained};
use super::context::Context;
use super::protocol::{LearnedRun, LearnersReference};
use crate::curves::tensorboard_curve;
use crate::paths::{data_root, shipped_workload};
use crate::play::play_seeds;
use crate::plots::{self, XScale};
use crate::stats::{iqm, stratified_bootstrap_ci};
use crate::workloads::{load, with_kind};

/// How close a learner's final IQM must come to the reference's: within 5% of it, or better.
const WITHIN: f64 = 0.05;
/// Bootstrap resamples of every CI.
const RESAMPLES: usize = 2_000;

/// A reference curve's row (`cleanrl-curves.csv`, `sb3-curves.csv`).
#[derive(Deserialize)]
struct CurveRow {
    algo: String,
    task: String,
    seed: u64,
    step: u64,
    mean_return: f64,
}

/// A reference run's row (`cleanrl-runs.csv`, `sb3-runs.csv`; other columns hold versions).
#[derive(Deserialize)]
struct RunRow {
    algo: String,
    task: String,
    greedy_return: f64,
    env_steps_per_s: f64,
}

fn rows<T: for<'de> Deserialize<'de>>(path: &Path) -> anyhow::Result<Vec<T>> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("opening {}", path.display()))?;
    reader
        .deserialize()
        .enumerate()
        .map(|(k, row)| row.with_context(|| format!("{} line {}", path.display(), k + 2)))
        .collect()
}

/// One method's runs on one task: per seed, the curve (mean return per bin, in bin order),
/// the greedy return and the env steps per second.
#[derive(Default)]
struct Runs {
    curves: Vec<Vec<(u64, f64)>>,
    greedy: Vec<f64>,
    speeds: Vec<f64>,
}

impl Runs {
    /// The IQM over seeds at each bin every seed has a point in, with its 95% CI.
    fn iqm_curve(&self) -> Vec<(u64, f64, (f64, f64))> {
        let seeds: Vec<BTreeMap<u64, f64>> = self
            .curves
            .iter()
            .map(|c| c.iter().copied().collect())
            .collect();
        let Some(first) = seeds.first() else {
            return Vec::new();
        };
        first
            .keys()
            .filter(|step| seeds.iter().all(|s| s.contains_key(step)))
            .map(|&step| {
                let at: Vec<f64> = seeds.iter().map(|s| s[&step]).collect();
                let ci = stratified_bootstrap_ci(std::slice::from_ref(&at), iqm, RESAMPLES, step);
                (step, iqm(&at), ci)
            })
            .collect()
    }

    fn last(&self) -> Option<(u64, f64, (f64, f64))> {
        self.iqm_curve().last().copied()
    }

    /// The curve's point at `step`, if every seed has one there.
    fn at(&self, step: u64) -> Option<(u64, f64, (f64, f64))> {
        self.iqm_curve().into_iter().find(|p| p.0 == step)
    }
}

/// The mean of the returns of episodes that ended in each bin of `bin` steps up to `steps`
/// (a bin no episode ended in is left out).
fn binned(episodes: &[(f64, f64)], bin: u64, steps: u64) -> Vec<(u64, f64)> {
    let mut sums: BTreeMap<u64, (f64, usize)> = BTreeMap::new();
    for &(step, value) in episodes {
        let b = ((step as u64).saturating_sub(1) / bin).min(steps.div_ceil(bin) - 1);
        let entry = sums.entry(b).or_default();
        entry.0 += value;
        entry.1 += 1;
    }
    sums.into_iter()
        .map(|(b, (sum, n))| ((b + 1) * bin, sum / n as f64))
        .collect()
}

/// A reference implementation's runs on `task`, by algorithm.
fn reference_runs(
    reference: &LearnersReference,
    task: &str,
) -> anyhow::Result<BTreeMap<String, Runs>> {
    let curves: Vec<CurveRow> = rows(&data_root(&reference.curves).join(&reference.curves))?;
    let runs: Vec<RunRow> = rows(&data_root(&reference.runs).join(&reference.runs))?;
    let mut by_algo: BTreeMap<String, BTreeMap<u64, Vec<(u64, f64)>>> = BTreeMap::new();
    for row in curves.into_iter().filter(|r| r.task == task) {
        by_algo
            .entry(row.algo)
            .or_default()
            .entry(row.seed)
            .or_default()
            .push((row.step, row.mean_return));
    }
    let mut out: BTreeMap<String, Runs> = BTreeMap::new();
    for (algo, seeds) in by_algo {
        out.entry(algo).or_default().curves = seeds.into_values().collect();
    }
    for row in runs.into_iter().filter(|r| r.task == task) {
        let entry = out.entry(row.algo).or_default();
        entry.greedy.push(row.greedy_return);
        entry.speeds.push(row.env_steps_per_s);
    }
    Ok(out)
}

/// `learner`'s runs on the task at `path`, trained (or found trained) in the section's folder.
fn learner_runs(
    cx: &Context,
    path: &Path,
    task: &str,
    learner: &LearnedRun,
) -> anyhow::Result<Runs> {
    let p = &cx.protocol.learners;
    let training = Training {
        section: "learners",
        family: path,
        root: cx.args.out.join("learners").join(task),
        eval_episodes: 0,
        stale: Vec::new(),
        reuse: cx.args.reuse_runs,
    };
    let loaded = load(path, &[])?;
    let greedy_seeds: Vec<u64> = (0..p.greedy_episodes).collect();
    let mut runs = Runs::default();
    for &seed in &learner.seeds {
        let t = trained(&training, learner, seed)?;
        let episodes = tensorboard_curve(&t.run, "charts/episode_return")?;
        runs.curves
            .push(binned(&episodes, p.bin_steps, learner.steps));
        let policy = t.run.display().to_string();
        let returns: Vec<f64> = with_kind!(&loaded, |w| play_seeds(
            w,
            &policy,
            &[],
            &greedy_seeds,
            &ProgressBar::hidden()
        )
        .map(|ms| ms.iter().map(|m| m.episode_return()).collect()))?;
        runs.greedy
            .push(returns.iter().sum::<f64>() / returns.len() as f64);
        runs.speeds.push(learner.steps as f64 / t.seconds);
    }
    Ok(runs)
}

fn ci_text((value, (lo, hi)): (f64, (f64, f64))) -> String {
    format!("{value:.1} [{lo:.1}, {hi:.1}]")
}

fn median(values: &[f64]) -> f64 {
    crate::stats::median(values.to_vec())
}

/// A learner's table row: its final IQM beside each reference's at the same step (`of_agent`:
/// each reference's runs of the learner's agent, if it ran it), the verdict against the first
/// reference that ran it, the greedy returns and the speeds.
fn learner_row(label: &str, ours: &Runs, of_agent: &[(&str, Option<&Runs>)]) -> String {
    // the references at the step schedlab's curve ends at: the same budget
    let ours_last = ours.last();
    let at_our_end = |runs: &Runs| ours_last.and_then(|(step, _, _)| runs.at(step));
    let verdict = match of_agent.iter().find_map(|(name, r)| r.map(|r| (name, r))) {
        None => "no reference recorded".to_owned(),
        Some((name, reference)) => match (ours_last, at_our_end(reference)) {
            (Some((_, a, _)), Some((_, b, _))) => {
                let met = a >= b || (a - b).abs() <= WITHIN * b.abs();
                format!("{}, against {name}", if met { "yes" } else { "no" })
            }
            _ => format!("no {name} point at that step"),
        },
    };
    let final_text = |last: Option<(u64, f64, (f64, f64))>| {
        last.map_or("—".to_owned(), |(_, v, ci)| ci_text((v, ci)))
    };
    let or_dash =
        |v: Option<f64>, digits: usize| v.map_or("—".to_owned(), |v| format!("{v:.digits$}"));
    let finals: Vec<String> = of_agent
        .iter()
        .map(|(_, r)| final_text(r.and_then(at_our_end)))
        .collect();
    let greedy: Vec<String> = of_agent
        .iter()
        .map(|(_, r)| {
            or_dash(
                r.filter(|r| !r.greedy.is_empty()).map(|r| iqm(&r.greedy)),
                1,
            )
        })
        .collect();
    let speeds: Vec<String> = of_agent
        .iter()
        .map(|(_, r)| {
            or_dash(
                r.filter(|r| !r.speeds.is_empty())
                    .map(|r| median(&r.speeds)),
                0,
            )
        })
        .collect();
    format!(
        "| {label} | {} | {} | {verdict} | {:.1} / {} | {:.0} / {} |\n",
        final_text(ours_last),
        finals.join(" | "),
        iqm(&ours.greedy),
        greedy.join(" / "),
        median(&ours.speeds),
        speeds.join(" / ")
    )
}

/// One task's table rows and figure series.
fn task_part(cx: &Context, file: &str) -> anyhow::Result<String> {
    let p = &cx.protocol.learners;
    let path = shipped_workload(file);
    let task = Path::new(file)
        .file_stem()
        .and_then(|s| s.to_str())
        .with_context(|| format!("task `{file}` has no file stem"))?;
    let references: Vec<(&str, BTreeMap<String, Runs>)> = p
        .references
        .iter()
        .map(|r| Ok((r.name.as_str(), reference_runs(r, task)?)))
        .collect::<anyhow::Result<_>>()?;
    let names: Vec<&str> = references.iter().map(|(name, _)| *name).collect();
    let mut table = format!(
        "\n**{task}** ({file}):\n\n| learner | final IQM [95% CI], schedlab | {} | within {:.0}% of the first reference, or better | greedy IQM, schedlab / {} | env steps/s, schedlab / {} (median) |\n|{}\n",
        names
            .iter()
            .map(|n| format!("final IQM, {n}"))
            .collect::<Vec<_>>()
            .join(" | "),
        WITHIN * 100.0,
        names.join(" / "),
        names.join(" / "),
        " --- |".repeat(5 + names.len()),
    );
    let mut series = Vec::new();
    for learner in &p.learners {
        let ours = learner_runs(cx, &path, task, learner)?;
        let of_agent: Vec<(&str, Option<&Runs>)> = references
            .iter()
            .map(|(name, runs)| (*name, runs.get(&learner.agent)))
            .collect();
        table += &learner_row(&learner.label, &ours, &of_agent);
        let points = |runs: &Runs| -> Vec<(f64, f64)> {
            runs.iqm_curve()
                .iter()
                .map(|&(s, v, _)| (s as f64, v))
                .collect()
        };
        series.push((format!("{} (schedlab)", learner.label), points(&ours)));
        for (name, r) in &of_agent {
            if let Some(r) = r {
                series.push((format!("{} ({name})", learner.label), points(r)));
            }
        }
    }
    let figure = format!("learners-{task}.png");
    plots::lines(
        &cx.figure(&figure)?,
        &format!("{task}: IQM over seeds of the training return"),
        ("env steps", "mean return of the episodes that ended"),
        &series,
        XScale::Linear,
    )?;
    table += &format!("\n![{task} learning curves]({})\n", cx.link(&figure));
    Ok(table)
}

/// The section.
pub fn learners(cx: &Context) -> anyhow::Result<String> {
    let p = &cx.protocol.learners;
    let mut text = format!(
        "## Learners on tasks with known answers (learners)\n\n`schedlab reproduce learners` ({}): each learner trained on every task from each of its seeds ({}), beside the references ({}), unmodified, recorded once (their versions, settings and recorders are in the `*-runs.csv` files and data/SOURCES.md). Each learner's settings are its row of the protocol's `[learners]` (`data/experiments/reproduce.toml`). A learner is measured against the first reference that ran it. A curve's point is the IQM over seeds of the mean return of the training episodes that ended in each {} env steps, its CI a 95% bootstrap over seeds ({RESAMPLES} resamples); \"final\" is schedlab's last such point and the reference's at the same step. The greedy return is the mean over {} episodes of the trained policy. schedlab's env steps per second count its whole run (updates included) in this build; the references' were recorded while other work shared the machine, so only docs/learned.md's quiet comparison is one of speed.\n",
        // the steps per second below are this build's
        if cfg!(debug_assertions) {
            "a debug build"
        } else {
            "a release build"
        },
        p.learners
            .iter()
            .map(|l| format!("{} {:?}", l.label, l.seeds))
            .collect::<Vec<_>>()
            .join(", "),
        p.references
            .iter()
            .map(|r| format!("{}: `data/{}`", r.name, r.curves))
            .collect::<Vec<_>>()
            .join("; "),
        p.bin_steps,
        p.greedy_episodes,
    );
    for task in &p.tasks {
        text += &task_part(cx, task)?;
    }
    Ok(text + "\n")
}

#[cfg(test)]
mod tests {
    use super::{Runs, binned, learner_row};

    /// Episodes are binned by the step they ended at; a bin holds its end step.
    #[test]
    fn episodes_fall_in_the_bin_of_the_step_they_ended_at() {
        let episodes = [(5.0, 1.0), (10.0, 3.0), (11.0, 10.0), (30.0, 7.0)];
        assert_eq!(
            binned(&episodes, 10, 30),
            vec![(10, 2.0), (20, 10.0), (30, 7.0)]
        );
    }

    /// The curve's IQM is over seeds at each bin, only where every seed has one.
    #[test]
    fn the_curve_is_the_iqm_over_seeds_where_all_have_a_point() {
        let runs = Runs {
            curves: vec![
                vec![(10, 1.0), (20, 2.0)],
                vec![(10, 3.0), (20, 4.0)],
                vec![(10, 5.0)],
                vec![(10, 100.0), (20, 6.0)],
            ],
            ..Runs::default()
        };
        let curve = runs.iqm_curve();
        assert_eq!(curve.len(), 1);
        // sorted 1, 3, 5, 100: the IQM drops one from each end
        assert_eq!(curve[0].1, 4.0);
        let (lo, hi) = curve[0].2;
        assert!(lo <= 4.0 && 4.0 <= hi && lo >= 1.0 && hi <= 100.0);
    }

    /// A learner is judged against the first reference that ran its agent, at the step its own
    /// curve ends at; a reference without its agent is a dash beside it.
    #[test]
    fn the_verdict_is_against_the_first_reference_that_ran_the_agent() {
        let runs = |final_return: f64| Runs {
            curves: vec![vec![(10, 0.0), (20, final_return)]; 4],
            greedy: vec![final_return],
            speeds: vec![1000.0],
        };
        let ours = runs(100.0);
        let cells =
            |row: String| -> Vec<String> { row.split('|').map(|c| c.trim().to_owned()).collect() };
        let (close, far, ahead) = (runs(104.0), runs(110.0), runs(90.0));
        let row = cells(learner_row(
            "PPO",
            &ours,
            &[("A", None), ("B", Some(&close))],
        ));
        assert_eq!(row[3], "—");
        assert!(row[4].starts_with("104.0"), "{row:?}");
        assert_eq!(row[5], "yes, against B");
        let row = cells(learner_row(
            "PPO",
            &ours,
            &[("A", Some(&far)), ("B", Some(&ahead))],
        ));
        assert_eq!(row[5], "no, against A");
        let row = cells(learner_row("PPO", &ours, &[("A", None)]));
        assert_eq!(row[4], "no reference recorded");
    }
}
