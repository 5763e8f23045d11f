//! The jobs workload file (TOML, `kind = "jobs"`): a cluster of machines, the model templates
//! whose fitted speed-up curves drive the surrogate, and the jobs (inline, or in a separate
//! job table that the caller reads). Unknown keys and impossible values are refused by name.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cluster::one;
use crate::error::{EnvError, Result};
use crate::limits;
use crate::real::{Execution, RealSpec};
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
}

impl Default for JobsReward {
    fn default() -> Self {
        JobsReward {
            time_unit_s: 3600.0,
            lambda_idle: 0.0,
            remaining_potential: false,
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
}

impl Template {
    pub fn speedup(&self, workers: f64, size: f64) -> f64 {
        speedup(self.contention, self.size_exponent, workers, size)
    }
}

/// The templates' speed-up curve: `S(x) = x / (1 + contention (x - 1))` of
/// `x = workers * size^size_exponent`.
pub fn speedup(contention: f64, size_exponent: f64, workers: f64, size: f64) -> f64 {
    let x = workers * size.powf(size_exponent);
    x / (1.0 + contention * (x - 1.0))
}

pub use schedlab_artifacts::JobRecord;

/// A container request scaled by a size factor; GPU amounts of a whole GPU or more stay
/// whole GPUs, smaller ones stay shares.
pub fn scaled_request(request: [u32; 3], factor: f64) -> [u32; 3] {
    let scale = |v: u32| ((v as f64 * factor).round() as u32).max(u32::from(v > 0));
    let gpu = request[2] as f64 * factor;
    let gpu = if request[2] == 0 {
        0
    } else if gpu >= GPU_MILLI as f64 {
        (gpu / GPU_MILLI as f64).round() as u32 * GPU_MILLI
    } else {
        (gpu.round() as u32).max(1)
    };
    [scale(request[0]), scale(request[1]), gpu]
}

impl JobsWorkload {
    /// Reads a workload and its Parquet `jobs_table` when it has one, and sets `key.path=value`
    /// overrides (TOML values; a bare word is a string) before validating.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<JobsWorkload> {
        let mut workload: JobsWorkload = crate::workload_file::load_as(path, overrides)?;
        if let Some(table) = &workload.jobs_table {
            if !workload.jobs.is_empty() {
                return Err(EnvError::config(
                    path,
                    "jobs_table",
                    "give jobs inline or in a table, not both",
                ));
            }
            let table_path = table_path(path, table);
            // a Parquet table unpacks to some ten times its size as job records
            limits::check_file_size(&table_path, limits::memory_limit() / 16, "job table")?;
            workload.jobs = schedlab_artifacts::read_job_table(&table_path)
                .map_err(|e| EnvError::config(&table_path, "(table)", e.to_string()))?;
        }
        let machines = workload.machine_count() as f64;
        limits::check_total(
            path,
            "machines",
            "machines",
            machines,
            limits::TOTAL_MACHINES,
        )?;
        // a job's record and its episode state, measured at about half a kilobyte
        let jobs = workload.jobs.len() as u64;
        let key = if workload.jobs_table.is_some() {
            "jobs_table"
        } else {
            "jobs"
        };
        limits::check_memory(path, key, format!("{jobs} jobs"), jobs * 512)?;
        workload.validate(path)?;
        Ok(workload)
    }

    pub fn machine_count(&self) -> usize {
        self.machines.iter().map(|m| m.count).sum()
    }

    /// Checks everything the simulation relies on; public so importers validate before saving.
    pub fn validate(&self, path: &Path) -> Result<()> {
        self.check_episode(path)?;
        self.check_execution(path)?;
        self.check_interface(path)?;
        self.check_machines(path)?;
        let template_names = self.check_templates(path)?;
        self.check_jobs(path, &template_names)?;
        self.check_family(path)
    }

    /// The kind, the episode's clock and limits, and the reward's weights.
    fn check_episode(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        if self.kind != "jobs" {
            return bad(
                "kind".into(),
                format!("must be \"jobs\", got {:?}", self.kind),
            );
        }
        let e = &self.episode;
        if !(e.decision_interval_s >= 0.0 && e.decision_interval_s.is_finite()) {
            return bad(
                "episode.decision_interval_s".into(),
                format!("must be 0 or positive, got {}", e.decision_interval_s),
            );
        }
        if !(e.max_time_s > 0.0 && e.max_time_s.is_finite()) {
            return bad(
                "episode.max_time_s".into(),
                format!("must be a positive number, got {}", e.max_time_s),
            );
        }
        for (key, v) in [
            ("episode.restart_s", e.restart_s),
            ("episode.speed_sigma", e.speed_sigma),
            ("episode.start_s", e.start_s),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return bad(key.into(), format!("must be 0 or positive, got {v}"));
            }
        }
        if !(e.speed_factor > 0.0 && e.speed_factor.is_finite()) {
            return bad(
                "episode.speed_factor".into(),
                format!("must be a positive number, got {}", e.speed_factor),
            );
        }
        if !(self.reward.time_unit_s > 0.0 && self.reward.time_unit_s.is_finite()) {
            return bad(
                "reward.time_unit_s".into(),
                format!("must be a positive number, got {}", self.reward.time_unit_s),
            );
        }
        if !(self.reward.lambda_idle >= 0.0 && self.reward.lambda_idle.is_finite()) {
            return bad(
                "reward.lambda_idle".into(),
                format!("must be 0 or positive, got {}", self.reward.lambda_idle),
            );
        }
        if e.max_steps_per_decision == 0 {
            return bad(
                "episode.max_steps_per_decision".into(),
                "must be at least 1".into(),
            );
        }
        Ok(())
    }

    /// Real execution: a sound `[real]`, templates that name their single-job workloads, and
    /// the surrogate fidelity (real processes replace the surrogate's progress).
    fn check_execution(&self, path: &Path) -> Result<()> {
        if self.execution == Execution::Sim {
            return Ok(());
        }
        if let Some((key, message)) = self.real.check() {
            return Err(EnvError::config(path, key, message));
        }
        if self.fidelity == Fidelity::Trained {
            return Err(EnvError::config(
                path,
                "fidelity",
                "execution = \"real\" runs jobs as real processes: use the surrogate fidelity with it",
            ));
        }
        match self.templates.iter().position(|t| t.workload.is_empty()) {
            Some(i) => Err(EnvError::config(
                path,
                format!("templates[{i}].workload"),
                "execution = \"real\" trains each job on its template's single-job workload: name it",
            )),
            None => Ok(()),
        }
    }

    /// The decision window and the scaling ladders.
    fn check_interface(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        if self.window.queued == 0 {
            return bad("window.queued".into(), "must be at least 1".into());
        }
        for (key, ladder) in [
            ("scaling.workers", &self.scaling.workers),
            ("scaling.sizes", &self.scaling.sizes),
        ] {
            if ladder.iter().any(|&s| !(s > 0.0 && s.is_finite()))
                || ladder.windows(2).any(|w| w[0] >= w[1])
                || !ladder.contains(&1.0)
            {
                return bad(
                    key.into(),
                    format!(
                        "must be positive, strictly increasing and contain 1.0, got {ladder:?}"
                    ),
                );
            }
        }
        Ok(())
    }

    /// Every machine: a count, positive capacities, at most the GPUs a machine can hold.
    fn check_machines(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        if self.machines.is_empty() {
            return bad("machines".into(), "at least one machine is needed".into());
        }
        for (i, m) in self.machines.iter().enumerate() {
            if m.count == 0 || !(m.cpu_cores > 0.0 && m.mem_gb > 0.0) || m.gpus as usize > MAX_GPUS
            {
                return bad(
                    format!("machines[{i}] ({})", m.name),
                    format!(
                        "needs count >= 1, positive cpu_cores and mem_gb, and at most {MAX_GPUS} gpus; got count {}, {} cores, {} GB, {} GPUs",
                        m.count, m.cpu_cores, m.mem_gb, m.gpus
                    ),
                );
            }
        }
        Ok(())
    }

    /// Every template: sound fractions and contention, what the trained fidelity needs, a unique
    /// name. Returns the names.
    fn check_templates<'a>(&'a self, path: &Path) -> Result<HashSet<&'a str>> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        let mut template_names = HashSet::new();
        for (i, t) in self.templates.iter().enumerate() {
            let fractions_ok = t.utilisation.iter().all(|&u| u > 0.0 && u <= 1.0);
            let sound = (0.0..=MAX_CONTENTION).contains(&t.contention)
                && t.size_exponent >= 0.0
                && t.size_exponent.is_finite()
                && fractions_ok;
            if !sound {
                return bad(
                    format!("templates[{i}] ({})", t.name),
                    format!(
                        "needs contention in [0, {MAX_CONTENTION}], size_exponent >= 0 and utilisation in (0, 1]"
                    ),
                );
            }
            if self.fidelity == Fidelity::Trained
                && (t.workload.is_empty() || t.time_at_one_s.is_nan() || t.time_at_one_s <= 0.0)
            {
                return bad(
                    format!("templates[{i}] ({})", t.name),
                    "the trained fidelity needs the template's `workload` and `time_at_one_s` (refit with `schedlab templates fit`)".into(),
                );
            }
            if !template_names.insert(t.name.as_str()) {
                return bad(
                    format!("templates[{i}]"),
                    format!("duplicate name {:?}", t.name),
                );
            }
        }
        Ok(template_names)
    }

    /// Every job: a unique id, times, workers and GPUs that make sense, a known template and
    /// predecessors, a request some machine fits.
    fn check_jobs(&self, path: &Path, template_names: &HashSet<&str>) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        let mut ids = HashMap::new();
        for (i, j) in self.jobs.iter().enumerate() {
            if ids.insert(j.id.as_str(), i).is_some() {
                return bad(format!("jobs[{i}].id"), format!("duplicate id {:?}", j.id));
            }
        }
        for (i, j) in self.jobs.iter().enumerate() {
            let key = |field: &str| format!("jobs[{i}] (id {}).{field}", j.id);
            if !(j.arrival_s >= 0.0 && j.arrival_s.is_finite()) {
                return bad(
                    key("arrival_s"),
                    format!("must be >= 0, got {}", j.arrival_s),
                );
            }
            if !(j.duration_s > 0.0 && j.duration_s.is_finite()) {
                return bad(
                    key("duration_s"),
                    format!("must be positive, got {}", j.duration_s),
                );
            }
            if j.workers == 0 {
                return bad(key("workers"), "must be at least 1".into());
            }
            if j.gpu_milli > GPU_MILLI && j.gpu_milli % GPU_MILLI != 0 {
                return bad(
                    key("gpu_milli"),
                    format!("above one GPU it must be whole GPUs, got {}", j.gpu_milli),
                );
            }
            if !template_names.contains(j.template.as_str()) {
                return bad(
                    key("template"),
                    format!("no template named {:?}", j.template),
                );
            }
            if let Some(dep) = j.after.iter().find(|d| !ids.contains_key(d.as_str())) {
                return bad(key("after"), format!("no job with id {dep:?}"));
            }
            if !self.machines.iter().any(|m| fits_empty(m, j.request())) {
                return bad(
                    key("request"),
                    format!(
                        "a container of {} mCPU, {} MiB, {} mGPU fits on no machine",
                        j.cpu_milli, j.mem_mib, j.gpu_milli
                    ),
                );
            }
        }
        Ok(())
    }

    /// A family of windows: of the surrogate fidelity, and sound.
    fn check_family(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        if let Some(family) = &self.family {
            if self.fidelity == Fidelity::Trained {
                return bad(
                    "family".into(),
                    "a workload family samples windows of the surrogate fidelity only".into(),
                );
            }
            if let Err((key, message)) = family.validate(self) {
                return bad(key, message);
            }
        }
        Ok(())
    }
}

/// Whether one container fits on an empty machine of this type.
pub fn fits_empty(machine: &MachineSpec, request: [u32; 3]) -> bool {
    request[0] <= machine.cpu_milli()
        && request[1] <= machine.mem_mib()
        && request[2] <= machine.gpus * GPU_MILLI
}

fn table_path(workload: &Path, table: &str) -> PathBuf {
    workload.parent().unwrap_or(Path::new(".")).join(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_requests_keep_gpus_whole_above_one() {
        assert_eq!(scaled_request([1000, 2048, 500], 0.5), [500, 1024, 250]);
        assert_eq!(scaled_request([1000, 2048, 2000], 0.5), [500, 1024, 1000]);
        assert_eq!(scaled_request([1000, 2048, 1000], 2.0), [2000, 4096, 2000]);
        assert_eq!(scaled_request([3, 1, 0], 0.1), [1, 1, 0]);
    }

    #[test]
    fn speedup_is_linear_without_contention_and_flat_with_one() {
        let t = |s| Template {
            name: "t".into(),
            contention: s,
            size_exponent: 1.0,
            utilisation: [1.0; 3],
            fitted_from: String::new(),
            workload: String::new(),
            time_at_one_s: 0.0,
        };
        assert!((t(0.0).speedup(4.0, 1.0) - 4.0).abs() < 1e-12);
        assert!((t(0.0).speedup(2.0, 2.0) - 4.0).abs() < 1e-12);
        assert!(t(0.5).speedup(8.0, 1.0) < 2.0);
    }

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
