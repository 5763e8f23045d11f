//! External entries: a policy that ran outside schedlab (in Python, in another tool) is scored
//! from the actions it took, one list per suite episode, replayed through the same env. Its
//! result carries the log, gzipped and hex-encoded, so that `suite validate` replays it too.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::Path;

use anyhow::{Context, bail};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use schedlab_artifacts::to_hex;
use schedlab_env::{Environment, StepInfo};
use serde::{Deserialize, Serialize};

use super::definition::{Split, Suite};
use super::result::{Entry, SuiteResult};
use super::score::{Played, played_of, score_played};
use crate::settings::Settings;
use crate::workloads::{Kind, with_kind};

/// Most bytes of a result's compressed action log (docs/benchmark.md).
pub const MOST_LOG_BYTES: usize = 8 << 20;

/// What `suite score --actions FILE` reads (and `schedlab.suite.score` writes): the suite and
/// split the actions were taken on, a name for the policy, and each episode's actions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionLog {
    pub suite: String,
    pub split: Split,
    pub policy: String,
    pub episodes: Vec<LoggedEpisode>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoggedEpisode {
    pub window: String,
    pub seed: u64,
    pub actions: Vec<Vec<usize>>,
}

impl ActionLog {
    pub fn read(path: &Path) -> anyhow::Result<ActionLog> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the action log {}", path.display()))?;
        serde_json::from_str(&text)
            .with_context(|| format!("{}: not an action log", path.display()))
    }
}

/// Each episode's actions by (episode name, seed).
type Logged = BTreeMap<(String, u64), Vec<Vec<usize>>>;

/// The logged actions by (episode name, seed), refusing a log with an episode twice or one the
/// split does not have.
fn by_episode(suite: &Suite, split: Split, episodes: &[LoggedEpisode]) -> anyhow::Result<Logged> {
    let mut logged = BTreeMap::new();
    for e in episodes {
        let key = (e.window.clone(), e.seed);
        if logged.insert(key, e.actions.clone()).is_some() {
            bail!(
                "the action log has episode {} seed {} twice",
                e.window,
                e.seed
            );
        }
    }
    let wanted: Vec<(String, u64)> = (suite.episodes(split).into_iter())
        .map(|(_, window, seed)| (window, seed))
        .collect();
    if let Some((window, seed)) = logged.keys().find(|k| !wanted.contains(k)) {
        bail!(
            "the action log has episode {window} seed {seed}, which {}'s {split:?} split does not",
            suite.id()
        );
    }
    if let Some((window, seed)) = wanted.iter().find(|k| !logged.contains_key(*k)) {
        bail!(
            "the action log has no episode {window} seed {seed} of {}'s {split:?} split (it has {} of {})",
            suite.id(),
            logged.len(),
            wanted.len()
        );
    }
    Ok(logged)
}

/// Scores the actions of `log` on `suite`; the result carries the log.
pub fn score_actions(suite: &Suite, log: &ActionLog) -> anyhow::Result<SuiteResult> {
    if log.suite != suite.id() {
        bail!(
            "the action log was taken on {}, not {}",
            log.suite,
            suite.id()
        );
    }
    let entry = Entry {
        policy: format!("external:{}", log.policy),
        trained: false,
        manifest_sha256: None,
        actions_log: Some(compress(&log.episodes)?),
    };
    score_logged(suite, log.split, entry, &log.episodes)
}

/// Scores `entry` by replaying `episodes` on `split` of `suite`.
pub fn score_logged(
    suite: &Suite,
    split: Split,
    entry: Entry,
    episodes: &[LoggedEpisode],
) -> anyhow::Result<SuiteResult> {
    let logged = by_episode(suite, split, episodes)?;
    score_played(suite, split, entry, |path, window, seed| {
        let actions = logged
            .get(&(window.to_owned(), seed))
            .with_context(|| format!("the action log has no episode {window} seed {seed}"))?;
        replay(path, actions, seed).with_context(|| format!("episode {window} seed {seed}"))
    })
}

/// The episodes of a result's compressed log.
pub fn logged_episodes(hex: &str) -> anyhow::Result<Vec<LoggedEpisode>> {
    let bytes = (0..hex.len() / 2)
        .map(|k| u8::from_str_radix(hex.get(2 * k..2 * k + 2).unwrap_or("?"), 16))
        .collect::<Result<Vec<u8>, _>>()
        .context("the result's actions_log is not hex")?;
    let mut text = String::new();
    GzDecoder::new(bytes.as_slice())
        .read_to_string(&mut text)
        .context("the result's actions_log is not gzip")?;
    Ok(serde_json::from_str(&text)?)
}

fn compress(episodes: &[LoggedEpisode]) -> anyhow::Result<String> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(serde_json::to_string(episodes)?.as_bytes())?;
    let bytes = gz.finish()?;
    if bytes.len() > MOST_LOG_BYTES {
        bail!(
            "the action log takes {} bytes compressed, over the {MOST_LOG_BYTES} a result may carry",
            bytes.len()
        );
    }
    Ok(to_hex(&bytes))
}

/// Replays `actions` on the workload at `path` from `seed`; the episode must end on the last.
fn replay(path: &Path, actions: &[Vec<usize>], seed: u64) -> anyhow::Result<Played> {
    let (_, loaded) = Settings::load(&[], path, &[])?;
    with_kind!(&loaded, |workload| replay_kind(workload, actions, seed))
}

fn replay_kind<K: Kind>(workload: &K, actions: &[Vec<usize>], seed: u64) -> anyhow::Result<Played> {
    let mut env = workload.env();
    env.reset(seed)?;
    for (k, action) in actions.iter().enumerate() {
        let step = env
            .step(action)
            .with_context(|| format!("step {k}: action {action:?}"))?;
        if let Some(metrics) = step.info.metrics() {
            if k + 1 != actions.len() {
                bail!(
                    "the episode ended at step {k}, and the log has {} more actions",
                    actions.len() - k - 1
                );
            }
            return played_of(workload, metrics, actions);
        }
    }
    bail!(
        "the log ends after {} actions, before the episode does",
        actions.len()
    )
}
