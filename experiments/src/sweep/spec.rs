//! A sweep's TOML spec and the grid of cells it names: policies × workloads × override sets ×
//! seeds, in a fixed order, split into shards by index.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use schedlab_env::workload_file::describe_error;
use serde::{Deserialize, Serialize};

/// `schedlab sweep`'s input. Workload paths are relative to the current folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    pub name: String,
    /// Baselines by name (with inline options), trained run folders, or `train:AGENT` (ppo,
    /// a2c, dqn) to train on each workload first.
    pub policies: Vec<String>,
    pub workloads: Vec<PathBuf>,
    pub seeds: Vec<u64>,
    /// Named sets of `--set` pairs (dotted keys override single-job workloads, plain keys are
    /// policy options), one grid coordinate; none: one set named `default`.
    #[serde(default)]
    pub overrides: BTreeMap<String, BTreeMap<String, toml::Value>>,
    #[serde(default)]
    pub train: TrainSettings,
}

/// How `train:AGENT` policies are trained: once per workload and override set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainSettings {
    pub steps: u64,
    pub seed: u64,
    /// Hyperparameters per agent, as `--set` gives them.
    pub hyperparameters: BTreeMap<String, BTreeMap<String, toml::Value>>,
    /// Workload settings (dotted keys, as `--set` gives them) the agents train under on top of
    /// the override set's, such as a shaped reward; every policy is still played and measured
    /// under the override set alone.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub workload_set: BTreeMap<String, toml::Value>,
}

impl Default for TrainSettings {
    fn default() -> Self {
        TrainSettings {
            steps: 20_000,
            seed: 0,
            hyperparameters: BTreeMap::new(),
            workload_set: BTreeMap::new(),
        }
    }
}

/// The prefix of policies trained inside the sweep.
pub const TRAIN_PREFIX: &str = "train:";

/// The most cells one sweep holds (docs/workload-files.md, "Limits"): its result table and
/// shard plan are built whole.
const MAX_CELLS: u128 = 1_000_000;

/// One episode of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cell {
    pub policy: usize,
    pub workload: usize,
    pub variant: usize,
    pub seed: u64,
}

/// `i/n`: the cells whose grid index is `i` modulo `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    pub fn parse(text: &str) -> anyhow::Result<Shard> {
        let parsed = text
            .split_once('/')
            .and_then(|(i, n)| Some((i.trim().parse().ok()?, n.trim().parse().ok()?)));
        match parsed {
            Some((index, count)) if count >= 1 && index < count => Ok(Shard { index, count }),
            _ => anyhow::bail!(
                "--shard `{text}`: expected i/n with 0 <= i < n (the first of 4 shards is 0/4)"
            ),
        }
    }

    pub fn holds(&self, grid_index: usize) -> bool {
        grid_index % self.count == self.index
    }
}

fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `key=value` strings of a TOML table, in key order.
pub fn pairs(table: &BTreeMap<String, toml::Value>) -> Vec<String> {
    table
        .iter()
        .map(|(k, v)| format!("{k}={}", value_text(v)))
        .collect()
}

impl SweepSpec {
    pub fn load(path: &Path) -> anyhow::Result<SweepSpec> {
        schedlab_env::limits::check_file_size(path, 16 << 20, "sweep spec")?;
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let spec: SweepSpec = toml::from_str(&text).map_err(|e| {
            let (key, message) = describe_error(&text, &e);
            anyhow::anyhow!("sweep spec {}: `{key}`: {message}", path.display())
        })?;
        spec.check()
            .with_context(|| format!("sweep spec {}", path.display()))?;
        Ok(spec)
    }

    /// Refuses an empty or repeated coordinate, a missing workload, and settings that are not
    /// what their table says.
    pub fn check(&self) -> anyhow::Result<()> {
        for (key, list) in [
            ("policies", self.policies.len()),
            ("workloads", self.workloads.len()),
            ("seeds", self.seeds.len()),
        ] {
            anyhow::ensure!(list > 0, "`{key}` is empty");
        }
        let cells = [
            self.workloads.len(),
            self.overrides.len().max(1),
            self.policies.len(),
        ]
        .iter()
        .fold(self.seeds.len() as u128, |n, &k| n * k as u128);
        anyhow::ensure!(
            cells <= MAX_CELLS,
            "{cells} cells (workloads x override sets x policies x seeds), above the limit of \
             {MAX_CELLS}: split the sweep"
        );
        let mut seen = std::collections::HashSet::new();
        for p in &self.policies {
            anyhow::ensure!(seen.insert(p), "policy `{p}` is listed twice");
        }
        let mut seen = std::collections::HashSet::new();
        for s in &self.seeds {
            anyhow::ensure!(seen.insert(s), "seed {s} is listed twice");
        }
        let mut seen = std::collections::HashSet::new();
        for w in &self.workloads {
            anyhow::ensure!(w.is_file(), "workload `{}` is not a file", w.display());
            anyhow::ensure!(seen.insert(w), "workload `{}` is listed twice", w.display());
        }
        for agent in self.hyperparameter_agents() {
            anyhow::ensure!(
                schedlab_trainer::algorithms::AgentKind::from_name(agent).is_some(),
                "[train.hyperparameters.{agent}]: not a learned agent ({})",
                schedlab_trainer::algorithms::AgentKind::names()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        for key in self.train.workload_set.keys() {
            anyhow::ensure!(
                key.contains('.'),
                "[train.workload_set] `{key}`: not a workload setting (a dotted key such as \
                 `reward.lambda_idle`)"
            );
            if let Some((set, _)) = self.overrides.iter().find(|(_, s)| s.contains_key(key)) {
                anyhow::bail!(
                    "[train.workload_set] `{key}` is also set by [overrides.{set}]; set it in one"
                );
            }
        }
        Ok(())
    }

    fn hyperparameter_agents(&self) -> impl Iterator<Item = &str> {
        self.train.hyperparameters.keys().map(String::as_str)
    }

    /// The override sets by name, in grid order.
    pub fn variants(&self) -> Vec<(String, Vec<String>)> {
        if self.overrides.is_empty() {
            return vec![("default".into(), Vec::new())];
        }
        self.overrides
            .iter()
            .map(|(name, table)| (name.clone(), pairs(table)))
            .collect()
    }

    /// The name of override set `variant` (`default` when the spec has none).
    pub fn variant_name(&self, variant: usize) -> &str {
        self.overrides
            .keys()
            .nth(variant)
            .map_or("default", String::as_str)
    }

    /// Every cell, workload-major, then override set, policy and seed.
    pub fn grid(&self) -> Vec<Cell> {
        let variants = self.overrides.len().max(1);
        let mut cells = Vec::new();
        for workload in 0..self.workloads.len() {
            for variant in 0..variants {
                for policy in 0..self.policies.len() {
                    for &seed in &self.seeds {
                        cells.push(Cell {
                            policy,
                            workload,
                            variant,
                            seed,
                        });
                    }
                }
            }
        }
        cells
    }

    /// Each cell's position in [`Self::grid`], by key: the order result tables keep.
    pub fn grid_index(&self) -> std::collections::HashMap<CellKey, usize> {
        self.grid()
            .iter()
            .enumerate()
            .map(|(k, c)| (self.key(c), k))
            .collect()
    }

    /// The cell's coordinates as a row key.
    pub fn key(&self, cell: &Cell) -> CellKey {
        CellKey {
            policy: self.policies[cell.policy].clone(),
            workload: self.workloads[cell.workload].display().to_string(),
            overrides: self.variant_name(cell.variant).to_owned(),
            seed: cell.seed,
        }
    }
}

/// A cell's coordinates, as they appear in result rows.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CellKey {
    pub policy: String,
    pub workload: String,
    pub overrides: String,
    pub seed: u64,
}

impl std::fmt::Display for CellKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} on {} ({}), seed {}",
            self.policy, self.workload, self.overrides, self.seed
        )
    }
}
