//! The DAG workload file (`kind = "dag"`): a platform and where each episode's DAGs come
//! from. Every `reset(seed)` draws an instance: a new generated DAG, or a run of consecutive
//! Alibaba v2018 DAG jobs from a seeded place in the trace, with edge data by the CCR rule.

use std::path::{Path, PathBuf};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::generate::{TaskDraw, fork_join, layered, set_edge_data};
use super::platform::{Platform, PlatformSpec};
use super::problem::{Dag, Edge, Problem, Task};
use crate::cluster::{load_v2018_tasks, parse_task_name};
use crate::error::{EnvError, Result};
use crate::limits;

/// A DAG workload file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DagWorkloadSpec {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub platform: PlatformSpec,
    pub dags: DagSource,
    /// A second source an episode draws from with probability `share` (a training mix of
    /// generated and real DAGs on one platform); none: every episode from `dags`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mix: Option<DagMix>,
    /// How a decision is asked: 0 (the default) places the env's next task (HEFT's order) on
    /// a GPU; K > 0 chooses among the K ready tasks of highest upward rank and the GPU.
    #[serde(default)]
    pub ready_tasks: usize,
}

/// The second source of a mixed workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DagMix {
    /// The probability that an episode's DAGs come from here.
    pub share: f64,
    pub dags: DagSource,
}

/// Where an episode's DAGs come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum DagSource {
    /// [`layered`] DAGs of `tasks` tasks.
    Layered {
        tasks: usize,
        #[serde(default = "default_ccr")]
        ccr: f64,
        /// Width over height of the layers.
        #[serde(default = "one")]
        shape: f64,
        #[serde(default = "three")]
        max_parents: usize,
        #[serde(default)]
        task: TaskDraw,
    },
    /// [`fork_join`] DAGs of `tasks` tasks forking `width` ways.
    ForkJoin {
        tasks: usize,
        width: usize,
        #[serde(default = "default_ccr")]
        ccr: f64,
        #[serde(default)]
        task: TaskDraw,
    },
    /// Alibaba v2018 batch DAG jobs (`batch_task` rows): consecutive jobs by arrival, from
    /// a seeded start, until at least `tasks` tasks. A task runs its trace duration on a
    /// speed-1 GPU, of its type letter as kind, needing `plan_mem` percent of
    /// `machine_memory_gb`.
    Alibaba {
        trace: String,
        tasks: usize,
        #[serde(default = "default_ccr")]
        ccr: f64,
        /// `batch`: every job released at 0 (the makespan of a batch); `trace`: released at
        /// its arrival in the trace, relative to the first drawn job's.
        #[serde(default)]
        arrivals: Arrivals,
        #[serde(default = "default_machine_memory")]
        machine_memory_gb: f64,
        /// Only jobs arriving in `[arrival_from_s, arrival_until_s)` seconds of the trace: a
        /// period of it (a training period and a later, held-out one).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arrival_from_s: Option<f64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arrival_until_s: Option<f64>,
    },
}

impl DagSource {
    /// Its section under `dags` in a workload file (`dags.layered.tasks`, ...).
    pub fn section(&self) -> &'static str {
        match self {
            DagSource::Layered { .. } => "layered",
            DagSource::ForkJoin { .. } => "fork-join",
            DagSource::Alibaba { .. } => "alibaba",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Arrivals {
    #[default]
    Batch,
    Trace,
}

fn default_ccr() -> f64 {
    1.0
}
fn one() -> f64 {
    1.0
}
fn three() -> usize {
    3
}
fn default_machine_memory() -> f64 {
    96.0
}

/// One DAG job of the trace: name, arrival and its tasks with parents as indices.
#[derive(Debug, Clone)]
pub struct TraceJob {
    pub name: String,
    pub arrival_s: f64,
    /// `(task name, kind, duration_s, plan_mem)`.
    pub tasks: Vec<(String, String, f64, f64)>,
    pub edges: Vec<(usize, usize)>,
}

/// A loaded, validated DAG workload.
#[derive(Debug, Clone)]
pub struct DagWorkload {
    pub spec: DagWorkloadSpec,
    pub path: PathBuf,
    pub platform: Platform,
    /// The trace's DAG jobs in arrival order (Alibaba sources).
    pub trace_jobs: Vec<TraceJob>,
    /// What loading left out and why.
    pub notes: Vec<String>,
}

/// A `[mix]` section: a probability, a valid second source, and at most one trace between
/// the two sources.
fn check_mix(path: &Path, spec: &DagWorkloadSpec) -> Result<()> {
    let Some(mix) = &spec.mix else {
        return Ok(());
    };
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    if !(0.0..=1.0).contains(&mix.share) {
        return bad("mix.share", format!("{} is not a probability", mix.share));
    }
    check_source(path, "mix.dags", &mix.dags)?;
    if matches!(
        (&spec.dags, &mix.dags),
        (DagSource::Alibaba { .. }, DagSource::Alibaba { .. })
    ) {
        return bad("mix.dags", "one of the two sources may read a trace".into());
    }
    Ok(())
}

impl DagWorkload {
    /// Reads a DAG workload with `key.path=value` overrides and checks it whole.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<DagWorkload> {
        let spec: DagWorkloadSpec = crate::workload_file::load_as(path, overrides)?;
        let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
        if spec.kind != "dag" {
            return bad(
                "kind",
                format!("`{}`: a DAG workload says kind = \"dag\"", spec.kind),
            );
        }
        let platform = spec.platform.compile(path)?;
        check_source(path, "dags", &spec.dags)?;
        check_memory(path, &spec, platform.gpus())?;
        check_mix(path, &spec)?;
        let mut workload = DagWorkload {
            spec,
            path: path.to_owned(),
            platform,
            trace_jobs: Vec::new(),
            notes: Vec::new(),
        };
        if let Some((
            key,
            DagSource::Alibaba {
                trace,
                arrival_from_s,
                arrival_until_s,
                ..
            },
        )) = workload.trace_source()
        {
            let trace = crate::workload_file::resolve(path, trace);
            let (jobs, mut notes) = read_trace_jobs(&trace)?;
            let (from, until) = (
                arrival_from_s.unwrap_or(f64::NEG_INFINITY),
                arrival_until_s.unwrap_or(f64::INFINITY),
            );
            let all = jobs.len();
            let jobs: Vec<TraceJob> = jobs
                .into_iter()
                .filter(|j| (from..until).contains(&j.arrival_s))
                .collect();
            if jobs.is_empty() {
                return bad(
                    &format!("{key}.alibaba.arrival_from_s"),
                    format!(
                        "no job of {} arrives in [{from}, {until}) s",
                        trace.display()
                    ),
                );
            }
            if jobs.len() < all {
                notes.push(format!(
                    "{} of {all} DAG jobs arrive in [{from}, {until}) s and are drawn",
                    jobs.len()
                ));
            }
            workload.trace_jobs = jobs;
            workload.notes = notes;
            // every drawn job must be schedulable on this platform
            for job in &workload.trace_jobs {
                Problem::new(workload.job_dag(job, 0.0), &workload.platform).map_err(|e| {
                    EnvError::config(&trace, format!("job {}", job.name), e.to_string())
                })?;
            }
        }
        // a draw must compile: the generators' memory against the platform
        Problem::new(workload.draw(0), &workload.platform)
            .map_err(|e| EnvError::config(path, "dags", e.to_string()))?;
        Ok(workload)
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The source that reads a trace, and its key (`dags` or `mix.dags`).
    fn trace_source(&self) -> Option<(&'static str, &DagSource)> {
        std::iter::once(("dags", &self.spec.dags))
            .chain(self.spec.mix.iter().map(|mix| ("mix.dags", &mix.dags)))
            .find(|(_, source)| matches!(source, DagSource::Alibaba { .. }))
    }

    /// The most tasks an episode can hold.
    pub fn max_tasks(&self) -> usize {
        let of = |source: &DagSource| match source {
            DagSource::Layered { tasks, .. } | DagSource::ForkJoin { tasks, .. } => *tasks,
            DagSource::Alibaba { tasks, .. } => {
                let largest = self
                    .trace_jobs
                    .iter()
                    .map(|j| j.tasks.len())
                    .max()
                    .unwrap_or(0);
                tasks + largest
            }
        };
        let mixed = self.spec.mix.as_ref().map_or(0, |mix| of(&mix.dags));
        of(&self.spec.dags).max(mixed)
    }

    /// The instance of episode `seed`: the same seed, the same DAGs and data.
    pub fn instance(&self, seed: u64) -> Problem {
        Problem::new(self.draw(seed), &self.platform).expect("draws are checked at load")
    }

    fn draw(&self, seed: u64) -> Dag {
        let mut rng = StdRng::seed_from_u64(seed ^ 0xda9_da9);
        // a workload without a mix draws exactly as before mixes existed
        let source = match &self.spec.mix {
            Some(mix) if rng.random::<f64>() < mix.share => &mix.dags,
            _ => &self.spec.dags,
        };
        let structure_seed = rng.random();
        let (mut dag, ccr) = match source {
            DagSource::Layered {
                tasks,
                ccr,
                shape,
                max_parents,
                task,
            } => (
                layered(*tasks, *shape, *max_parents, task, structure_seed),
                *ccr,
            ),
            DagSource::ForkJoin {
                tasks,
                width,
                ccr,
                task,
            } => (fork_join(*tasks, *width, task, structure_seed), *ccr),
            DagSource::Alibaba {
                tasks,
                ccr,
                arrivals,
                ..
            } => (self.draw_trace(*tasks, *arrivals, &mut rng), *ccr),
        };
        set_edge_data(&mut dag, &self.platform, ccr, &mut rng);
        dag
    }

    fn draw_trace(&self, tasks: usize, arrivals: Arrivals, rng: &mut StdRng) -> Dag {
        let jobs = &self.trace_jobs;
        let mut at = rng.random_range(0..jobs.len());
        let first_arrival = jobs[at].arrival_s;
        let mut dag = Dag::default();
        while dag.tasks.len() < tasks {
            let job = &jobs[at % jobs.len()];
            // past the trace's end, wrap around one trace length later
            let lap = (at / jobs.len()) as f64
                * (jobs[jobs.len() - 1].arrival_s - jobs[0].arrival_s + 1.0);
            let release = match arrivals {
                Arrivals::Batch => 0.0,
                Arrivals::Trace => job.arrival_s + lap - first_arrival,
            };
            append(&mut dag, self.job_dag(job, release));
            at += 1;
        }
        dag
    }

    /// One trace job as a DAG of its own (edge data still zero; checked against the platform
    /// once, at load).
    fn job_dag(&self, job: &TraceJob, release_s: f64) -> Dag {
        let Some((
            _,
            DagSource::Alibaba {
                machine_memory_gb, ..
            },
        )) = self.trace_source()
        else {
            unreachable!("trace jobs come from Alibaba sources")
        };
        Dag {
            jobs: vec![job.name.clone()],
            tasks: job
                .tasks
                .iter()
                .map(|(name, kind, duration, plan_mem)| Task {
                    name: format!("{}/{name}", job.name),
                    job: 0,
                    kind: kind.clone(),
                    work_s: *duration,
                    memory_gb: plan_mem / 100.0 * machine_memory_gb,
                    release_s,
                    times_s: None,
                })
                .collect(),
            edges: job
                .edges
                .iter()
                .map(|&(from, to)| Edge {
                    from,
                    to,
                    data_mb: 0.0,
                })
                .collect(),
        }
    }
}

/// Appends `part`'s tasks, edges and jobs to `dag`.
fn append(dag: &mut Dag, part: Dag) {
    let (offset, job_offset) = (dag.tasks.len(), dag.jobs.len());
    dag.jobs.extend(part.jobs);
    dag.tasks.extend(part.tasks.into_iter().map(|mut t| {
        t.job += job_offset;
        t
    }));
    dag.edges.extend(part.edges.into_iter().map(|e| Edge {
        from: e.from + offset,
        to: e.to + offset,
        data_mb: e.data_mb,
    }));
}

/// Checks one source's values; `key` is where it sits (`dags` or `mix.dags`).
/// Refuses a workload whose episode would outgrow the memory budget: each task keeps its
/// run time on every GPU (`Problem`'s table), and its own record, edges and schedule entry
/// (about a kilobyte with its name, measured with `workload validate`); every pair of GPUs
/// keeps its transfer time per megabyte (found by fuzz/fuzz_targets/workload_sizes.rs).
fn check_memory(path: &Path, spec: &DagWorkloadSpec, gpus: usize) -> Result<()> {
    let sources = std::iter::once(("dags", &spec.dags))
        .chain(spec.mix.iter().map(|mix| ("mix.dags", &mix.dags)));
    let gpus_u = gpus as u64;
    for (key, source) in sources {
        let tasks = match source {
            DagSource::Layered { tasks, .. }
            | DagSource::ForkJoin { tasks, .. }
            | DagSource::Alibaba { tasks, .. } => *tasks as u64,
        };
        let estimate = tasks * gpus_u * 16 + tasks * 1024 + gpus_u * gpus_u * 16;
        limits::check_memory(
            path,
            &format!("{key}.{}.tasks", source.section()),
            format!("{tasks} tasks on {gpus} GPUs"),
            estimate,
        )?;
    }
    Ok(())
}

fn check_source(path: &Path, key: &str, source: &DagSource) -> Result<()> {
    let bad = |field: &str, message: String| {
        Err(EnvError::config(
            path,
            format!("{key}.{}{field}", source.section()),
            message,
        ))
    };
    let (tasks, ccr) = match source {
        DagSource::Layered {
            tasks,
            ccr,
            shape,
            max_parents,
            task,
        } => {
            if !(shape.is_finite() && *shape > 0.0) || *max_parents == 0 {
                return bad(
                    "",
                    "shape must be positive and max_parents at least 1".into(),
                );
            }
            check_draw(path, &format!("{key}.layered.task"), task)?;
            (*tasks, *ccr)
        }
        DagSource::ForkJoin {
            tasks,
            width,
            ccr,
            task,
        } => {
            if *width == 0 {
                return bad(".width", "a fork needs a width".into());
            }
            check_draw(path, &format!("{key}.fork-join.task"), task)?;
            (*tasks, *ccr)
        }
        DagSource::Alibaba {
            tasks,
            ccr,
            machine_memory_gb,
            arrival_from_s,
            arrival_until_s,
            ..
        } => {
            if !(machine_memory_gb.is_finite() && *machine_memory_gb > 0.0) {
                return bad(".machine_memory_gb", format!("{machine_memory_gb}"));
            }
            if let (Some(from), Some(until)) = (arrival_from_s, arrival_until_s)
                && from.partial_cmp(until) != Some(std::cmp::Ordering::Less)
            {
                return bad(
                    ".arrival_until_s",
                    format!("{until} is not after arrival_from_s = {from}"),
                );
            }
            (*tasks, *ccr)
        }
    };
    if tasks == 0 {
        return bad(".tasks", "an episode needs a task".into());
    }
    if !(ccr.is_finite() && ccr >= 0.0) {
        return bad(".ccr", format!("{ccr} is not a non-negative ratio"));
    }
    Ok(())
}

fn check_draw(path: &Path, key: &str, draw: &TaskDraw) -> Result<()> {
    let range_ok = |[low, high]: [f64; 2], least: f64| {
        low.is_finite() && high.is_finite() && low >= least && high >= low
    };
    if !range_ok(draw.work_s, f64::MIN_POSITIVE)
        || !range_ok(draw.memory_gb, 0.0)
        || draw.kinds.is_empty()
    {
        return Err(EnvError::config(
            path,
            key,
            format!(
                "work_s {:?} must be positive, memory_gb {:?} non-negative (low <= high), kinds non-empty",
                draw.work_s, draw.memory_gb
            ),
        ));
    }
    Ok(())
}

/// The trace's DAG jobs in arrival order (a job arrives when its first task started), with
/// notes on what was left out: tasks that never ran, duplicate task ids, dependencies on
/// tasks the table lacks.
fn read_trace_jobs(path: &Path) -> Result<(Vec<TraceJob>, Vec<String>)> {
    let (rows, stats) = load_v2018_tasks(path)?;
    let mut notes = vec![stats.to_string()];
    let mut by_job: std::collections::BTreeMap<&str, Vec<&crate::cluster::TraceTask>> =
        Default::default();
    for row in &rows {
        by_job.entry(&row.job).or_default().push(row);
    }
    let (mut duplicates, mut dangling, mut cut, mut self_loops, mut repeated) = (0, 0, 0, 0, 0);
    let mut jobs = Vec::new();
    for (name, rows) in by_job {
        let parsed: Vec<_> = rows
            .iter()
            .map(|r| (parse_task_name(&r.name), *r))
            .collect();
        let mut ids: Vec<&str> = Vec::new();
        let mut tasks = Vec::new();
        for (task_name, row) in &parsed {
            if ids.contains(&task_name.id.as_str()) {
                duplicates += 1;
                continue;
            }
            ids.push(&task_name.id);
            let kind = if task_name.id == row.name {
                "task".to_owned()
            } else {
                row.name
                    .chars()
                    .take_while(char::is_ascii_alphabetic)
                    .collect()
            };
            tasks.push((
                row.name.clone(),
                kind,
                (row.end - row.start).max(1.0),
                row.plan_mem,
            ));
        }
        let mut edges = Vec::new();
        let mut seen = vec![false; ids.len()];
        for (task_name, _) in &parsed {
            let to = ids
                .iter()
                .position(|&i| i == task_name.id)
                .expect("kept above");
            if std::mem::replace(&mut seen[to], true) {
                continue;
            }
            cut += usize::from(task_name.truncated);
            for p in &task_name.parents {
                match ids.iter().position(|&i| i == p) {
                    Some(from) if from == to => self_loops += 1,
                    Some(from) if !edges.contains(&(from, to)) => edges.push((from, to)),
                    Some(_) => repeated += 1,
                    None => dangling += 1,
                }
            }
        }
        let arrival_s = rows.iter().map(|r| r.start).fold(f64::INFINITY, f64::min);
        jobs.push(TraceJob {
            name: name.to_owned(),
            arrival_s,
            tasks,
            edges,
        });
    }
    jobs.sort_by(|a, b| {
        a.arrival_s
            .total_cmp(&b.arrival_s)
            .then(a.name.cmp(&b.name))
    });
    notes.push(format!(
        "{} DAG jobs; {duplicates} duplicate task ids kept once; {dangling} dependencies on tasks not in the table removed; {cut} names cut at 50 characters lost their last dependency; {self_loops} dependencies of a task on itself and {repeated} repeated ones removed",
        jobs.len()
    ));
    Ok((jobs, notes))
}
