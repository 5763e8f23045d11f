//! Playing a suite's episodes: each one's metrics and a digest of its actions, the entry's
//! and the reference heuristic's, and the aggregate of their ratios (`result.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use rayon::prelude::*;
use schedlab_artifacts::{sha256_bytes, sha256_file};

use super::definition::{Split, Suite};
use super::result::{Aggregate, Build, Entry, EpisodeScore, SuiteResult, SuiteStamp};
use crate::play::{play_observed, trained_run};
use crate::settings::Settings;
use crate::sources::SOURCES_FINGERPRINT;
use crate::workloads::{Kind, MetricsOf, with_kind};

/// One played episode: every metric column, and the SHA-256 of its actions (the JSON array
/// of each step's choices, as `run --actions-json` writes an episode's).
#[derive(Debug, Clone, PartialEq)]
pub struct Played {
    pub metrics: BTreeMap<String, f64>,
    pub actions_sha256: String,
}

/// Plays `policy` on the workload at `path` with `seed`, in the settings a trained policy's
/// manifest asks for (as `run` does).
pub fn play_one(path: &Path, policy: &str, seed: u64) -> anyhow::Result<Played> {
    play_set(path, policy, seed, &[])
}

/// [`play_one`] with `KEY=VALUE` overrides of the workload (`execution=real`).
pub fn play_set(path: &Path, policy: &str, seed: u64, set: &[String]) -> anyhow::Result<Played> {
    let policies = [policy.to_owned()];
    let (settings, loaded) = Settings::load(set, path, &policies)?;
    with_kind!(&loaded, |workload| play_kind(
        workload, policy, &settings, seed
    ))
    .with_context(|| format!("{policy} on {}, seed {seed}", path.display()))
}

fn play_kind<K: Kind>(
    workload: &K,
    policy: &str,
    settings: &Settings,
    seed: u64,
) -> anyhow::Result<Played> {
    let mut actions: Vec<Vec<usize>> = Vec::new();
    let (metrics, _) = play_observed(workload, policy, &settings.policy, seed, |action, _| {
        actions.push(action.to_vec())
    })?;
    played_of(workload, &metrics, &actions)
}

/// The metric every suite result adds to its kind's columns: the negated episode return.
pub const EPISODE_COST: &str = "episode_cost";

/// An episode's metric columns (with [`EPISODE_COST`]) and its actions' digest.
pub fn played_of<K: Kind>(
    workload: &K,
    metrics: &MetricsOf<K>,
    actions: &[Vec<usize>],
) -> anyhow::Result<Played> {
    let mut metrics: BTreeMap<String, f64> = (workload.columns().iter())
        .map(|c| (c.name.to_owned(), (c.value)(metrics)))
        .collect();
    // what the env's reward charges, as a cost (lower is better, as every suite ranks)
    if let Some(&episode_return) = metrics.get("episode_return") {
        metrics.insert(EPISODE_COST.to_owned(), -episode_return);
    }
    let actions_sha256 = sha256_bytes(serde_json::to_string(actions)?.as_bytes());
    Ok(Played {
        metrics,
        actions_sha256,
    })
}

/// Episode `window` at `seed` as the entry played it, with the reference's `metric` beside it.
pub fn episode_score(
    window: &str,
    seed: u64,
    played: Played,
    reference: &Played,
    metric: &str,
) -> anyhow::Result<EpisodeScore> {
    let of = |p: &Played| {
        (p.metrics.get(metric).copied())
            .with_context(|| format!("episode {window} seed {seed} reports no {metric:?}"))
    };
    let (value, reference_metric) = (of(&played)?, of(reference)?);
    Ok(EpisodeScore {
        window: window.to_owned(),
        seed,
        metrics: played.metrics,
        actions_sha256: played.actions_sha256,
        reference_metric,
        ratio: value / reference_metric,
        real: None,
    })
}

/// What an entry is: a trained policy (with its manifest's hash) or a heuristic.
pub fn entry_of(policy: &str) -> anyhow::Result<Entry> {
    Ok(match trained_run(policy) {
        Some(run) => Entry {
            policy: policy.to_owned(),
            trained: true,
            manifest_sha256: Some(sha256_file(&run.join("manifest.json"))?),
            actions_log: None,
        },
        None => Entry {
            policy: policy.to_owned(),
            trained: false,
            manifest_sha256: None,
            actions_log: None,
        },
    })
}

/// Scores `policy` on `split` of `suite` ([`score_played`]).
pub fn score(suite: &Suite, policy: &str, split: Split) -> anyhow::Result<SuiteResult> {
    let entry = entry_of(policy)?;
    score_played(suite, split, entry, |path, _, seed| {
        play_one(path, policy, seed)
    })
}

/// Scores `entry` on `split` of `suite`: every episode played by `play` (workload file,
/// episode name, seed) and by the reference, in parallel, collected in the suite's order (the
/// same at any thread count).
pub fn score_played(
    suite: &Suite,
    split: Split,
    entry: Entry,
    play: impl Fn(&Path, &str, u64) -> anyhow::Result<Played> + Sync,
) -> anyhow::Result<SuiteResult> {
    let episodes = suite.episodes(split);
    let entry_is_reference = entry.policy == suite.reference;
    let played: Vec<anyhow::Result<(Played, Played)>> = episodes
        .par_iter()
        .map(|(path, window, seed)| {
            let played = play(path, window, *seed)?;
            let reference = match entry_is_reference {
                true => played.clone(),
                false => play_one(path, &suite.reference, *seed)?,
            };
            Ok((played, reference))
        })
        .collect();
    // the first failure in the suite's order, whichever thread met it first
    let played = played.into_iter().collect::<anyhow::Result<Vec<_>>>()?;
    let scores = episodes
        .iter()
        .zip(played)
        .map(|((_, window, seed), (entry_played, reference))| {
            episode_score(window, *seed, entry_played, &reference, &suite.metric)
                .with_context(|| format!("{} ranks by {:?}", suite.id(), suite.metric))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(SuiteResult {
        suite: SuiteStamp {
            id: suite.id(),
            manifest_sha256: suite.manifest_sha256.clone(),
        },
        split,
        entry,
        build: Build {
            schedlab_version: env!("CARGO_PKG_VERSION").to_owned(),
            sources_fingerprint: SOURCES_FINGERPRINT.to_owned(),
        },
        metric: suite.metric.clone(),
        reference: suite.reference.clone(),
        aggregate: Aggregate::of(&scores, &suite.metric),
        episodes: scores,
        real: None,
    })
}
