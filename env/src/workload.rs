//! The workload file (TOML): everything that defines an episode family. Unknown keys,
//! missing fields and impossible values are refused with the file and the key.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cluster::{BackgroundSpec, Ladder, NodeSpec, Resource};
use crate::data::{FeatureScaling, NaPolicy};
use crate::error::{EnvError, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub episode: EpisodeSpec,
    #[serde(default)]
    pub reward: RewardSpec,
    #[serde(default)]
    pub prices: Prices,
    pub containers: Ladder,
    #[serde(default)]
    pub sim: SimSpec,
    pub nodes: Vec<NodeSpec>,
    pub background: BackgroundSpec,
    pub job: JobSpec,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EpisodeSpec {
    /// Virtual seconds between scheduling decisions.
    pub round_interval_s: f64,
    /// Truncation: the episode stops after this many rounds...
    pub max_rounds: usize,
    /// ...or this many virtual seconds, whichever comes first.
    pub max_time_s: f64,
}

/// Weights of the two reward terms (docs/environments.md, "Reward"; ARCHITECTURE.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RewardSpec {
    pub lambda_time: f64,
    pub lambda_idle: f64,
}

impl Default for RewardSpec {
    fn default() -> Self {
        RewardSpec {
            lambda_time: 1.0,
            lambda_idle: 1.0,
        }
    }
}

/// Prices used for `idle_cost`, per resource-hour. The defaults are round figures of the
/// order of public cloud on-demand list prices; set your own for a given provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Prices {
    pub cpu_core_hour: f64,
    pub mem_gb_hour: f64,
    pub gpu_hour: f64,
}

impl Default for Prices {
    fn default() -> Self {
        Prices {
            cpu_core_hour: 0.04,
            mem_gb_hour: 0.005,
            gpu_hour: 2.5,
        }
    }
}

impl Prices {
    pub fn per_second(&self) -> [f64; 3] {
        [
            self.cpu_core_hour / 3600.0,
            self.mem_gb_hour / 3600.0,
            self.gpu_hour / 3600.0,
        ]
    }
}

/// Constants of the cluster performance model (see `sim::cost`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SimSpec {
    /// Fixed network latency per message, seconds.
    pub latency_s: f64,
    /// How much background CPU load slows a node: speed x (1 - interference x share).
    pub interference: f64,
    /// Amdahl serial fraction of a worker's CPU compute.
    pub cpu_contention: f64,
    /// Batch size at which a GPU reaches half its throughput.
    pub gpu_half_batch: f64,
    /// Log-normal jitter of every compute time (standard deviation of the log).
    pub straggler_sigma: f64,
    /// Probability that an iteration straggles...
    pub straggler_prob: f64,
    /// ...and by how much its compute time is multiplied then.
    pub straggler_slowdown: f64,
    /// Multiplies every node's bandwidth (a tighter or looser network, one knob).
    pub bandwidth_scale: f64,
}

impl Default for SimSpec {
    fn default() -> Self {
        SimSpec {
            latency_s: 0.002,
            interference: 0.5,
            cpu_contention: 0.05,
            gpu_half_batch: 16.0,
            straggler_sigma: 0.1,
            straggler_prob: 0.02,
            straggler_slowdown: 3.0,
            bandwidth_scale: 1.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    Softmax,
    Logistic,
    Svm,
    Ridge,
    Mlp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptimizerKind {
    /// Hierarchical-batch asynchronous SGD (docs/single-job.md).
    HbAsgd,
    /// Barrier every step, batch-weighted mean of all workers' gradients.
    SyncSgd,
    /// Every gradient applied as it arrives, no decay, fixed batch.
    AsyncSgd,
    /// Asynchronous workers, Adam on the parameter server.
    Adam,
    /// Asynchronous workers, heavy-ball momentum on the server: `v = mu v + g`, `w -= lr v`.
    Momentum,
    /// Asynchronous workers, Nesterov momentum: `v = mu v + g`, `w -= lr (g + mu v)`.
    Nesterov,
    /// Local SGD (periodic model averaging, FedAvg-style): each worker takes `local_steps`
    /// SGD steps on its own copy, then the copies are averaged in a synchronous step.
    LocalSgd,
}

impl OptimizerKind {
    pub fn name(self) -> &'static str {
        match self {
            OptimizerKind::HbAsgd => "hb_asgd",
            OptimizerKind::SyncSgd => "sync_sgd",
            OptimizerKind::AsyncSgd => "async_sgd",
            OptimizerKind::Adam => "adam",
            OptimizerKind::Momentum => "momentum",
            OptimizerKind::Nesterov => "nesterov",
            OptimizerKind::LocalSgd => "local_sgd",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Topology {
    #[default]
    ParameterServer,
    /// Every worker holds the model; a step ends with a bandwidth-optimal ring all-reduce
    /// (reduce-scatter and all-gather) timed on the slowest member's link.
    RingAllReduce,
}

fn one() -> usize {
    1
}
fn default_momentum() -> f64 {
    0.9
}
fn default_beta() -> f64 {
    0.8
}
fn default_tau() -> u64 {
    4
}
fn default_lr_bounds() -> (f64, f64) {
    (0.5, 2.0)
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobSpec {
    pub model: ModelKind,
    /// Hidden layer widths (`mlp` only).
    #[serde(default)]
    pub hidden: Vec<usize>,
    /// L2 penalty on the weights.
    #[serde(default)]
    pub l2: f64,
    pub optimizer: OptimizerKind,
    /// Base learning rate `alpha_0`.
    pub lr: f64,
    /// `m_base`: every worker's batch for the fixed-batch optimisers, the base of HB-ASGD's rescaling.
    pub base_batch: usize,
    /// Staleness decay `beta` of HB-ASGD.
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Staleness window `tau` of HB-ASGD: gradients older than this many updates are discarded.
    #[serde(default = "default_tau")]
    pub tau: u64,
    /// `mu` of `momentum` and `nesterov`.
    #[serde(default = "default_momentum")]
    pub momentum: f64,
    /// Stale synchronous parallel for the asynchronous optimisers: a worker starts an
    /// iteration only while it is at most this many pushes ahead of the slowest running
    /// worker (none: no bound).
    #[serde(default)]
    pub staleness_bound: Option<u64>,
    /// How a synchronous step's gradients meet: through the parameter server (pull and push
    /// per worker) or by ring all-reduce among the workers (`sync_sgd`, `local_sgd`).
    #[serde(default)]
    pub topology: Topology,
    /// `H`, the local steps between averages of `local_sgd`.
    #[serde(default = "one")]
    pub local_steps: usize,
    /// Backup workers for synchronous SGD: a step closes once all but this many of its
    /// workers have pushed; the rest's iterations are cancelled.
    #[serde(default)]
    pub backup_workers: usize,
    /// Bounds on HB-ASGD's resource-adequacy factor on the learning rate.
    #[serde(default = "default_lr_bounds")]
    pub lr_factor_bounds: (f64, f64),
    /// Validation loss (mean data loss, no penalty) at which the job is done.
    pub target_loss: f64,
    /// When the validation loss is checked: every so many server updates (`25`, 20 by
    /// default) or at the first update after every multiple of so many virtual seconds
    /// (`"10s"`); once more at the episode's end.
    #[serde(default)]
    pub eval_every: crate::sim::ValidationCadence,
    /// Virtual cost of one sample's forward and backward pass, GFLOP.
    pub sample_gflop: f64,
    /// Virtual model size sent on every pull and push, MB.
    pub model_mb: f64,
    /// Virtual memory one sample of a batch occupies, MB (bounds the batch).
    pub sample_mem_mb: f64,
    /// How pushed gradients are compressed (`{ kind = "qsgd", levels = 16 }`, `top-k` with a
    /// `ratio`, `sign`; none by default).
    #[serde(default)]
    pub compression: crate::sim::Compression,
    pub dataset: DatasetSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataFormat {
    Csv,
    Libsvm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Classification,
    Regression,
}

fn default_validation_fraction() -> f64 {
    0.2
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetSpec {
    pub format: DataFormat,
    /// Relative to the workload file.
    pub path: String,
    pub task: TaskKind,
    /// Label column (CSV only).
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub drop_columns: Vec<String>,
    #[serde(default)]
    pub na: NaPolicy,
    /// Feature count (LIBSVM only; the default is the largest index in the training file).
    #[serde(default)]
    pub features: Option<usize>,
    /// A separate validation file; otherwise `validation_fraction` of the rows, split by `split_seed`.
    #[serde(default)]
    pub validation_path: Option<String>,
    #[serde(default = "default_validation_fraction")]
    pub validation_fraction: f64,
    /// The split is part of the workload, not of the episode, so every episode validates alike.
    #[serde(default)]
    pub split_seed: u64,
    /// Feature rescaling, fitted on the training part.
    #[serde(default)]
    pub scaling: FeatureScaling,
    /// Validate on a fixed subset of this many validation rows (drawn once by `split_seed`)
    /// instead of all of them: the loss the target and the final loss refer to.
    #[serde(default)]
    pub validation_rows: Option<usize>,
}

impl Workload {
    /// Reads and validates a workload file.
    pub fn load(path: &Path) -> Result<Workload> {
        Self::load_with_overrides(path, &[])
    }

    /// Reads a workload, then sets `key.path=value` overrides (TOML values; a bare word is
    /// taken as a string) before validating, as `--set` does on the command line.
    pub fn load_with_overrides(path: &Path, overrides: &[(String, String)]) -> Result<Workload> {
        let workload: Workload = crate::toml_file::load_as(path, overrides)?;
        workload.validate(path)?;
        Ok(workload)
    }

    /// Resolves a path written in the workload relative to the workload file's folder.
    pub fn resolve(workload_path: &Path, relative: &str) -> PathBuf {
        workload_path
            .parent()
            .unwrap_or(Path::new("."))
            .join(relative)
    }

    /// Nodes with `count` expanded, named `name-k` when `count > 1`.
    pub fn expanded_nodes(&self) -> Vec<NodeSpec> {
        self.nodes
            .iter()
            .flat_map(|n| {
                (0..n.count).map(move |k| NodeSpec {
                    name: if n.count > 1 {
                        format!("{}-{k}", n.name)
                    } else {
                        n.name.clone()
                    },
                    count: 1,
                    ..n.clone()
                })
            })
            .collect()
    }

    fn validate(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        let e = &self.episode;
        for (key, v) in [
            ("episode.round_interval_s", e.round_interval_s),
            ("episode.max_time_s", e.max_time_s),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return bad(key.into(), format!("must be a positive number, got {v}"));
            }
        }
        if e.max_rounds == 0 {
            return bad("episode.max_rounds".into(), "must be at least 1".into());
        }
        if self.nodes.is_empty() {
            return bad("nodes".into(), "at least one node is needed".into());
        }
        for (i, n) in self.nodes.iter().enumerate() {
            let fields = [
                ("cpu_cores", n.cpu_cores, true),
                ("mem_gb", n.mem_gb, true),
                ("gpus", n.gpus, false),
                ("gpu_mem_gb", n.gpu_mem_gb, false),
                ("speed", n.speed, true),
                ("bandwidth_gbps", n.bandwidth_gbps, true),
                ("cpu_gflops_per_core", n.cpu_gflops_per_core, true),
                ("gpu_gflops", n.gpu_gflops, false),
            ];
            for (field, v, positive) in fields {
                if !v.is_finite() || v < 0.0 || (positive && v == 0.0) {
                    let need = if positive { "positive" } else { "non-negative" };
                    return bad(
                        format!("nodes[{i}].{field}"),
                        format!("must be {need}, got {v}"),
                    );
                }
            }
            if n.count == 0 {
                return bad(format!("nodes[{i}].count"), "must be at least 1".into());
            }
            if n.gpus > 0.0 && (n.gpu_mem_gb <= 0.0 || n.gpu_gflops <= 0.0) {
                return bad(
                    format!("nodes[{i}]"),
                    "a node with GPUs needs gpu_mem_gb and gpu_gflops".into(),
                );
            }
        }
        for r in Resource::ALL {
            let sizes = self.containers.sizes(r);
            let key = format!("containers.{}", ["cpu_cores", "mem_gb", "gpus"][r as usize]);
            if r != Resource::Gpu && sizes.is_empty() {
                return bad(key, "needs at least one size".into());
            }
            if sizes.iter().any(|&s| !(s > 0.0 && s.is_finite()))
                || sizes.windows(2).any(|w| w[0] >= w[1])
            {
                return bad(
                    key,
                    format!("sizes must be positive and strictly increasing, got {sizes:?}"),
                );
            }
        }
        let j = &self.job;
        let positive = [
            ("sim.bandwidth_scale", self.sim.bandwidth_scale),
            ("job.lr", j.lr),
            ("job.sample_gflop", j.sample_gflop),
            ("job.model_mb", j.model_mb),
            ("job.sample_mem_mb", j.sample_mem_mb),
        ];
        for (key, v) in positive {
            if !(v > 0.0 && v.is_finite()) {
                return bad(key.into(), format!("must be a positive number, got {v}"));
            }
        }
        if !(j.target_loss.is_finite() && j.target_loss >= 0.0) {
            return bad(
                "job.target_loss".into(),
                format!("must be a non-negative number, got {}", j.target_loss),
            );
        }
        if j.l2 < 0.0 || !j.l2.is_finite() {
            return bad(
                "job.l2".into(),
                format!("must be non-negative, got {}", j.l2),
            );
        }
        if j.base_batch == 0 {
            return bad("job.base_batch".into(), "must be at least 1".into());
        }
        if let Some(problem) = j.eval_every.problem() {
            return bad("job.eval_every".into(), problem);
        }
        if !(0.0..1.0).contains(&j.momentum) {
            return bad(
                "job.momentum".into(),
                format!("must lie in [0, 1), got {}", j.momentum),
            );
        }
        if j.local_steps == 0 || (j.local_steps > 1 && j.optimizer != OptimizerKind::LocalSgd) {
            return bad(
                "job.local_steps".into(),
                format!(
                    "{}: at least 1, and above 1 only for local_sgd",
                    j.local_steps
                ),
            );
        }
        if j.topology == Topology::RingAllReduce
            && !matches!(
                j.optimizer,
                OptimizerKind::SyncSgd | OptimizerKind::LocalSgd
            )
        {
            return bad(
                "job.topology".into(),
                format!(
                    "ring all-reduce is for sync_sgd and local_sgd, not {}",
                    j.optimizer.name()
                ),
            );
        }
        if j.backup_workers > 0 && j.optimizer != OptimizerKind::SyncSgd {
            return bad(
                "job.backup_workers".into(),
                format!(
                    "backup workers are for sync_sgd, not {}",
                    j.optimizer.name()
                ),
            );
        }
        if j.staleness_bound.is_some()
            && matches!(
                j.optimizer,
                OptimizerKind::SyncSgd | OptimizerKind::LocalSgd
            )
        {
            return bad(
                "job.staleness_bound".into(),
                "a staleness bound is for the asynchronous optimisers; sync_sgd has none".into(),
            );
        }
        if !(j.beta > 0.0 && j.beta < 1.0) {
            return bad(
                "job.beta".into(),
                format!("must lie in (0, 1), got {}", j.beta),
            );
        }
        let (lo, hi) = j.lr_factor_bounds;
        if !(lo > 0.0 && lo <= 1.0 && hi >= 1.0 && hi.is_finite()) {
            return bad(
                "job.lr_factor_bounds".into(),
                format!("need 0 < low <= 1 <= high, got ({lo}, {hi})"),
            );
        }
        match j.compression {
            crate::sim::Compression::Qsgd { levels: 0 } => {
                return bad(
                    "job.compression".into(),
                    "QSGD needs at least 1 level".into(),
                );
            }
            crate::sim::Compression::TopK { ratio } if !(ratio > 0.0 && ratio <= 1.0) => {
                return bad(
                    "job.compression".into(),
                    format!("top-k's ratio must lie in (0, 1], got {ratio}"),
                );
            }
            _ => {}
        }
        if j.dataset.validation_rows == Some(0) {
            return bad(
                "job.dataset.validation_rows".into(),
                "a validation subset needs a row".into(),
            );
        }
        if (j.model == ModelKind::Mlp) == j.hidden.is_empty() {
            return bad(
                "job.hidden".into(),
                "hidden layer widths are required for `mlp` and only for it".into(),
            );
        }
        let d = &j.dataset;
        for (key, file) in [
            ("job.dataset.path", Some(&d.path)),
            ("job.dataset.validation_path", d.validation_path.as_ref()),
        ] {
            if let Some(file) = file {
                let full = Self::resolve(path, file);
                if !full.is_file() {
                    return bad(
                        key.into(),
                        format!("dataset file {} does not exist", full.display()),
                    );
                }
            }
        }
        if (d.format == DataFormat::Csv) != d.label.is_some() {
            return bad(
                "job.dataset.label".into(),
                "CSV needs a label column name; LIBSVM takes none".into(),
            );
        }
        if d.validation_path.is_none()
            && !(d.validation_fraction > 0.0 && d.validation_fraction < 1.0)
        {
            return bad(
                "job.dataset.validation_fraction".into(),
                "must lie in (0, 1)".into(),
            );
        }
        match &self.background {
            BackgroundSpec::None => {}
            BackgroundSpec::Stochastic {
                mean_share,
                volatility,
                phi,
                period_s,
                max_share,
            } => {
                if !(0.0..=1.0).contains(max_share) || !(0.0..=*max_share).contains(mean_share) {
                    return bad(
                        "background.mean_share".into(),
                        "need 0 <= mean_share <= max_share <= 1".into(),
                    );
                }
                if *volatility < 0.0 || !(0.0..1.0).contains(phi) || *period_s <= 0.0 {
                    return bad(
                        "background".into(),
                        "need volatility >= 0, 0 <= phi < 1, period_s > 0".into(),
                    );
                }
            }
            BackgroundSpec::Trace {
                path: file,
                cpu_scale,
                mem_scale,
                time_scale,
                max_share,
            } => {
                if !Self::resolve(path, file).is_file() {
                    return bad(
                        "background.path".into(),
                        format!("trace file {file} does not exist"),
                    );
                }
                if [*cpu_scale, *mem_scale, *time_scale]
                    .iter()
                    .any(|v| *v <= 0.0)
                    || !(0.0..=1.0).contains(max_share)
                {
                    return bad(
                        "background".into(),
                        "scales must be positive and max_share in [0, 1]".into(),
                    );
                }
            }
        }
        Ok(())
    }
}

/// The `kind` a workload file declares (`jobs`, `dag`; none for single-job files).
pub fn file_kind(path: &Path) -> Result<Option<String>> {
    let table = crate::toml_file::read_with_overrides(path, &[])?;
    Ok(table
        .get("kind")
        .and_then(|k| k.as_str())
        .map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{two_node_workload, write_workload};

    fn config_error(text: &str) -> (String, String) {
        let path = write_workload(text);
        match Workload::load(&path).unwrap_err() {
            EnvError::Config {
                path: p,
                key,
                message,
            } => {
                assert_eq!(p, path, "the error names the file");
                (key, message)
            }
            other => panic!("expected a config error, got {other}"),
        }
    }

    #[test]
    fn a_valid_workload_loads() {
        let w = Workload::load(&write_workload(&two_node_workload("hb_asgd", ""))).unwrap();
        assert_eq!(w.expanded_nodes().len(), 2);
    }

    #[test]
    fn unknown_keys_are_refused_by_name() {
        let (_, message) = config_error(&two_node_workload("hb_asgd", "learning_rate = 3"));
        assert!(
            message.contains("unknown field `learning_rate`"),
            "{message}"
        );
    }

    #[test]
    fn missing_fields_are_refused_by_name() {
        let text = two_node_workload("hb_asgd", "").replace("target_loss = 0.05\n", "");
        let (_, message) = config_error(&text);
        assert!(message.contains("missing field `target_loss`"), "{message}");
    }

    #[test]
    fn negative_capacities_name_the_node_and_field() {
        let text = two_node_workload("hb_asgd", "").replacen("cpu_cores = 4", "cpu_cores = -4", 1);
        let (key, message) = config_error(&text);
        assert_eq!(key, "nodes[0].cpu_cores");
        assert!(message.contains("-4"), "{message}");
    }

    #[test]
    fn a_missing_dataset_names_the_key() {
        let text = two_node_workload("hb_asgd", "").replace("digits.csv.gz", "nothere.csv");
        let (key, message) = config_error(&text);
        assert_eq!(key, "job.dataset.path");
        assert!(message.contains("nothere.csv"), "{message}");
    }

    #[test]
    fn overrides_set_nested_keys_and_are_validated() {
        let path = write_workload(&two_node_workload("hb_asgd", ""));
        let w = Workload::load_with_overrides(
            &path,
            &[
                ("job.optimizer".into(), "sync_sgd".into()),
                ("job.lr".into(), "0.5".into()),
            ],
        )
        .unwrap();
        assert_eq!((w.job.optimizer, w.job.lr), (OptimizerKind::SyncSgd, 0.5));
        let err = Workload::load_with_overrides(&path, &[("job.lr".into(), "-1".into())])
            .unwrap_err()
            .to_string();
        assert!(err.contains("job.lr"), "{err}");
        let err = Workload::load_with_overrides(&path, &[("nope.lr".into(), "1".into())])
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown field `nope`"), "{err}");
        let w = Workload::load_with_overrides(&path, &[("sim.latency_s".into(), "0.5".into())])
            .unwrap();
        assert_eq!(w.sim.latency_s, 0.5, "a defaulted section can be set");
        // communication options name their key when they do not fit the optimiser
        for (key, value) in [
            ("job.backup_workers", "1"),
            ("job.compression", "{ kind = \"top-k\", ratio = 0.0 }"),
            ("job.compression", "{ kind = \"qsgd\", levels = 0 }"),
            ("job.momentum", "1.0"),
            ("job.dataset.validation_rows", "0"),
            ("job.eval_every", "0"),
            ("job.eval_every", "0s"),
            ("job.topology", "ring-all-reduce"),
            ("job.local_steps", "4"),
        ] {
            let err = Workload::load_with_overrides(&path, &[(key.into(), value.into())])
                .unwrap_err()
                .to_string();
            assert!(err.contains(key), "{key}: {err}");
        }
        let err = Workload::load_with_overrides(
            &path,
            &[
                ("job.optimizer".into(), "sync_sgd".into()),
                ("job.staleness_bound".into(), "2".into()),
            ],
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("job.staleness_bound"), "{err}");
    }

    #[test]
    fn every_shipped_workload_validates() {
        let dir = crate::testkit::data_dir().join("workloads");
        let mut count = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            // other kinds (jobs, DAG) are checked by their own tests and the CLI tests
            let is_toml = path.extension().is_some_and(|e| e == "toml");
            if !is_toml || file_kind(&path).unwrap().is_some() {
                continue;
            }
            Workload::load(&path).unwrap_or_else(|e| panic!("{e}"));
            count += 1;
        }
        assert!(count >= 3);
    }
}
