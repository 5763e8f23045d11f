//! A second test set in `reproduce learned`: every policy of a trace's held-out table plays
//! the windows of a still later period (`later` in the protocol; data/SOURCES.md). It came
//! after the held-out results were known, so it is reported beside the bar, not as it; nothing
//! is trained, tuned or chosen on it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::bar::{Paired, compare};
use super::line::{Line, against_best, load_windows, lowest_mean, unfinished_of};
use super::room::lower_bounds;
use crate::output::number;
use crate::reproduce::context::{Context, mean};
use crate::reproduce::episodes::{episodes_of, metric_of};
use crate::sweep::spec::SweepSpec;

/// Plays `lines`' policies (the held-out table's rows; `specs` its sweeps through the
/// one-choice and the per-slot interface) on `windows` under sweeps named from `name`, and
/// writes their table: the best heuristic there is the baseline.
pub(super) fn later_section(
    cx: &Context,
    trace: &str,
    windows: Vec<PathBuf>,
    name: String,
    specs: [&SweepSpec; 2],
    lines: &[&Line],
) -> anyhow::Result<String> {
    let p = &cx.protocol.learned;
    let [one_choice, per_slot] = [
        (specs[0], name.clone()),
        (specs[1], format!("{name}-per-slot")),
    ]
    .map(|(spec, name)| {
        cx.sweep(&SweepSpec {
            name,
            workloads: windows.clone(),
            ..spec.clone()
        })
    });
    let (one_choice, per_slot) = (one_choice?, per_slot?);
    let played: Vec<Line> = lines
        .iter()
        .map(|l| {
            let rows = if l.per_slot { &per_slot } else { &one_choice };
            l.replayed(episodes_of(rows, l.policy()))
        })
        .collect();
    let best =
        lowest_mean(played.iter().filter(|l| !l.learned)).expect("the protocol names heuristics");
    let (loaded, jobs_per_seed) = load_windows(&windows, &p.set)?;
    let jobs = jobs_per_seed * p.eval_seeds as usize;
    let best_jct = best.jct();
    let mut text = format!(
        "#### {trace}, a later period: {} windows x {} seeds, {jobs} jobs; best heuristic `{}`\n\n\
         | policy | JCT mean (s) | JCT p95 (s) | finished | GPU occupancy | JCT vs best | IQM ratio [95% CI] | P(better) | Wilcoxon p | Welch p | paired p | episodes lower / higher than best |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        windows.len(),
        p.eval_seeds,
        best.label,
    );
    for line in &played {
        let jct = line.jct();
        let (label, paired) = against_best(line, best);
        text += &format!(
            "| {label} | {} | {} | {} | {:.3} | {:+.1}% | {} | {} |\n",
            number(mean(&jct)),
            number(mean(&line.metric("jct_p95_s"))),
            line.finished(),
            mean(&line.metric("gpu_occupancy")),
            100.0 * (mean(&jct) / mean(&best_jct) - 1.0),
            paired
                .as_ref()
                .map_or(" | | | | ".to_owned(), Paired::cells),
            paired.map_or(String::new(), |p| format!("{} / {}", p.lower, p.higher)),
        );
    }
    let bounds: BTreeMap<(String, u64), f64> = best
        .episodes
        .keys()
        .cloned()
        .zip(
            lower_bounds(&loaded, &windows, &best.episodes)?
                .iter()
                .map(|b| b.0),
        )
        .collect();
    let bound_mean = mean(&bounds.values().copied().collect::<Vec<_>>());
    text += &format!(
        "| lower bound | {} | | | | {:+.1}% | {} | |\n\n",
        number(bound_mean),
        100.0 * (bound_mean / mean(&best_jct) - 1.0),
        compare(&bounds, &best.jct_by_episode()).cells(),
    );
    text += &format!("{}\n\n", heaviest(best));
    let lines: Vec<&Line> = played.iter().collect();
    text += &unfinished_of(&lines, &p.set, &loaded, &windows)?;
    Ok(text)
}

/// How much of `best`'s mean JCT its heaviest window carries (why Welch's test is weak here).
fn heaviest(best: &Line) -> String {
    let mut per_window: BTreeMap<&str, f64> = BTreeMap::new();
    for ((window, _), metrics) in &best.episodes {
        *per_window.entry(window.as_str()).or_default() += metric_of(metrics, "jct_avg_s");
    }
    let total: f64 = per_window.values().sum();
    let Some((window, sum)) = per_window.iter().max_by(|a, b| a.1.total_cmp(b.1)) else {
        return String::new();
    };
    let name = std::path::Path::new(window)
        .file_stem()
        .map_or_else(|| window.to_string(), |s| s.to_string_lossy().into_owned());
    format!(
        "These windows were cut after the held-out results were known (data/SOURCES.md); nothing was trained, tuned or chosen on them, and they are not the bar. Of `{}`'s mean JCT here, {:.0}% comes from one window of {}, `{name}`.",
        best.label,
        100.0 * sum / total,
        per_window.len(),
    )
}
