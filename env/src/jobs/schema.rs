//! The jobs workload file's schema (TOML, `kind = "jobs"`): a cluster of machines, the model
//! templates whose fitted speed-up curves (`speedup.rs`) drive the surrogate, and the jobs
//! (inline, or in a separate job table that `load.rs` reads). Unknown keys are refused by
//! name; impossible values by `checks.rs`.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::throughputs::Throughputs;

use crate::cluster::one;
use crate::execution::{Execution, RealSpec};
use crate::schema::Prices;

/// Most GPUs one machine may hold (the shipped traces' largest machines have 8).
pub const MAX_GPUS: usize = 8;
/// The largest contention a template may have (speed-up then falls to 1/4 at most).
pub const MAX_CONTENTION: f64 = 4.0;
/// Milli-units per unit of `[cpu, mem, gpu]`: mCPU per core, MiB per GB, mGPU per GPU.
pub const MILLI_PER_UNIT: [f64; 3] = [1000.0, 1024.0, 1000.0];
/// One whole GPU in GPU-milli, the traces' unit of GPU sharing.
pub const GPU_MILLI: u32 = 1000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobsWorkload {
    /// Always `"jobs"`: tells this format from the single-job workload.
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Where the jobs came from, as the importer recorded it.
    #[serde(default)]
    pub source: Option<TraceSource>,
    pub episode: JobsEpisode,
    /// How a job progresses: `surrogate` (its template's fitted curve) or `trained` (the real
    /// training loop of its template's single-job workload, for tens of jobs; `real` before).
    #[serde(default)]
    pub fidelity: Fidelity,
    /// `sim` (the virtual clock) or `real`: running jobs are real training processes in
    /// cgroups standing for the machines, on the wall clock (docs/real-execution.md).
    #[serde(default)]
    pub execution: Execution,
    /// How the cluster maps onto this machine when `execution = "real"`.
    #[serde(default)]
    pub real: RealSpec,
    #[serde(default)]
    pub window: Window,
    #[serde(default)]
    pub scaling: Scaling,
    #[serde(default)]
    pub reward: JobsReward,
    #[serde(default)]
    pub prices: Prices,
    pub machines: Vec<MachineSpec>,
    /// Opt-in: the machines' GPU models run jobs at measured speeds (docs/heterogeneity.md).
    /// Without it `gpu_model` is a label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heterogeneity: Option<Heterogeneity>,
    /// Tenants' guaranteed shares of the cluster (docs/fairness.md): a tenant's jobs'
    /// finish-time fairness is measured against its share split among its jobs in the system.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tenant_shares: BTreeMap<String, f64>,
    pub templates: Vec<Template>,
    #[serde(default)]
    pub jobs: Vec<JobRecord>,
    /// A job table (Parquet or CSV) beside the workload, read by the caller's table reader.
    #[serde(default)]
    pub jobs_table: Option<String>,
    /// Present in a workload family: each episode plays a window sampled from the jobs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<FamilySpec>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fidelity {
    #[default]
    Surrogate,
    /// Each job trains in process on the virtual clock; named `real` until real execution
    /// (`execution = "real"`) took the word, and files that say so still load.
    #[serde(alias = "real")]
    Trained,
}

/// Provenance written by `schedlab workload import`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSource {
    pub format: String,
    pub jobs: String,
    #[serde(default)]
    pub nodes: String,
    /// Rows read, rows kept, and rows dropped by `--lenient` with why.
    pub rows_read: usize,
    pub rows_kept: usize,
    /// The jobs' arrival window `[from, to)` on the trace's clock, as `--from`/`--to` take it
    /// (`-`: open); for a family, its training period.
    #[serde(default)]
    pub from: String,
    #[serde(default)]
    pub to: String,
    #[serde(default)]
    pub dropped: Vec<String>,
    #[serde(default)]
    pub rule: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobsEpisode {
    /// A decision point every this many virtual seconds besides arrivals and completions
    /// (0: only at arrivals and completions).
    pub decision_interval_s: f64,
    /// Truncation: the episode stops at this virtual time.
    pub max_time_s: f64,
    /// A running job whose containers change pauses this long (checkpoint and restart).
    #[serde(default = "default_restart_s")]
    pub restart_s: f64,
    /// Same-time decision steps allowed at one decision point before the clock moves on.
    #[serde(default = "default_steps_per_decision")]
    pub max_steps_per_decision: usize,
    /// Log-normal spread of each job's speed around its template (standard deviation of
    /// the log); drawn per job from the episode seed.
    #[serde(default = "default_speed_sigma")]
    pub speed_sigma: f64,
    /// A job starting from the queue (first or after a preemption) does no work for this
    /// long: starting its processes and loading its data and checkpoint. 0 by default; real
    /// execution measures it (`schedlab calibrate`).
    #[serde(default)]
    pub start_s: f64,
    /// Every job's speed is multiplied by this (1 by default; fitted by `schedlab calibrate`
    /// to real runs).
    #[serde(default = "default_speed_factor")]
    pub speed_factor: f64,
}

fn default_speed_factor() -> f64 {
    1.0
}

fn default_restart_s() -> f64 {
    30.0
}
fn default_steps_per_decision() -> usize {
    64
}
fn default_speed_sigma() -> f64 {
    0.1
}

/// The jobs env's reward: minus the jobs in the system integrated over the step, in
/// `time_unit_s` (so an episode's return times `time_unit_s` is minus the total job
/// completion time, unfinished jobs charged at truncation), minus `lambda_idle` times the
/// idle cost in units of the whole cluster's price over `time_unit_s`. The idle term is off
/// by default: with it on, holding a job back saves idle cost, so the return no longer ranks
/// schedulers by JCT (see docs/jobs-cluster.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JobsReward {
    pub time_unit_s: f64,
    pub lambda_idle: f64,
    /// Adds potential-based shaping on the jobs' projected remaining seconds (a running job
    /// at its current rate, a queued one at its request): each step is also credited the drop
    /// of that sum, so shrinking, preempting or holding back a long job is charged at once.
    /// An episode's return then differs from minus its total JCT by the first state's
    /// potential only (a constant of the window), so the ranking of schedules stands.
    pub remaining_potential: bool,
    /// The discount per `time_unit_s` of the shaping term, `gamma^(elapsed / time_unit_s)` per
    /// step: the learner's (PPO's and DQN's jobs defaults are 0.99 per 3,600 s, as
    /// `time_unit_s`), so the shaped discounted return ranks policies as the plain one does.
    pub potential_gamma: f64,
    /// Weighs finish-time fairness beside JCT: every job is charged `lambda_fairness` times
    /// how far its ρ (docs/fairness.md) exceeds 1 when it finishes (an unfinished one at the
    /// settlement, at its JCT as the metrics count it). Off (0) by default.
    pub lambda_fairness: f64,
}

impl Default for JobsReward {
    fn default() -> Self {
        JobsReward {
            time_unit_s: 3600.0,
            lambda_idle: 0.0,
            remaining_potential: false,
            potential_gamma: 0.99,
            lambda_fairness: 0.0,
        }
    }
}

/// How many jobs the observation shows: the oldest queued ones, then running ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Window {
    pub queued: usize,
    pub running: usize,
    /// How a step acts on the window (see [`Interface`]).
    pub interface: Interface,
    /// Show each job's true remaining time and progress (the trace's duration: an oracle no
    /// production scheduler has). Off, both features read 0, and so do the estimates of
    /// the schedulers that use them (`sjf`, `raes`, `periodic`).
    pub oracle: bool,
    /// The clock never moves while a queued job fits the idle capacity (on by default; see
    /// env/src/jobs/conserve.rs). Off, a policy may hold jobs back with GPUs idle: for
    /// studies of deliberate idling.
    pub work_conserving: bool,
}

/// The jobs env's action interface.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Interface {
    /// Per window slot `[workers level, size level, placement]`, all slots at once.
    #[default]
    PerSlot,
    /// One choice per step: one visible job and what to do with it, or `advance` (see
    /// env/src/jobs/choice.rs).
    OneChoice,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            queued: 12,
            running: 4,
            interface: Interface::PerSlot,
            oracle: true,
            work_conserving: true,
        }
    }
}

impl Window {
    pub fn slots(&self) -> usize {
        self.queued + self.running
    }
}

impl JobsWorkload {
    pub fn machine_count(&self) -> usize {
        self.machines.iter().map(|m| m.count).sum()
    }

    /// The settings that fix the shape of a policy's observation and action (the window and
    /// the scaling levels), as `key=value` overrides: a trained policy records them and is
    /// played with them on other workloads (experiments/src/settings.rs). `window.oracle`
    /// is not one of them: hiding remaining time is the workload's premise, not a shape.
    pub fn interface_settings(&self) -> Vec<(String, String)> {
        let levels = |v: &[f64]| {
            let items: Vec<String> = v.iter().map(|x| format!("{x:?}")).collect();
            format!("[{}]", items.join(", "))
        };
        let interface = match self.window.interface {
            Interface::PerSlot => "per-slot",
            Interface::OneChoice => "one-choice",
        };
        [
            ("window.queued", self.window.queued.to_string()),
            ("window.running", self.window.running.to_string()),
            ("window.interface", interface.to_owned()),
            ("scaling.workers", levels(&self.scaling.workers)),
            ("scaling.sizes", levels(&self.scaling.sizes)),
        ]
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect()
    }
}

/// Elastic scaling: the choices of container count and container size, as multiples of
/// what the job requested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Scaling {
    pub workers: Vec<f64>,
    pub sizes: Vec<f64>,
}

impl Default for Scaling {
    fn default() -> Self {
        Scaling {
            workers: vec![0.5, 1.0, 2.0],
            sizes: vec![0.5, 1.0, 2.0],
        }
    }
}

impl Scaling {
    /// The size level that is exactly the request.
    pub fn requested_size_level(&self) -> usize {
        self.sizes
            .iter()
            .position(|&s| s == 1.0)
            .expect("validated: sizes contain 1.0")
    }

    /// The workers level (1-based; 0 = not running) that is exactly the request.
    pub fn requested_workers_level(&self) -> usize {
        1 + self
            .workers
            .iter()
            .position(|&s| s == 1.0)
            .expect("validated: workers contain 1.0")
    }
}

/// A machine type; `count` copies are made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineSpec {
    pub name: String,
    #[serde(default = "one")]
    pub count: usize,
    pub cpu_cores: f64,
    pub mem_gb: f64,
    #[serde(default)]
    pub gpus: u32,
    #[serde(default)]
    pub gpu_model: String,
}

impl MachineSpec {
    pub fn cpu_milli(&self) -> u32 {
        (self.cpu_cores * 1000.0).round() as u32
    }
    pub fn mem_mib(&self) -> u32 {
        (self.mem_gb * 1024.0).round() as u32
    }
}

/// A model template: how a job's speed grows with its containers, fitted from real HB-ASGD
/// runs of one single-job workload (`schedlab templates fit`).
///
/// Speed-up of `x = workers * size^size_exponent` effective workers is
/// `S(x) = x / (1 + contention * (x - 1))`: linear at contention 0, flat at 1, and slowing
/// down beyond 1 (as asynchronous training can, when more workers mean staler gradients).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Template {
    pub name: String,
    pub contention: f64,
    pub size_exponent: f64,
    /// Share of its allocation a job of this template uses, `[cpu, mem, gpu]`.
    pub utilisation: [f64; 3],
    /// The single-job workload and runs the numbers were fitted on.
    #[serde(default)]
    pub fitted_from: String,
    /// The single-job workload the `trained` fidelity trains (relative to the jobs workload).
    #[serde(default)]
    pub workload: String,
    /// Fitted time to the target loss of one worker at the middle size, in the single-job
    /// workload's seconds: `T(n, s) = time_at_one_s / S(n, s)`.
    #[serde(default)]
    pub time_at_one_s: f64,
    /// The job type of the throughput matrix this template's jobs run as, with
    /// `[heterogeneity]` on (a key of the matrix, `ResNet-50 (batch size 64)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_type: Option<String>,
}

/// How the machines' GPU models set the jobs' speeds (docs/heterogeneity.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heterogeneity {
    /// The throughput matrix, Gavel's format, relative to the workload file.
    pub throughputs: String,
    /// The measured model a job's trace duration is its time on.
    pub reference_model: String,
    /// Every `gpu_model` of a machine with GPUs, onto the measured model it runs as.
    pub models: BTreeMap<String, ModelMapping>,
    /// Jobs sharing a GPU run at the matrix's pair throughputs, and a pair it marks as not
    /// fitting (0.0) is never placed on one GPU; `false`: each at its speed alone.
    #[serde(default = "sharing_at_pairs")]
    pub pairs: bool,
    /// The matrix, read by `JobsWorkload::load`.
    #[serde(skip)]
    pub matrix: Option<Arc<Throughputs>>,
}

fn sharing_at_pairs() -> bool {
    true
}

/// A machine's GPU model as a measured one: `factor` times its throughput.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelMapping {
    pub measured: String,
    #[serde(default = "default_speed_factor")]
    pub factor: f64,
    /// Where the factor comes from (a public figure, or a stated assumption).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
}

pub use schedlab_artifacts::JobRecord;

/// Ranges `[low, high]` (inclusive) an episode's window is drawn from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FamilySpec {
    /// The training period's length: every job of the file arrives in `[0, period_s)`, time 0
    /// being the period's start (`source.from`/`source.to` say where it lies in the trace).
    pub period_s: f64,
    /// The window's length, trace seconds.
    pub length_s: [f64; 2],
    /// The share of the file's machines an episode gets.
    pub machine_share: [f64; 2],
    /// Arrivals come this many times faster than in the trace (window length / factor in
    /// virtual time).
    pub arrival_factor: [f64; 2],
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files written before the rename say `fidelity = "real"`; they keep loading.
    #[test]
    fn the_trained_fidelity_is_still_read_under_its_old_name() {
        #[derive(Deserialize)]
        struct File {
            fidelity: Fidelity,
        }
        let read = |text: &str| toml::from_str::<File>(text).unwrap().fidelity;
        assert_eq!(read("fidelity = \"real\""), Fidelity::Trained);
        assert_eq!(read("fidelity = \"trained\""), Fidelity::Trained);
        assert_eq!(read("fidelity = \"surrogate\""), Fidelity::Surrogate);
    }
}
