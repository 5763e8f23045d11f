//! How much room `reproduce learned`'s held-out windows leave: per-episode lower bounds on
//! the mean JCT, what they say of the bar, and where each window's room lies.

use std::path::PathBuf;

use anyhow::Context as _;
use schedlab_env::jobs::{JobsEnv, quantile};

use super::line::Line;
use crate::output::{number, p_text};
use crate::reproduce::context::mean;
use crate::reproduce::episodes::{Episodes, metric_of};
use crate::workloads::Jobs;

/// Per held-out episode (in `best`'s order), lower bounds on its mean JCT
/// (`JobsEnv::total_jct_lower_bound_s`: no job faster than alone from its arrival, and the
/// pooled cluster served shortest-remaining-first) and on its p95 (the no-wait bounds' p95).
pub(super) fn lower_bounds(
    loaded: &[crate::workloads::Loaded],
    windows: &[PathBuf],
    best: &Episodes,
) -> anyhow::Result<Vec<(f64, f64)>> {
    best.keys()
        .map(|(window, seed)| {
            let k = windows
                .iter()
                .position(|w| w.display().to_string() == *window)
                .with_context(|| format!("episode of an unknown window {window}"))?;
            let jobs: &Jobs = loaded[k].expect("learned", &windows[k])?;
            let mut env = JobsEnv::new(jobs.workload.clone());
            env.reset(*seed)?;
            let mut bounds = env.jct_lower_bounds_s();
            let total = env.total_jct_lower_bound_s();
            let (false, Some(total)) = (bounds.is_empty(), total) else {
                anyhow::bail!("{window}: no jobs to bound");
            };
            Ok((total / bounds.len() as f64, quantile(&mut bounds, 0.95)))
        })
        .collect()
}

/// What the lower bound says of the bar: every row that finishes its jobs has per-episode
/// mean JCTs at or above the bound's, so `floor_welch` (`stats::welch_floor`) is the least
/// Welch p any such scheduler can reach on these episodes.
pub(super) fn headroom(bound_welch: f64, floor_welch: f64) -> String {
    let bound = "The lower bound (per episode, from two relaxations that every schedule finishing its jobs stays above: each job alone from its arrival at its fastest allocation, and the whole cluster pooled into one machine that serves the shortest remaining work first; each k-th finish is held to the later of the two)";
    if floor_welch < 0.05 {
        format!(
            "{bound} has Welch {}, and a scheduler whose every episode lies at or above it can reach Welch {}: the bound does not rule the bar out.",
            p_text(bound_welch),
            p_text(floor_welch),
        )
    } else {
        format!(
            "{bound} has Welch {}. No scheduler can meet the bar on these episodes: one whose every episode's mean JCT lies at or above the bound's reaches at best Welch p = {floor_welch:.2}.",
            p_text(bound_welch),
        )
    }
}

/// Per window, the mean over seeds of each episode's mean JCT: its lower bound, the trace's
/// best heuristic, the best heuristic on that window alone, and each trained learner (the
/// shipped rows are left out). Shows which windows the trace's mean rests on.
pub(super) fn per_window(
    windows: &[PathBuf],
    heuristics: &[Line],
    best: &Line,
    learned: &[Line],
    bounds: &[(f64, f64)],
) -> String {
    let trained: Vec<&Line> = learned.iter().filter(|l| l.trained_s.is_some()).collect();
    let mut text = format!(
        "Per window (mean over seeds of each episode's mean JCT, s):\n\n| window | lower bound | `{}` | best heuristic here |{}\n|{}\n",
        best.label,
        trained
            .iter()
            .map(|l| format!(" {} |", l.label))
            .collect::<String>(),
        " --- |".repeat(4 + trained.len()),
    );
    let bound_of: Episodes = best
        .episodes
        .keys()
        .zip(bounds)
        .map(|(key, b)| (key.clone(), vec![("jct_avg_s".to_owned(), b.0)]))
        .collect();
    for window in windows {
        let name = window.display().to_string();
        let on = |episodes: &Episodes| {
            let values: Vec<f64> = episodes
                .iter()
                .filter(|((w, _), _)| *w == name)
                .map(|(_, m)| metric_of(m, "jct_avg_s"))
                .collect();
            mean(&values)
        };
        let (here, here_jct) = heuristics
            .iter()
            .map(|h| (h.label.as_str(), on(&h.episodes)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or(("", f64::NAN));
        let stem = window
            .file_stem()
            .map_or(name.clone(), |s| s.to_string_lossy().into());
        text += &format!(
            "| {stem} | {} | {} | {here} {} |{}\n",
            number(on(&bound_of)),
            number(on(&best.episodes)),
            number(here_jct),
            trained
                .iter()
                .map(|l| format!(" {} |", number(on(&l.episodes))))
                .collect::<String>(),
        );
    }
    text + "\n"
}
