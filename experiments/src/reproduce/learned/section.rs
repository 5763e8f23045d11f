//! learned: learned schedulers against the best heuristic on trace windows they never saw
//! (issue 15's bar). Each learner of the protocol trains on a trace's training family (timed,
//! warm start included), then it, the heuristics and the shipped clones play the trace's
//! held-out windows through the one-choice interface; a table per trace, the training curves
//! and the per-job JCT CDFs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use schedlab_env::jobs::JobsEnv;

use super::ablation::{Outcome, ablation};
use super::bar::{Paired, Verdict, compare, detectable, reading};
use super::later::later_section;
use super::line::{Line, against_best, load_windows, lowest_mean, per_slot_set, unfinished_of};
use super::room::{headroom, lower_bounds, per_window};
use super::training::{training_curves, warm_starts};
use crate::output::number;
use crate::paths::{data_root, shipped_workload};
use crate::play::completion_hours;
use crate::plots::{self, XScale};
use crate::reproduce::cached_training::{Trained, Training, reused_note, trained};
use crate::reproduce::context::{Context, mean};
use crate::reproduce::episodes::episodes_of;
use crate::reproduce::protocol::{LearnedRun, LearnedTrace};
use crate::stats::{welch, welch_floor};
use crate::sweep::spec::{SweepSpec, TrainSettings};
use crate::workloads::{Jobs, Loaded};

/// The evaluation episodes' override set, as the sweep names it.
const VARIANT: &str = "heldout";
/// The same through the per-slot interface (heuristics only: learned policies play the
/// interface they were trained on).
const PER_SLOT_VARIANT: &str = "heldout-per-slot";

pub fn learned(cx: &Context) -> anyhow::Result<String> {
    let p = &cx.protocol.learned;
    let mut text = format!(
        "## Learned schedulers on held-out windows (learned)\n\n`schedlab reproduce learned` (protocol `[learned]` of `data/experiments/reproduce.toml`). Each learner trains on a trace's training family from each of its seeds (wall time on this machine, warm start and the closing greedy evaluation on {evals} family windows included; budget {budget:.0} s), then every policy plays each of the trace's held-out windows (a later, disjoint period; `data/SOURCES.md`) on seeds 0..{last}: the learned ones through the one-choice interface they were trained on, every heuristic through both interfaces as separate rows. JCT mean is the mean over episodes of each episode's mean JCT; p95 likewise; makespan and GPU occupancy are means over episodes. Against the best heuristic (the lowest mean JCT of all heuristic rows), over the same (window, seed) episodes: the IQM of the per-episode ratios of mean JCT with a stratified bootstrap 95% CI (windows as strata), the probability that a row's episode has the lower mean JCT (per window over its seeds, averaged), as rliable recommends; the two-sided Wilcoxon signed-rank p, and as extra columns Welch's p (unpaired) and the paired t-test's. The bar: a lower mean JCT than the best heuristic, Wilcoxon p < 0.05, every job finished, training within the budget. Nothing was tuned on these windows.\n\n",
        evals = p.train_eval_episodes,
        budget = p.budget_s,
        last = p.eval_seeds - 1,
    );
    if let Some(learner) = p.learners.iter().find(|l| l.seeds.is_empty()) {
        anyhow::bail!("learner `{}`: seeds = [] trains nothing", learner.label);
    }
    if let Some(learner) = p.learners.iter().find(|l| l.workload.is_some()) {
        anyhow::bail!(
            "learner `{}`: a learned learner trains on each trace's family; `workload` is for DAG learners",
            learner.label
        );
    }
    let mut outcomes = Vec::new();
    for trace in &p.traces {
        let trained = p
            .learners
            .iter()
            .flat_map(|learner| learner.seeds.iter().map(move |&seed| (learner, seed)))
            .map(|(learner, seed)| train(cx, trace, learner, seed))
            .collect::<anyhow::Result<Vec<_>>>()?;
        let reused = reused_note(&trained);
        if !reused.is_empty() {
            text += &format!("{}\n\n", reused.trim_start());
        }
        let (section, trace_outcomes) = trace_section(cx, trace, &trained)?;
        text += &section;
        outcomes.push((trace.name.clone(), trace_outcomes));
        text += &training_curves(cx, &trace.name, &trained)?;
    }
    text += &ablation(&p.learners, &outcomes);
    Ok(text)
}

/// Trains `learner` from `seed` on `trace`'s family into its own folder under the output, or
/// returns the finished or resumed run there (`cached_training`); the trace's sweeps forget a
/// retrained run's rows.
fn train<'a>(
    cx: &Context,
    trace: &LearnedTrace,
    learner: &'a LearnedRun,
    seed: u64,
) -> anyhow::Result<Trained<'a>> {
    let family = shipped_workload(&trace.family);
    let sweep = sweep_name(trace);
    let stale = [
        validation_sweep_name(&sweep),
        later_sweep_name(trace),
        sweep,
    ]
    .map(|name| cx.args.out.join(name));
    trained(
        &Training {
            section: "learned",
            family: &family,
            root: cx.args.out.join("learned").join("runs").join(&trace.name),
            eval_episodes: cx.protocol.learned.train_eval_episodes,
            stale: stale.to_vec(),
            reuse: cx.args.reuse_runs,
        },
        learner,
        seed,
    )
}

fn sweep_name(trace: &LearnedTrace) -> String {
    format!("learned-{}", trace.name)
}

/// The sweep of `sweep`'s policies on the family's validation windows.
fn validation_sweep_name(sweep: &str) -> String {
    format!("{sweep}-validation")
}

fn later_sweep_name(trace: &LearnedTrace) -> String {
    format!("learned-{}-later", trace.name)
}

/// The windows in `folder` of `data/workloads/`, in name order.
pub(in crate::reproduce) fn windows_in(folder: &str) -> anyhow::Result<Vec<PathBuf>> {
    let relative = format!("workloads/{folder}");
    let folder = data_root(&relative).join(relative);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .with_context(|| format!("reading {}", folder.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    anyhow::ensure!(!files.is_empty(), "{}: no windows", folder.display());
    Ok(files)
}

/// The trace's tables, and each trained run's outcome against the best heuristic for the
/// ablation table.
fn trace_section(
    cx: &Context,
    trace: &LearnedTrace,
    trained: &[Trained],
) -> anyhow::Result<(String, Vec<Outcome>)> {
    let p = &cx.protocol.learned;
    let TracePlay {
        spec,
        per_slot,
        windows,
        heuristics,
        learned,
    } = play_trace(cx, trace, trained)?;
    let best = lowest_mean(heuristics.iter()).expect("the protocol names heuristics");
    let (loaded, jobs_per_seed) = load_windows(&windows, &p.set)?;
    let jobs = jobs_per_seed * p.eval_seeds as usize;
    let validation_seeds: Vec<u64> = (0..p.validation_episodes).collect();
    let validation_jobs = family_jobs(&shipped_workload(&trace.family), &validation_seeds)?;
    let mut text = format!(
        "### {name}: {windows} held-out windows x {seeds} seeds, {jobs} jobs; best heuristic `{best}`\n\n\
         | policy | trained (s) | validation JCT (s) | JCT mean (s) | JCT p95 (s) | finished | makespan (s) | GPU occupancy | JCT vs best | IQM ratio [95% CI] | P(better) | Wilcoxon p | Welch p | paired p |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        name = trace.name,
        windows = windows.len(),
        seeds = p.eval_seeds,
        best = best.label,
    );
    let best_jct = best.jct();
    let best_unfinished = jobs.saturating_sub(best.finished());
    let mut verdicts = Vec::new();
    for line in heuristics.iter().chain(&learned) {
        let (row, verdict) = table_row(line, best, jobs, &validation_jobs, p.budget_s);
        text += &row;
        verdicts.extend(verdict);
    }
    let bounds = lower_bounds(&loaded, &windows, &best.episodes)?;
    let bound_jct: Vec<f64> = bounds.iter().map(|b| b.0).collect();
    let bound_welch = welch(&bound_jct, &best_jct).2;
    text += &lower_bound_row(&bounds, best);
    text += &format!(
        "\n{} {} {} {}\n\n",
        validated(
            &heuristics,
            &learned,
            &validation_jobs,
            p.validation_episodes
        ),
        reading(&best.label, best_unfinished, &verdicts),
        detectable(&best_jct),
        headroom(bound_welch, welch_floor(&bound_jct, &best_jct)),
    );
    let lines: Vec<&Line> = heuristics.iter().chain(&learned).collect();
    text += &unfinished_of(&lines, &p.set, &loaded, &windows)?;
    text += &jct_cdf(cx, trace, best, &learned, &loaded, &windows)?;
    text += &per_window(&windows, &heuristics, best, &learned, &bounds);
    if let Some(folder) = &trace.later {
        let name = later_sweep_name(trace);
        text += &later_section(
            cx,
            &trace.name,
            windows_in(folder)?,
            name,
            [&spec, &per_slot],
            &lines,
        )?;
    }
    text += &warm_starts(trained)?;
    let outcomes = outcomes(
        trained,
        (&heuristics, &learned),
        &verdicts,
        &validation_jobs,
    );
    Ok((text, outcomes))
}

/// The table's row of the JCT lower bounds (per episode: mean JCT, p95), against the best
/// heuristic on the same episodes.
fn lower_bound_row(bounds: &[(f64, f64)], best: &Line) -> String {
    let bound_jct: Vec<f64> = bounds.iter().map(|b| b.0).collect();
    let bound_by_episode = best
        .episodes
        .keys()
        .cloned()
        .zip(bound_jct.iter().copied())
        .collect();
    format!(
        "| lower bound | | | {} | {} | | | | {:+.1}% | {} |\n",
        number(mean(&bound_jct)),
        number(mean(&bounds.iter().map(|b| b.1).collect::<Vec<_>>())),
        100.0 * (mean(&bound_jct) / mean(&best.jct()) - 1.0),
        compare(&bound_by_episode, &best.jct_by_episode()).cells(),
    )
}

/// Each trained run's outcome for the ablation table: its validation JCT against the best
/// heuristic's there, its held-out change and whether it meets the bar.
fn outcomes(
    trained: &[Trained],
    (heuristics, learned): (&[Line], &[Line]),
    verdicts: &[Verdict],
    validation_jobs: &BTreeMap<u64, usize>,
) -> Vec<Outcome> {
    let best_validation =
        lowest_validation(heuristics.iter(), validation_jobs).map_or(f64::NAN, |(_, jct)| jct);
    trained
        .iter()
        .zip(learned)
        .map(|(t, line)| {
            let verdict = verdicts
                .iter()
                .find(|v| v.label == line.label)
                .expect("every learned row is judged against the best heuristic");
            Outcome {
                learner: t.learner.label.clone(),
                validation_change: 100.0
                    * (line.validation_jct(validation_jobs) / best_validation - 1.0),
                heldout_change: verdict.paired.change,
                meets_the_bar: verdict.meets_the_bar(),
            }
        })
        .collect()
}

/// What one trace's sweeps played: the held-out spec through the learned policies' interface
/// and per slot, the windows, and every heuristic's line (through both interfaces) and every
/// learned one's.
struct TracePlay {
    spec: SweepSpec,
    per_slot: SweepSpec,
    windows: Vec<PathBuf>,
    heuristics: Vec<Line>,
    learned: Vec<Line>,
}

/// Plays every policy on the trace's held-out windows and on its family's validation windows,
/// through both interfaces.
fn play_trace(
    cx: &Context,
    trace: &LearnedTrace,
    trained: &[Trained],
) -> anyhow::Result<TracePlay> {
    let p = &cx.protocol.learned;
    let windows = windows_in(&trace.heldout)?;
    let run_names: Vec<String> = trained
        .iter()
        .map(|t| t.run.display().to_string())
        .collect();
    let mut policies = p.heuristics.clone();
    policies.extend(run_names.iter().cloned());
    policies.extend(p.shipped.iter().cloned());
    let spec = SweepSpec {
        name: sweep_name(trace),
        policies,
        workloads: windows.clone(),
        seeds: (0..p.eval_seeds).collect(),
        overrides: BTreeMap::from([(VARIANT.to_owned(), p.set.clone())]),
        train: TrainSettings::default(),
    };
    let per_slot = per_slot_spec(p, &spec, trace);
    let validation = |spec: &SweepSpec| SweepSpec {
        name: validation_sweep_name(&spec.name),
        workloads: vec![shipped_workload(&trace.family)],
        seeds: (0..p.validation_episodes).collect(),
        ..spec.clone()
    };
    let rows = cx.sweep(&spec)?;
    let validation_rows = cx.sweep(&validation(&spec))?;
    let per_slot_rows = cx.sweep(&per_slot)?;
    let per_slot_validation_rows = cx.sweep(&validation(&per_slot))?;
    let line = |label: String, policy: &str, trained_s: Option<f64>, per_slot: bool| {
        let (rows, validation_rows) = if per_slot {
            (&per_slot_rows, &per_slot_validation_rows)
        } else {
            (&rows, &validation_rows)
        };
        Line {
            label,
            policy: policy.to_owned(),
            learned: !p.heuristics.iter().any(|h| h == policy),
            per_slot,
            trained_s,
            episodes: episodes_of(rows, policy),
            validation: episodes_of(validation_rows, policy),
        }
    };
    let heuristics: Vec<Line> = p
        .heuristics
        .iter()
        .flat_map(|h| {
            [false, true].map(|per_slot| line(interface_label(h, per_slot), h, None, per_slot))
        })
        .collect();
    let learned: Vec<Line> = trained
        .iter()
        .zip(&run_names)
        .map(|(t, name)| line(t.label(), name, Some(t.seconds), false))
        .chain(
            p.shipped
                .iter()
                .map(|s| line(format!("shipped `{s}`"), s, None, false)),
        )
        .collect();
    Ok(TracePlay {
        spec,
        per_slot,
        windows,
        heuristics,
        learned,
    })
}

/// One policy's row of the held-out table, and for a learned one its verdict on the bar.
fn table_row(
    line: &Line,
    best: &Line,
    jobs: usize,
    validation_jobs: &BTreeMap<u64, usize>,
    budget_s: f64,
) -> (String, Option<Verdict>) {
    let jct = line.jct();
    let finished = line.finished();
    let (label, paired) = against_best(line, best);
    let row = format!(
        "| {label} | {} | {} | {} | {} | {finished} | {} | {:.3} | {:+.1}% | {} |\n",
        line.trained_s.map_or(String::new(), |s| format!("{s:.0}")),
        number(line.validation_jct(validation_jobs)),
        number(mean(&jct)),
        number(mean(&line.metric("jct_p95_s"))),
        number(mean(&line.metric("makespan_s"))),
        mean(&line.metric("gpu_occupancy")),
        100.0 * (mean(&jct) / mean(&best.jct()) - 1.0),
        paired
            .as_ref()
            .map_or(" | | | | ".to_owned(), Paired::cells),
    );
    let verdict = match (line.learned, paired) {
        (true, Some(paired)) => Some(Verdict {
            label: line.label.clone(),
            paired,
            unfinished: jobs.saturating_sub(finished),
            within_budget: line.trained_s.is_none_or(|s| s <= budget_s),
        }),
        _ => None,
    };
    (row, verdict)
}

/// The CDF of job completion times on the held-out windows (seed 0) of the best heuristic and
/// every learned policy, as a figure and its link.
fn jct_cdf(
    cx: &Context,
    trace: &LearnedTrace,
    best: &Line,
    learned: &[Line],
    loaded: &[Loaded],
    windows: &[PathBuf],
) -> anyhow::Result<String> {
    let first_seed = 0;
    let mut samples = Vec::new();
    for line in std::iter::once(best).chain(learned) {
        let mut hours = Vec::new();
        for (l, w) in loaded.iter().zip(windows) {
            let jobs: &Jobs = l.expect("learned", w)?;
            hours.extend(completion_hours(jobs, &line.policy, first_seed)?);
        }
        samples.push((line.label.replace('`', ""), hours));
    }
    let figure = format!("learned-{}-jct-cdf.png", trace.name);
    plots::cdfs(
        &cx.figure(&figure)?,
        &format!(
            "Job completion times, {} held-out windows (seed {first_seed})",
            trace.name
        ),
        ("JCT (hours, log scale)", "share of jobs"),
        &samples,
        XScale::Log,
    )?;
    Ok(format!(
        "![JCT CDF, {}]({})\n\n",
        trace.name,
        cx.link(&figure)
    ))
}

/// The held-out sweep `spec` with the heuristics alone through the per-slot interface.
fn per_slot_spec(
    p: &crate::reproduce::protocol::LearnedProtocol,
    spec: &SweepSpec,
    trace: &LearnedTrace,
) -> SweepSpec {
    SweepSpec {
        name: format!("{}-per-slot", sweep_name(trace)),
        policies: p.heuristics.clone(),
        overrides: BTreeMap::from([(PER_SLOT_VARIANT.to_owned(), per_slot_set(&p.set))]),
        ..spec.clone()
    }
}

/// `fifo` through the per-slot interface -> `fifo (per-slot)`.
fn interface_label(heuristic: &str, per_slot: bool) -> String {
    format!(
        "{heuristic} ({})",
        if per_slot { "per-slot" } else { "one-choice" }
    )
}

/// Each validation seed's job count on `family` (what a policy must finish there).
fn family_jobs(family: &Path, seeds: &[u64]) -> anyhow::Result<BTreeMap<u64, usize>> {
    let loaded = crate::workloads::load(family, &[])?;
    let jobs: &Jobs = loaded.expect("learned", family)?;
    let mut env = JobsEnv::new(jobs.workload.clone());
    seeds
        .iter()
        .map(|&seed| {
            let (_, info) = env.reset(seed)?;
            Ok((
                seed,
                info.waiting + info.queued + info.running + info.finished,
            ))
        })
        .collect()
}

/// Which trained row validation picks (the lowest validation JCT with every job finished),
/// beside the best heuristic there: what ships for the trace (`data/policies/README.md`).
fn validated(
    heuristics: &[Line],
    learned: &[Line],
    jobs: &BTreeMap<u64, usize>,
    episodes: u64,
) -> String {
    let (Some((heuristic, h)), Some((chosen, c))) = (
        lowest_validation(heuristics.iter(), jobs),
        lowest_validation(learned.iter().filter(|l| l.trained_s.is_some()), jobs),
    ) else {
        return String::new();
    };
    format!(
        "Validation (the family's windows on seeds 0..{last}, of the training period; training draws its episodes on other seeds) picks {} ({} s, {:+.1}% against the best heuristic there, `{}`, {} s).",
        chosen.label,
        number(c),
        100.0 * (c / h - 1.0),
        heuristic.label,
        number(h),
        last = episodes - 1,
    )
}

/// The line with the lowest validation JCT, and that JCT.
fn lowest_validation<'a>(
    lines: impl Iterator<Item = &'a Line>,
    jobs: &BTreeMap<u64, usize>,
) -> Option<(&'a Line, f64)> {
    lines
        .map(|l| (l, l.validation_jct(jobs)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::episodes::Episodes;

    /// Validation picks the trained row with the lowest mean JCT over its episodes among those
    /// that finish every job; shipped rows (no training time) are never picked.
    #[test]
    fn validation_picks_the_lowest_trained_row_that_finishes_its_jobs() {
        let line = |label: &str, trained_s: Option<f64>, jct: [f64; 2], finished: [f64; 2]| Line {
            label: label.into(),
            policy: label.into(),
            learned: trained_s.is_some(),
            per_slot: false,
            trained_s,
            episodes: Episodes::new(),
            validation: (0..2)
                .map(|k| {
                    let metrics = vec![
                        ("jct_avg_s".to_owned(), jct[k]),
                        ("finished".to_owned(), finished[k]),
                    ];
                    (("family".to_owned(), k as u64), metrics)
                })
                .collect(),
        };
        let jobs = BTreeMap::from([(0, 10), (1, 20)]);
        let heuristics = [line("raes", None, [100.0, 300.0], [10.0, 20.0])];
        let learned = [
            line("fast but stranding", Some(1.0), [50.0, 50.0], [10.0, 19.0]),
            line("slower", Some(1.0), [150.0, 250.0], [10.0, 20.0]),
            line("slowest", Some(1.0), [300.0, 300.0], [10.0, 20.0]),
            line("shipped", None, [1.0, 1.0], [10.0, 20.0]),
        ];
        assert!(learned[0].validation_jct(&jobs).is_infinite());
        let text = validated(&heuristics, &learned, &jobs, 2);
        assert!(
            text.contains(
                "picks slower (200.0 s, +0.0% against the best heuristic there, `raes`, 200.0 s)"
            ),
            "{text}"
        );
    }
}
