//! `suite validate`: a result is checked against the suite it names (the newest version of
//! that suite, its files unchanged) and replayed episode by episode; the first difference is
//! refused, naming the episode and the field.

use anyhow::{Context, bail};

use super::definition::Suite;
use super::external::{logged_episodes, score_logged};
use super::result::{Aggregate, EpisodeScore, SuiteResult};
use super::score::score;

/// Two figures are the same where they differ only by JSON's decimal round trip.
fn same(a: f64, b: f64) -> bool {
    a == b
        || (a.is_nan() && b.is_nan())
        || (a - b).abs() <= 4.0 * f64::EPSILON * a.abs().max(b.abs())
}

/// The suite a result names, refused where a newer version supersedes it or its files differ.
pub fn suite_of(result: &SuiteResult) -> anyhow::Result<Suite> {
    let suite = Suite::open(&result.suite.id)?;
    let newest = Suite::versions_of(&suite.name)?.pop();
    if let Some((_, newer)) = newest.filter(|(version, _)| *version > suite.version) {
        bail!(
            "the result was scored on {}, which {newer} supersedes: score the entry on {newer} (docs/benchmark.md, \"Versions\")",
            suite.id()
        );
    }
    if suite.manifest_sha256 != result.suite.manifest_sha256 {
        bail!(
            "the result was scored on other files than {}'s (manifest sha256 {}, the suite's is {})",
            suite.id(),
            result.suite.manifest_sha256,
            suite.manifest_sha256
        );
    }
    if (&result.metric, &result.reference) != (&suite.metric, &suite.reference) {
        bail!(
            "the result ranks by {} against {}; {} ranks by {} against {}",
            result.metric,
            result.reference,
            suite.id(),
            suite.metric,
            suite.reference
        );
    }
    Ok(suite)
}

/// Replays every episode of `result` (an external entry from the action log it carries);
/// returns how many were confirmed.
pub fn validate(result: &SuiteResult) -> anyhow::Result<usize> {
    let suite = suite_of(result)?;
    let replayed = match &result.entry.actions_log {
        Some(log) => {
            let episodes = logged_episodes(log)?;
            score_logged(&suite, result.split, result.entry.clone(), &episodes)?
        }
        None => score(&suite, &result.entry.policy, result.split)?,
    };
    if replayed.entry != result.entry {
        bail!(
            "entry {}: the result names {:?}, this checkout has {:?} (a trained policy's manifest changed?)",
            result.entry.policy,
            result.entry,
            replayed.entry
        );
    }
    if replayed.episodes.len() != result.episodes.len() {
        bail!(
            "{} has {} episodes in this split, the result {}",
            suite.id(),
            replayed.episodes.len(),
            result.episodes.len()
        );
    }
    for (played, scored) in replayed.episodes.iter().zip(&result.episodes) {
        compare(scored, played)?;
    }
    // from the replayed figures, which are exact where the file's are decimal round trips
    same_aggregate(&replayed.aggregate, &result.aggregate)?;
    Ok(result.episodes.len())
}

/// Refuses the first field where `scored` differs from its replay `played`.
fn compare(scored: &EpisodeScore, played: &EpisodeScore) -> anyhow::Result<()> {
    let episode = format!("episode {} seed {}", played.window, played.seed);
    if (&scored.window, scored.seed) != (&played.window, played.seed) {
        bail!(
            "{episode}: the result has {} seed {} in its place",
            scored.window,
            scored.seed
        );
    }
    for (name, &replayed) in &played.metrics {
        let recorded = *scored
            .metrics
            .get(name)
            .with_context(|| format!("{episode}: the result lacks metric {name}"))?;
        if !same(recorded, replayed) {
            bail!("{episode}: {name} is {recorded} in the result, {replayed} when replayed");
        }
    }
    if let Some(extra) = scored
        .metrics
        .keys()
        .find(|k| !played.metrics.contains_key(*k))
    {
        bail!("{episode}: the result has a metric {extra} the env does not report");
    }
    if scored.actions_sha256 != played.actions_sha256 {
        bail!(
            "{episode}: actions_sha256 is {} in the result, {} when replayed",
            scored.actions_sha256,
            played.actions_sha256
        );
    }
    for (field, recorded, replayed) in [
        (
            "reference_metric",
            scored.reference_metric,
            played.reference_metric,
        ),
        ("ratio", scored.ratio, played.ratio),
    ] {
        if !same(recorded, replayed) {
            bail!("{episode}: {field} is {recorded} in the result, {replayed} when replayed");
        }
    }
    Ok(())
}

/// Refuses an aggregate that differs from the one the replayed episodes give.
fn same_aggregate(replayed: &Aggregate, recorded: &Aggregate) -> anyhow::Result<()> {
    let p = |x: Option<f64>| x.unwrap_or(f64::NAN);
    let (a, b) = (replayed, recorded);
    let agrees = a.episodes == b.episodes
        && same(a.iqm_ratio, b.iqm_ratio)
        && same(a.ci95[0], b.ci95[0])
        && same(a.ci95[1], b.ci95[1])
        && same(a.probability_of_improvement, b.probability_of_improvement)
        && same(p(a.wilcoxon_p), p(b.wilcoxon_p));
    if !agrees {
        bail!("aggregate: the result has {recorded:?}, its episodes give {replayed:?}");
    }
    Ok(())
}
