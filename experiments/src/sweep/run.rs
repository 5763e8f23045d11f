//! Running a sweep's share of the grid: train what `train:AGENT` names, then play the cells
//! not yet in the journal in parallel, one journal line each, and write the result tables.
//! Shards of one sweep can share one folder of trained runs, trained once beforehand by
//! [`train_all`]: a run that reached the spec's steps is reused, never trained again.

use anyhow::Context;
use rayon::prelude::*;
use schedlab_artifacts::FolderLock;
use schedlab_trainer::algorithms::AgentKind;
use schedlab_trainer::run::Manifest;
use schedlab_trainer::train::TrainSpec;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::journal::{JOURNAL, Journal, Row, read_journal, read_rows, rows_of};
use super::spec::{Cell, CellKey, Shard, SweepSpec, TRAIN_PREFIX, pairs};
use super::table::write_results;
use super::weights::{played_other_weights, weights_by_policy, weights_now};
use crate::output::write_atomic;
use crate::play::{episode_bar, make_policy, play};
use crate::settings::Settings;
use crate::sources::{SOURCES_FINGERPRINT, record_these_sources, recorded_as_these_sources};
use crate::training::train_loaded;
use crate::workloads::{Kind, Loaded, with_kind};

/// What a sweep folder holds besides its rows: the spec and the shard it runs, so a rerun
/// and a merge can check they continue the same grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepRecord {
    pub spec: SweepSpec,
    pub shard: Shard,
}

pub const RECORD: &str = "sweep.json";

impl SweepRecord {
    pub fn read(dir: &Path) -> anyhow::Result<Option<SweepRecord>> {
        let path = dir.join(RECORD);
        if !path.exists() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path)?;
        Ok(Some(
            serde_json::from_str(&text).with_context(|| format!("reading {}", path.display()))?,
        ))
    }

    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        write_atomic(
            &dir.join(RECORD),
            serde_json::to_string_pretty(self)?.as_bytes(),
        )
    }
}

/// A workload loaded under one override set, with that set's policy options.
struct Variant {
    workload: Loaded,
    /// The settings `workload` was loaded with (what a run trained on it records).
    workload_settings: Vec<(String, String)>,
    policy_options: Vec<(String, String)>,
}

impl Variant {
    /// The workload at `path` under the raw `key=value` settings `raw`, split into workload
    /// settings and the options of `policies`.
    fn load(raw: &[String], path: &Path, policies: &[String]) -> anyhow::Result<Variant> {
        let (settings, workload) = Settings::load(raw, path, policies)?;
        Ok(Variant {
            workload,
            workload_settings: settings.workload,
            policy_options: settings.policy,
        })
    }
}

/// Per workload of the spec, one [`Variant`] per override set.
fn load_targets(spec: &SweepSpec) -> anyhow::Result<Vec<Vec<Variant>>> {
    let variants = spec.variants();
    spec.workloads
        .iter()
        .map(|path| {
            variants
                .iter()
                .map(|(name, raw)| {
                    Variant::load(raw, path, &spec.policies)
                        .with_context(|| format!("override set `{name}`"))
                })
                .collect()
        })
        .collect()
}

/// The newest run folder of `agent` trained on `workload_name` from `seed` in `runs` that has
/// a checkpoint (run folders are named `WORKLOAD__AGENT__SEED__SECOND`, then `-1`, `-2`, ...
/// for runs started within the same second: compared as numbers, so `-10` follows `-9`).
pub fn latest_run(runs: &Path, workload_name: &str, agent: &str, seed: u64) -> Option<PathBuf> {
    let prefix = format!("{workload_name}__{agent}__{seed}__");
    let started = |path: &Path| -> Option<(u64, u64)> {
        let name = path.file_name()?.to_str()?;
        let stamp = name.strip_prefix(&prefix)?;
        match stamp.split_once('-') {
            Some((second, repeat)) => Some((second.parse().ok()?, repeat.parse().ok()?)),
            None => Some((stamp.parse().ok()?, 0)),
        }
    };
    std::fs::read_dir(runs)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("manifest.json").is_file())
        .filter_map(|p| Some((started(&p)?, p)))
        .max()
        .map(|(_, path)| path)
}

/// The run folder of `agent` trained on `target`'s variant under `runs_root`: an existing one
/// that these sources trained under the same workload settings and that reached the spec's
/// steps, one resumed to them, or a new one (also where the newest run trained under other
/// settings or was trained by other env, agents or trainer sources, which would play a policy
/// the env it is played on never trained).
fn trained_run(
    spec: &SweepSpec,
    agent: &str,
    workload_path: &Path,
    target: &Variant,
    variant: usize,
    runs_root: &Path,
) -> anyhow::Result<PathBuf> {
    let kind = AgentKind::from_name(agent).with_context(|| {
        format!(
            "policy `{TRAIN_PREFIX}{agent}`: not a learned agent ({})",
            AgentKind::names().collect::<Vec<_>>().join(", ")
        )
    })?;
    let reloaded = training_variant(spec, workload_path, variant)?;
    let training = reloaded.as_ref().unwrap_or(target);
    let variant_name = spec.variant_name(variant);
    let runs = runs_root.join(variant_name);
    let workload_name = training.workload.name().to_owned();
    let settings: BTreeMap<String, String> = training.workload_settings.iter().cloned().collect();
    let sources = runs.join(format!(
        "{workload_name}__{agent}__{}.sources",
        spec.train.seed
    ));
    let from_these_sources = recorded_as_these_sources(&sources);
    let existing = match latest_run(&runs, &workload_name, agent, spec.train.seed) {
        Some(run) if from_these_sources => {
            let manifest = Manifest::read(&run)?;
            if manifest.workload_settings != settings {
                None
            } else if manifest.step >= spec.train.steps {
                return Ok(run);
            } else {
                Some(run)
            }
        }
        _ => None,
    };
    if existing.is_none() {
        std::fs::create_dir_all(&runs).with_context(|| format!("{}", runs.display()))?;
        record_these_sources(&sources)?;
    }
    let raw = spec
        .train
        .hyperparameters
        .get(agent)
        .map(pairs)
        .unwrap_or_default();
    let config = kind.configure(
        training.workload.env_kind(),
        &crate::settings::parse_overrides(&raw)?,
    )?;
    let train_spec = TrainSpec {
        workload_path,
        out: &runs,
        seed: spec.train.seed,
        steps: spec.train.steps,
        checkpoint_every: (spec.train.steps / 10).max(1),
        eval_every: spec.train.steps.max(1),
        eval_episodes: 0,
        resume: existing.as_deref(),
        stop: None,
        play_settings: &training.workload.play_settings(),
        workload_settings: &training.workload_settings,
    };
    let run = train_loaded(kind, &training.workload, config, &train_spec)?;
    Ok(run.path)
}

/// The workload the agents train on in override set `variant`, where the spec's `[train]
/// workload_set` adds settings to the set's; `None` where it adds none (they train on the
/// variant as it is played).
fn training_variant(
    spec: &SweepSpec,
    workload_path: &Path,
    variant: usize,
) -> anyhow::Result<Option<Variant>> {
    if spec.train.workload_set.is_empty() {
        return Ok(None);
    }
    let mut raw = spec.variants().swap_remove(variant).1;
    raw.extend(pairs(&spec.train.workload_set));
    Variant::load(&raw, workload_path, &spec.policies)
        .context("[train.workload_set]")
        .map(Some)
}

/// Plays one episode of `policy` (a name or a run folder) on `workload`: its metrics in table
/// order, as a sweep row holds them.
pub fn metrics_row(
    workload: &Loaded,
    policy: &str,
    options: &[(String, String)],
    seed: u64,
) -> anyhow::Result<Vec<(String, f64)>> {
    with_kind!(workload, |workload| {
        let m = play(workload, policy, options, seed)?;
        Ok(workload
            .columns()
            .iter()
            .map(|c| (c.name.to_owned(), (c.value)(&m)))
            .collect())
    })
}

/// Refuses a policy that cannot be made on a target before any episode runs.
fn check_policy(target: &Variant, policy: &str) -> anyhow::Result<()> {
    with_kind!(&target.workload, |workload| make_policy(
        policy,
        &workload.env(),
        &target.policy_options
    )
    .map(drop))
}

pub struct SweepOptions {
    pub out: PathBuf,
    pub shard: Shard,
    /// Where `train:AGENT` run folders live (shards may share one).
    pub runs: PathBuf,
    /// Episodes played at once (default: one per core).
    pub jobs: Option<usize>,
    /// Play again the rows a build of other sources played, rather than refuse the folder.
    pub replay_other_sources: bool,
}

/// Each cell's policy as `play` takes it, by (policy, workload, variant): a name, or the run
/// folder `train:AGENT` trained (or found) under `runs_root`; each checked on its target.
fn resolve_policies(
    spec: &SweepSpec,
    targets: &[Vec<Variant>],
    cells: &[Cell],
    runs_root: &Path,
) -> anyhow::Result<HashMap<(usize, usize, usize), String>> {
    let mut resolved = HashMap::new();
    for c in cells {
        let id = (c.policy, c.workload, c.variant);
        if resolved.contains_key(&id) {
            continue;
        }
        let name = &spec.policies[c.policy];
        let target = &targets[c.workload][c.variant];
        let policy = match name.strip_prefix(TRAIN_PREFIX) {
            Some(agent) => trained_run(
                spec,
                agent,
                &spec.workloads[c.workload],
                target,
                c.variant,
                runs_root,
            )?
            .display()
            .to_string(),
            None => name.clone(),
        };
        check_policy(target, &policy).with_context(|| {
            format!(
                "policy `{name}` on {}",
                spec.workloads[c.workload].display()
            )
        })?;
        resolved.insert(id, policy);
    }
    Ok(resolved)
}

/// Trains every `train:AGENT` policy of the whole grid into `runs_root` (those already there
/// are kept) and returns how many runs the grid uses: the step before a sharded sweep, so
/// that shards sharing `runs_root` train nothing.
pub fn train_all(spec: &SweepSpec, runs_root: &Path) -> anyhow::Result<usize> {
    let targets = load_targets(spec)?;
    let cells: Vec<Cell> = spec
        .grid()
        .into_iter()
        .filter(|c| spec.policies[c.policy].starts_with(TRAIN_PREFIX))
        .collect();
    Ok(resolve_policies(spec, &targets, &cells, runs_root)?.len())
}

/// Drops from the sweep folder `out` the rows of every policy `forget` picks, and its spec
/// record and tables, so that a sweep whose spec replaces those policies (a retrained run is a
/// new folder name) resumes with the other policies' rows instead of playing every cell again.
/// The journal is rewritten atomically under the folder's lock; returns the rows kept (none
/// where the folder does not exist).
pub fn forget_policies(out: &Path, forget: impl Fn(&str) -> bool) -> anyhow::Result<usize> {
    if !out.exists() {
        return Ok(0);
    }
    let _lock = FolderLock::acquire(out, "sweep")?;
    let kept = forget_rows(out, |row| forget(&row.key.policy))?;
    remove_if_there(&out.join(RECORD))?;
    Ok(kept)
}

/// Drops the rows `forget` picks from the journal and removes the tables, for a caller that
/// holds the folder's lock; returns the rows kept.
fn forget_rows(out: &Path, forget: impl Fn(&Row) -> bool) -> anyhow::Result<usize> {
    let journal = out.join(JOURNAL);
    // kept lines stay as written: a row read and written again could differ in its last digits
    let text = read_journal(&journal)?;
    let journaled = rows_of(&text, &journal)?;
    let mut kept = String::new();
    let mut count = 0;
    // the rows are the journal's whole lines in order; a torn last line is dropped, as a rerun
    // would
    for (line, row) in text.split_inclusive('\n').zip(&journaled.rows) {
        if !forget(row) {
            kept += line;
            count += 1;
        }
    }
    write_atomic(&journal, kept.as_bytes())?;
    for table in [super::table::CSV, super::table::PARQUET] {
        remove_if_there(&out.join(table))?;
    }
    Ok(count)
}

fn remove_if_there(path: &Path) -> anyhow::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", path.display()))
        }
        _ => Ok(()),
    }
}

/// Makes the sweep folder `out` ready for `spec` where the two differ in their policies only
/// (a protocol's scheduler whose spec changed, one added or removed): drops the rows of every
/// policy `spec` does not name, as [`forget_policies`] does, and the spec record, so [`run`]
/// takes `spec` and plays only its new cells. A folder whose record differs from `spec` in
/// anything else (an override set's values, the seeds) is left as it is, for [`run`] to
/// refuse. Returns the rows kept.
pub fn forget_policies_not_in(out: &Path, spec: &SweepSpec) -> anyhow::Result<usize> {
    let unnamed = |policy: &str| !spec.policies.iter().any(|p| p == policy);
    let only_policies_differ = match SweepRecord::read(out)? {
        Some(record) => {
            let mut renamed = record.spec.clone();
            renamed.policies = spec.policies.clone();
            record.spec != *spec && renamed == *spec
        }
        // a folder whose record an earlier forget removed keeps only its named rows
        None => read_rows(&out.join(JOURNAL))?
            .rows
            .iter()
            .any(|row| unnamed(&row.key.policy)),
    };
    if only_policies_differ {
        forget_policies(out, unnamed)
    } else {
        Ok(read_rows(&out.join(JOURNAL))?.rows.len())
    }
}

/// Drops the rows of `out`'s journal that were played with other weights than their policy's
/// run folder now holds, saying which policies; returns whether any were dropped.
fn forget_rows_of_other_weights(out: &Path) -> anyhow::Result<bool> {
    let rows = &read_rows(&out.join(JOURNAL))?.rows;
    let now = weights_now(rows)?;
    let changed: BTreeSet<&str> = rows
        .iter()
        .filter(|row| played_other_weights(row, &now))
        .map(|row| row.key.policy.as_str())
        .collect();
    if changed.is_empty() {
        return Ok(false);
    }
    eprintln!(
        "{}: playing again the rows of {}, whose weights changed since they were played",
        out.display(),
        changed.into_iter().collect::<Vec<_>>().join(", ")
    );
    forget_rows(out, |row| played_other_weights(row, &now))?;
    Ok(true)
}

/// Drops the rows of `options.out` (`rows`, its journal as read) that a build of other sources
/// played (their episodes may differ from this build's), where the options allow it; otherwise
/// refuses the folder. Returns whether any were dropped.
fn forget_rows_of_other_sources(rows: &[Row], options: &SweepOptions) -> anyhow::Result<bool> {
    let out = &options.out;
    let other: Vec<&Row> = rows
        .iter()
        .filter(|r| r.sources != SOURCES_FINGERPRINT)
        .collect();
    let Some(first) = other.first() else {
        return Ok(false);
    };
    let count = other.len();
    let fingerprint = match first.sources.as_str() {
        "" => "unrecorded",
        sources => sources,
    };
    anyhow::ensure!(
        options.replay_other_sources,
        "{}: {count} of its {} rows were played by a build of other env, predictors, agents or \
         trainer sources (fingerprint {fingerprint}; this build is {SOURCES_FINGERPRINT}), whose \
         episodes may differ from this build's: pass --replay-other-sources to play them again, \
         or choose another --out",
        out.join(JOURNAL).display(),
        rows.len()
    );
    eprintln!(
        "{}: playing again {count} rows played by other sources (fingerprint {fingerprint})",
        out.display()
    );
    forget_rows(out, |row| row.sources != SOURCES_FINGERPRINT)?;
    Ok(true)
}

/// Records `spec` and its shard in `options.out`, or checks that the folder holds them: a
/// folder of another sweep is refused.
fn claim_folder(spec: &SweepSpec, options: &SweepOptions) -> anyhow::Result<()> {
    let out = &options.out;
    let record = SweepRecord {
        spec: spec.clone(),
        shard: options.shard,
    };
    match SweepRecord::read(out)? {
        Some(existing) if existing != record => anyhow::bail!(
            "{} holds another sweep (spec `{}`, shard {}/{}); choose another --out",
            out.display(),
            existing.spec.name,
            existing.shard.index,
            existing.shard.count
        ),
        Some(_) => Ok(()),
        None => record.write(out),
    }
}

/// Runs `spec`'s cells of `options.shard` into `options.out` and returns the folder's rows in
/// grid order.
pub fn run(spec: &SweepSpec, options: &SweepOptions) -> anyhow::Result<Vec<Row>> {
    let out = &options.out;
    // one writer per sweep folder: two sweeps appending to one journal would run every cell twice
    let _lock = FolderLock::acquire(out, "sweep")?;
    claim_folder(spec, options)?;
    let mut journaled = read_rows(&out.join(JOURNAL))?;
    // both run: the second reads the journal the first left
    if forget_rows_of_other_sources(&journaled.rows, options)? | forget_rows_of_other_weights(out)?
    {
        journaled = read_rows(&out.join(JOURNAL))?;
    }
    let grid = spec.grid();
    let mine: Vec<(usize, Cell)> = grid
        .iter()
        .copied()
        .enumerate()
        .filter(|(k, _)| options.shard.holds(*k))
        .collect();
    if let Some(warning) = &journaled.torn {
        eprintln!("warning: {warning}");
    }
    let expected: HashSet<CellKey> = mine.iter().map(|(_, c)| spec.key(c)).collect();
    let mut done = HashSet::new();
    for row in &journaled.rows {
        anyhow::ensure!(
            expected.contains(&row.key) && done.insert(row.key.clone()),
            "{}: the row `{}` is not a cell of this shard, or is there twice",
            out.join(JOURNAL).display(),
            row.key
        );
    }
    let pending: Vec<Cell> = mine
        .iter()
        .map(|(_, c)| *c)
        .filter(|c| !done.contains(&spec.key(c)))
        .collect();
    if !pending.is_empty() {
        let targets = load_targets(spec)?;
        let resolved = resolve_policies(spec, &targets, &pending, &options.runs)?;
        let weights = weights_by_policy(spec, &pending)?;
        let journal = Journal::open(out, journaled.valid_len)?;
        let bar = episode_bar(
            pending.len() as u64,
            format!("sweep {} ({} done before)", spec.name, journaled.rows.len()),
        )?;
        let play_all = || {
            pending.par_iter().try_for_each(|c| {
                let policy = &resolved[&(c.policy, c.workload, c.variant)];
                let key = spec.key(c);
                let target = &targets[c.workload][c.variant];
                let metrics = metrics_row(&target.workload, policy, &target.policy_options, c.seed)
                    .with_context(|| key.to_string())?;
                journal.append(&Row {
                    key,
                    metrics,
                    sources: SOURCES_FINGERPRINT.to_owned(),
                    policy_sha256: weights[&c.policy].clone(),
                })?;
                bar.inc(1);
                Ok::<(), anyhow::Error>(())
            })
        };
        match options.jobs {
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()?
                .install(play_all)?,
            None => play_all()?,
        }
        bar.finish_and_clear();
    }
    // the tables hold the rows as the journal stores them (serde_json's float parsing is not
    // exact to the last bit), so a fresh and a resumed run write identical tables
    let mut rows = read_rows(&out.join(JOURNAL))?.rows;
    let order = spec.grid_index();
    rows.sort_by_key(|r| order[&r.key]);
    write_results(out, &rows)?;
    Ok(rows)
}
