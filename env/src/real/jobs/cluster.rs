//! [`RealCluster`]: one episode's jobs cluster on real processes, its machines' groups and each
//! job's runs, and what it measured ([`RealJobsReport`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::checkpoint;
use super::job_run::{ContainerGroup, Event, JobPlan, JobRun};
use crate::error::{EnvError, Result};
use crate::execution::RealSpec;
use crate::jobs::{Container, GPU_MILLI, JobsWorkload, MILLI_PER_UNIT};
use crate::real::Turn;
use crate::real::cgroup::{Group, Hierarchy};
use crate::single_job::scenario::Scenario;

/// Wall seconds of one iteration of a job at its requested allocation.
pub const ITERATION_WALL_S: f64 = 0.25;
/// Iterations of a job, at least and at most.
const ITERATIONS: (u64, u64) = (4, 4000);
/// The least memory limit of a container: a worker process needs it to exist at all.
const MIN_CONTAINER_MIB: u64 = 256;

/// What real execution measured over an episode (in `JobsInfo::real` at its end).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RealJobsReport {
    /// Runs started: first starts and restarts after a rescale or a preemption.
    pub starts: usize,
    pub restarts: usize,
    /// Mean wall seconds from a start's decision to its first iteration (processes started,
    /// data loaded, checkpoint read), and the same in virtual seconds.
    pub start_cost_wall_s: f64,
    pub start_cost_s: f64,
    /// Mean virtual seconds from a running job's preemption or rescale to its first
    /// iteration again, where there were restarts.
    pub restart_cost_s: Option<f64>,
    /// Iterations the jobs completed, all runs together.
    pub iterations: u64,
}

/// One episode's real cluster.
pub struct RealCluster {
    spec: RealSpec,
    started: Instant,
    tag: u64,
    machines: Vec<Group>,
    /// Real cores per GPU-milli and per CPU-milli.
    per_milli: (f64, f64),
    plans: Vec<Arc<JobPlan>>,
    runs: Vec<Option<JobRun>>,
    /// Each job's completed iterations.
    progress: Vec<Arc<AtomicU64>>,
    /// Each job's runs so far; a run's events carry its number.
    run_counts: Vec<u32>,
    /// Whether each job's latest start is a restart.
    restarting: Vec<bool>,
    restarts: usize,
    checkpoints: PathBuf,
    sender: Sender<Event>,
    /// Behind a lock only so that the env stays `Sync` (one thread reads it).
    events: Mutex<Receiver<Event>>,
    start_costs: Vec<(f64, bool)>,
    /// The first error of a start or a stop, reported by the next [`RealCluster::wait`].
    failure: Option<EnvError>,
    _turn: Turn,
}

impl RealCluster {
    /// The cluster's groups and each job's plan; `speeds` are the jobs' speed factors and
    /// `templates[k]` template k's single-job workload.
    pub(crate) fn new(
        workload: &JobsWorkload,
        template_of: &[usize],
        templates: &[Arc<Scenario>],
        speeds: &[f64],
        seed: u64,
    ) -> Result<RealCluster> {
        let spec = workload.real.clone();
        let turn = Turn::take();
        let hierarchy = Hierarchy::detect(spec.cgroup_root.as_deref())?;
        let tag = crate::real::next_run_tag();
        let run = hierarchy.create_run(tag)?;
        crate::real::register(tag, run.clone());
        checkpoint::remove_stale_folders(&std::env::temp_dir());
        let checkpoints = std::env::temp_dir().join(format!(
            "{}{}-{tag}",
            checkpoint::FOLDER_PREFIX,
            std::process::id()
        ));
        let made = std::fs::create_dir_all(&checkpoints)
            .map_err(|e| EnvError::io(&checkpoints, e))
            .and_then(|()| machine_groups(&run, workload, &spec));
        let (machines, per_milli) = match made {
            Ok(made) => made,
            Err(e) => {
                crate::real::remove_run(tag)?;
                return Err(e);
            }
        };
        let plans = workload
            .jobs
            .iter()
            .enumerate()
            .map(|(i, job)| {
                let request = job.request();
                let cores = container_cores(per_milli, request[0], request[2]);
                let wall_s = job.duration_s / speeds[i] * spec.time_scale;
                let iterations =
                    ((wall_s / ITERATION_WALL_S).round() as u64).clamp(ITERATIONS.0, ITERATIONS.1);
                Arc::new(JobPlan {
                    id: job.id.clone(),
                    scenario: Arc::clone(&templates[template_of[i]]),
                    seed: seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    iterations,
                    cpu_per_iteration: job.workers as f64 * cores * wall_s / iterations as f64,
                })
            })
            .collect::<Vec<_>>();
        let (sender, events) = channel();
        let jobs = plans.len();
        Ok(RealCluster {
            spec,
            started: Instant::now(),
            tag,
            machines,
            per_milli,
            plans,
            runs: (0..jobs).map(|_| None).collect(),
            progress: (0..jobs).map(|_| Arc::new(AtomicU64::new(0))).collect(),
            run_counts: vec![0; jobs],
            restarting: vec![false; jobs],
            restarts: 0,
            checkpoints,
            sender,
            events: Mutex::new(events),
            start_costs: Vec::new(),
            failure: None,
            _turn: turn,
        })
    }

    fn virtual_at(&self, at: Instant) -> f64 {
        at.saturating_duration_since(self.started).as_secs_f64() / self.spec.time_scale
    }

    /// Runs job `job` on `containers`: a start, or a restart from its checkpoint when it
    /// runs now (its run is preempted first). An error waits for the next `wait`.
    pub fn start(&mut self, job: usize, containers: &[Container]) {
        if let Err(e) = self.try_start(job, containers) {
            self.failure.get_or_insert(e);
        }
    }

    /// Preempts job `job` if it runs: its checkpoint is on disk when this returns. An error
    /// waits for the next `wait`.
    pub fn stop(&mut self, job: usize) {
        if let Some(Err(e)) = self.runs[job].take().map(JobRun::end) {
            self.failure.get_or_insert(e);
        }
    }

    fn try_start(&mut self, job: usize, containers: &[Container]) -> Result<()> {
        let restart = self.runs[job].is_some();
        self.stop(job);
        self.restarting[job] = restart;
        self.restarts += usize::from(restart);
        self.run_counts[job] += 1;
        let run = self.run_counts[job];
        let groups = containers
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let group =
                    self.machines[c.machine as usize].child(&format!("job-{job}-run-{run}-{k}"))?;
                let mib = (c.mem as f64 * self.spec.mem_mb_per_gb / 1024.0) as u64;
                group.set_memory(mib.max(MIN_CONTAINER_MIB) << 20)?;
                Ok(ContainerGroup {
                    group,
                    cores: container_cores(self.per_milli, c.cpu, c.gpu_milli()),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        self.runs[job] = Some(JobRun::start(
            (job, run),
            Arc::clone(&self.plans[job]),
            groups,
            self.checkpoint_path(job),
            Arc::clone(&self.progress[job]),
            self.sender.clone(),
        ));
        Ok(())
    }

    /// Share of job `job`'s iterations completed.
    pub fn done_share(&self, job: usize) -> f64 {
        self.progress[job].load(Ordering::SeqCst) as f64 / self.plans[job].iterations as f64
    }

    /// Waits until a job completes or virtual time `until` comes: the job and when it
    /// completed, or `None` at `until`. A run's failure ends the wait with its error.
    pub fn wait(&mut self, until: f64) -> Result<Option<(usize, f64)>> {
        loop {
            if let Some(e) = self.failure.take() {
                return Err(e);
            }
            let deadline =
                self.started + Duration::from_secs_f64((until * self.spec.time_scale).min(1e9));
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return Ok(None);
            };
            let received = self
                .events
                .get_mut()
                .unwrap_or_else(|e| e.into_inner())
                .recv_timeout(left);
            let event = match received {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => unreachable!("the cluster holds a sender"),
            };
            match event {
                Event::Resumed { job, run, cost_s } if run == self.run_counts[job] => {
                    self.start_costs.push((cost_s, self.restarting[job]));
                }
                // a run stopped just as it completed is resumed later from its checkpoint
                Event::Finished { job, run, at }
                    if run == self.run_counts[job] && self.runs[job].is_some() =>
                {
                    self.runs[job].take().map_or(Ok(()), JobRun::end)?;
                    return Ok(Some((job, self.virtual_at(at))));
                }
                Event::Failed { job, run, message } if run == self.run_counts[job] => {
                    return Err(EnvError::RealExecution {
                        message: format!("{message} (job {})", self.plans[job].id),
                    });
                }
                // news of a run that was stopped since
                _ => {}
            }
        }
    }

    /// What the episode measured so far.
    pub fn report(&self) -> RealJobsReport {
        let mean = |costs: Vec<f64>| {
            (!costs.is_empty()).then(|| costs.iter().sum::<f64>() / costs.len() as f64)
        };
        let all = mean(self.start_costs.iter().map(|c| c.0).collect()).unwrap_or(0.0);
        let restarts: Vec<f64> = self
            .start_costs
            .iter()
            .filter(|c| c.1)
            .map(|c| c.0)
            .collect();
        RealJobsReport {
            starts: self.run_counts.iter().map(|&r| r as usize).sum(),
            restarts: self.restarts,
            start_cost_wall_s: all,
            start_cost_s: all / self.spec.time_scale,
            restart_cost_s: mean(restarts).map(|c| c / self.spec.time_scale),
            iterations: self.progress.iter().map(|p| p.load(Ordering::SeqCst)).sum(),
        }
    }

    fn checkpoint_path(&self, job: usize) -> PathBuf {
        self.checkpoints.join(format!("job-{job}.ckpt"))
    }
}

impl Drop for RealCluster {
    fn drop(&mut self) {
        self.runs.iter_mut().filter_map(Option::take).for_each(drop);
        if let Err(e) = crate::real::remove_run(self.tag) {
            eprintln!("real execution: {e}");
        }
        std::fs::remove_dir_all(&self.checkpoints).ok();
    }
}

/// One group per machine, its CPU quota the machine's share of `real.cores` and its memory
/// limit its memory; with the real cores per GPU-milli and per CPU-milli.
fn machine_groups(
    run: &Group,
    workload: &JobsWorkload,
    spec: &RealSpec,
) -> Result<(Vec<Group>, (f64, f64))> {
    run.set_cpu(None)?;
    let cores = spec.cores();
    let machines = workload
        .machines
        .iter()
        .flat_map(|m| std::iter::repeat_n(m, m.count));
    let gpu_milli: f64 = workload
        .machines
        .iter()
        .map(|m| (m.count as u64 * m.gpus as u64 * GPU_MILLI as u64) as f64)
        .sum();
    let cpu_milli: f64 = workload
        .machines
        .iter()
        .map(|m| m.count as f64 * m.cpu_cores * MILLI_PER_UNIT[0])
        .sum();
    let per_gpu_milli = if gpu_milli > 0.0 {
        cores / gpu_milli
    } else {
        0.0
    };
    let per_milli = (per_gpu_milli, cores / cpu_milli.max(1.0));
    let groups = machines
        .enumerate()
        .map(|(i, m)| {
            let group = run.child(&format!("machine-{i}"))?;
            group.delegate()?;
            let gpu = per_milli.0 * (m.gpus * GPU_MILLI) as f64;
            let cpu = per_milli.1 * m.cpu_cores * MILLI_PER_UNIT[0];
            group.set_cpu(Some(gpu.max(cpu)))?;
            group.set_memory(
                ((m.mem_gb * spec.mem_mb_per_gb) as u64).max(MIN_CONTAINER_MIB) << 20,
            )?;
            Ok(group)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((groups, per_milli))
}

/// A container's real cores: its GPU share where it holds GPUs, else its CPU share.
fn container_cores(
    (per_gpu_milli, per_cpu_milli): (f64, f64),
    cpu_milli: u32,
    gpu_milli: u32,
) -> f64 {
    if gpu_milli > 0 && per_gpu_milli > 0.0 {
        per_gpu_milli * gpu_milli as f64
    } else {
        per_cpu_milli * cpu_milli as f64
    }
}
