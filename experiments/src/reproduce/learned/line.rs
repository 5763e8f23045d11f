//! A row of `reproduce learned`'s tables ([`Line`]: a policy's held-out and validation
//! episodes) and what the held-out and later-period sections both do with rows: the lowest
//! mean, the pairing against the best heuristic, the windows' loading and the table of
//! unfinished jobs. A leaf of the learned section's files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::bar::{Paired, compare};
use super::unfinished::{Replay, TableRow, unfinished_by_window};
use crate::reproduce::context::mean;
use crate::reproduce::episodes::{Episodes, jct_by_episode, metric_of};
use crate::settings::parse_overrides;
use crate::sweep::run::metrics_row;
use crate::sweep::spec::pairs;
use crate::workloads::Jobs;

/// The line with the lowest mean JCT.
pub(super) fn lowest_mean<'a>(lines: impl Iterator<Item = &'a Line>) -> Option<&'a Line> {
    lines.min_by(|a, b| mean(&a.jct()).total_cmp(&mean(&b.jct())))
}

/// `windows` loaded under the protocol's settings `set`, and their jobs in all.
pub(in crate::reproduce) fn load_windows(
    windows: &[PathBuf],
    set: &BTreeMap<String, toml::Value>,
) -> anyhow::Result<(Vec<crate::workloads::Loaded>, usize)> {
    let overrides = parse_overrides(&pairs(set))?;
    let mut loaded = Vec::new();
    let mut jobs = 0;
    for window in windows {
        let workload = crate::workloads::load(window, &overrides)?;
        jobs += workload
            .expect::<Jobs>("learned", window)?
            .workload
            .jobs
            .len();
        loaded.push(workload);
    }
    Ok((loaded, jobs))
}

/// A table row's label (bold for the baseline `best`) and its episodes against `best`'s on
/// the same (window, seed) (none for `best` itself).
pub(super) fn against_best(line: &Line, best: &Line) -> (String, Option<Paired>) {
    if std::ptr::eq(line, best) {
        return (format!("**{}**", line.label), None);
    }
    let paired = compare(&line.jct_by_episode(), &best.jct_by_episode());
    (line.label.clone(), Some(paired))
}

/// One row of a trace's table.
pub(super) struct Line {
    pub(super) label: String,
    /// The name or run folder it was played under.
    pub(super) policy: String,
    /// A learned scheduler (judged against the bar), not a heuristic.
    pub(super) learned: bool,
    /// Played through the per-slot interface (heuristics only), not the one-choice one.
    pub(super) per_slot: bool,
    pub(super) trained_s: Option<f64>,
    /// Held-out episodes.
    pub(super) episodes: Episodes,
    /// The family's validation episodes.
    pub(super) validation: Episodes,
}

impl Line {
    pub(super) fn policy(&self) -> &str {
        &self.policy
    }
    /// The same policy with other test episodes (and no validation).
    pub(super) fn replayed(&self, episodes: Episodes) -> Line {
        Line {
            label: self.label.clone(),
            policy: self.policy.clone(),
            learned: self.learned,
            per_slot: self.per_slot,
            trained_s: self.trained_s,
            episodes,
            validation: Episodes::new(),
        }
    }
    pub(super) fn metric(&self, name: &str) -> Vec<f64> {
        self.episodes.values().map(|m| metric_of(m, name)).collect()
    }
    pub(super) fn jct(&self) -> Vec<f64> {
        self.metric("jct_avg_s")
    }
    pub(super) fn jct_by_episode(&self) -> BTreeMap<(String, u64), f64> {
        jct_by_episode(&self.episodes)
    }
    /// Mean over the validation episodes of their mean JCT; infinite where it left a job of
    /// an episode unfinished (`jobs`: each validation seed's job count), so that validation
    /// never picks such a policy.
    pub(super) fn validation_jct(&self, jobs: &BTreeMap<u64, usize>) -> f64 {
        let mut jct = Vec::new();
        for ((_, seed), metrics) in &self.validation {
            let all = jobs.get(seed).copied().unwrap_or(usize::MAX) as f64;
            if metric_of(metrics, "finished") < all {
                return f64::INFINITY;
            }
            jct.push(metric_of(metrics, "jct_avg_s"));
        }
        mean(&jct)
    }
    /// Jobs finished over all its episodes.
    pub(super) fn finished(&self) -> usize {
        self.metric("finished").iter().sum::<f64>() as usize
    }
}

/// The table of where `lines`' unfinished jobs were when their episodes on `windows` ended,
/// playing again those whose rows predate the end counts (`learned_unfinished`).
pub(super) fn unfinished_of(
    lines: &[&Line],
    set: &BTreeMap<String, toml::Value>,
    loaded: &[crate::workloads::Loaded],
    windows: &[PathBuf],
) -> anyhow::Result<String> {
    // each row plays again under the protocol's settings and its own interface
    let targets = lines
        .iter()
        .map(|l| {
            let set = if l.per_slot {
                per_slot_set(set)
            } else {
                set.clone()
            };
            Ok((parse_overrides(&pairs(&set))?, l.policy.as_str()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let replays: Vec<_> = targets
        .iter()
        .map(|(overrides, policy)| {
            move |window: &str, seed| {
                let loaded = crate::workloads::load(Path::new(window), overrides)?;
                metrics_row(&loaded, policy, &[], seed)
            }
        })
        .collect();
    let rows: Vec<TableRow> = lines
        .iter()
        .zip(&replays)
        .map(|(l, replay)| (l.label.as_str(), &l.episodes, Some(replay as Replay)))
        .collect();
    unfinished_by_window(&rows, loaded, windows)
}

/// The protocol's settings `set` through the per-slot interface.
pub(super) fn per_slot_set(set: &BTreeMap<String, toml::Value>) -> BTreeMap<String, toml::Value> {
    let mut set = set.clone();
    set.insert(
        "window.interface".to_owned(),
        toml::Value::String("per-slot".to_owned()),
    );
    set
}
