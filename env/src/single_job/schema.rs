//! The single-job workload file's schema (TOML): one training job, the cluster of nodes it
//! runs on and the episode around it. Checking it is `checks.rs`'s, reading it `load.rs`'s.

use serde::{Deserialize, Serialize};

use crate::cluster::{BackgroundSpec, Ladder, NodeSpec};
use crate::execution::{Execution, RealSpec};
use crate::schema::{DatasetSpec, ModelKind, Prices};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SingleJobWorkload {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// `sim` (default) or `real`: the episode on real processes under real resource limits.
    #[serde(default)]
    pub execution: Execution,
    /// How the workload maps onto this machine when it runs for real.
    #[serde(default)]
    pub real: RealSpec,
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

/// Weights of the reward terms (docs/environments.md, "Reward"; ARCHITECTURE.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RewardSpec {
    pub lambda_time: f64,
    /// Idle cost over the whole cluster's cost: wasted money, which a shorter episode also cuts.
    pub lambda_idle: f64,
    /// Idle cost over the cost of what the job holds, per round of time: the held resources'
    /// unused share (one minus price-weighted utilisation), which holding less does not cut.
    pub lambda_held_idle: f64,
    /// Paid once, at the episode's end: the episode's idle cost over the cost of all it held
    /// (one minus its price-weighted utilisation), however long it took.
    pub lambda_episode_idle: f64,
}

impl Default for RewardSpec {
    fn default() -> Self {
        RewardSpec {
            lambda_time: 1.0,
            lambda_idle: 1.0,
            lambda_held_idle: 0.0,
            lambda_episode_idle: 0.0,
        }
    }
}

/// Constants of the cluster performance model (see `sim/cost.rs`).
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
/// The factor lowers the tuned rate when resources are tight and never raises it: raised
/// up to 2, HB-ASGD at its tuned rate overshot on paper-10node's ample allocations and some
/// never reached the target (docs/single-job.md, "The learning-rate rule").
fn default_lr_bounds() -> (f64, f64) {
    (0.5, 1.0)
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
    /// Bounds on HB-ASGD's resource-adequacy factor on the learning rate (`[low, high]`,
    /// `low <= 1 <= high`; default `[0.5, 1.0]`).
    #[serde(default = "default_lr_bounds")]
    pub lr_factor_bounds: (f64, f64),
    /// Validation loss (mean data loss, no penalty) at which the job is done.
    pub target_loss: f64,
    /// When the validation loss is checked: every so many server updates (`25`, 20 by
    /// default) or at the first update after every multiple of so many virtual seconds
    /// (`"10s"`); once more at the episode's end.
    #[serde(default)]
    pub eval_every: super::cadence::ValidationCadence,
    /// Virtual cost of one sample's forward and backward pass, GFLOP.
    pub sample_gflop: f64,
    /// Virtual model size sent on every pull and push, MB.
    pub model_mb: f64,
    /// Virtual memory one sample of a batch occupies, MB (bounds the batch).
    pub sample_mem_mb: f64,
    /// How pushed gradients are compressed (`{ kind = "qsgd", levels = 16 }`, `top-k` with a
    /// `ratio`, `sign`; none by default).
    #[serde(default)]
    pub compression: super::compression::Compression,
    pub dataset: DatasetSpec,
}

impl SingleJobWorkload {
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
}
