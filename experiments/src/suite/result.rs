//! A suite result file (`suite score --out RESULT.json`, docs/benchmark.md): which suite and
//! files, what was played, by which build, every episode's metrics and action digest, and the
//! aggregate of the per-episode ratios to the reference heuristic, as rliable reports them.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::definition::Split;
use crate::stats::{iqm, probability_of_improvement, stratified_bootstrap_ci, wilcoxon};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteResult {
    pub suite: SuiteStamp,
    pub split: Split,
    pub entry: Entry,
    pub build: Build,
    /// The metric ranked by (lower is better) and the heuristic the ratios divide by.
    pub metric: String,
    pub reference: String,
    pub aggregate: Aggregate,
    pub episodes: Vec<EpisodeScore>,
    /// Where the entry also played on real processes (`suite score --execution real`): the
    /// machine it ran on. Not replayable; `suite validate` checks the simulated part only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real: Option<RealRun>,
}

/// The machine a real-execution entry ran on, and the wall time its episodes took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RealRun {
    pub machine: String,
    pub wall_s: f64,
}

/// The suite's id (`philly-v1`) and the SHA-256 of its manifest: these exact files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuiteStamp {
    pub id: String,
    pub manifest_sha256: String,
}

/// What was played: a heuristic with its options (`fifo:placement=best-fit`), a trained
/// policy (shipped name or run folder) with its manifest's SHA-256, or an external policy
/// (`external:NAME`) with its recorded actions, gzipped and hex-encoded (`external.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub policy: String,
    pub trained: bool,
    pub manifest_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actions_log: Option<String>,
}

/// The build that scored: its version and the fingerprint of the simulator's and learners'
/// sources (env, predictors, agents, trainer and Cargo.lock; with real execution's where the
/// result was also played on real processes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Build {
    pub schedlab_version: String,
    pub sources_fingerprint: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeScore {
    /// The test window's file stem (or `validation`), and the seed it was played with.
    pub window: String,
    pub seed: u64,
    pub metrics: BTreeMap<String, f64>,
    pub actions_sha256: String,
    pub reference_metric: f64,
    /// The entry's metric over the reference's on this episode.
    pub ratio: f64,
    /// Every metric of the same episode played on real processes, where it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real: Option<BTreeMap<String, f64>>,
}

impl EpisodeScore {
    /// The episode's figure of `metric` (NaN where it has none).
    pub fn value(&self, metric: &str) -> f64 {
        self.metrics.get(metric).copied().unwrap_or(f64::NAN)
    }
}

/// The per-episode ratios summed up: their interquartile mean with a stratified bootstrap 95%
/// interval (windows as strata), the probability that the entry improves on the reference on
/// an episode (paired by episode, ties half), and the two-sided Wilcoxon signed-rank p of the
/// pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Aggregate {
    pub episodes: usize,
    pub iqm_ratio: f64,
    pub ci95: [f64; 2],
    pub probability_of_improvement: f64,
    /// None where no pair differs (the reference scored against itself).
    pub wilcoxon_p: Option<f64>,
}

/// Bootstrap resamples and their seed: fixed, so the interval is part of what replays.
const RESAMPLES: usize = 2000;
const BOOTSTRAP_SEED: u64 = 0;

impl Aggregate {
    /// The aggregate of `episodes` ranked by `metric`.
    pub fn of(episodes: &[EpisodeScore], metric: &str) -> Aggregate {
        // per window: the ratios, the entry's metric and the reference's
        type Stratum = (Vec<f64>, Vec<f64>, Vec<f64>);
        let mut strata: BTreeMap<&str, Stratum> = BTreeMap::new();
        for e in episodes {
            let (ratios, entry, reference) = strata.entry(&e.window).or_default();
            ratios.push(e.ratio);
            entry.push(e.value(metric));
            reference.push(e.reference_metric);
        }
        let ratios: Vec<Vec<f64>> = strata.values().map(|s| s.0.clone()).collect();
        let entry: Vec<Vec<f64>> = strata.values().map(|s| s.1.clone()).collect();
        let reference: Vec<Vec<f64>> = strata.values().map(|s| s.2.clone()).collect();
        let all: Vec<f64> = episodes.iter().map(|e| e.ratio).collect();
        let (low, high) = stratified_bootstrap_ci(&ratios, iqm, RESAMPLES, BOOTSTRAP_SEED);
        // paired: each episode its own stratum, since the entry and the reference play the
        // same episode; rliable's unpaired form would set a hard episode of a window against
        // an easy one where a suite draws its test episodes by seed
        let one_each = |values: &[Vec<f64>]| values.concat().into_iter().map(|v| vec![v]);
        let (entry_each, reference_each): (Vec<_>, Vec<_>) =
            (one_each(&entry).collect(), one_each(&reference).collect());
        Aggregate {
            episodes: episodes.len(),
            iqm_ratio: iqm(&all),
            ci95: [low, high],
            probability_of_improvement: probability_of_improvement(&entry_each, &reference_each),
            wilcoxon_p: Some(wilcoxon(&entry.concat(), &reference.concat()))
                .filter(|p| p.is_finite()),
        }
    }
}

impl SuiteResult {
    pub fn read(path: &Path) -> anyhow::Result<SuiteResult> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the suite result {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{}: not a suite result", path.display()))
    }

    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        crate::output::write_atomic(path, serde_json::to_string_pretty(self)?.as_bytes())
    }
}
