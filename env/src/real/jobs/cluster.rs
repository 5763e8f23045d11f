//! [`RealCluster`]: one episode's jobs cluster on real processes, its machines (groups made
//! here, or a Slurm cluster's nodes) and each job's runs, and what it measured
//! ([`RealJobsReport`]).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::checkpoint;
use super::job_run::{Event, JobPlan, JobRun, Launch};
use super::slurm_run::{MIN_CONTAINER_MIB, SlurmJobs, SlurmStartTimes};
use crate::error::{EnvError, Result};
use crate::execution::{Execution, RealSpec};
use crate::jobs::{Container, GPU_MILLI, JobsWorkload, MILLI_PER_UNIT};
use crate::real::Turn;
use crate::real::cgroup::{ContainerGroup, Group, Hierarchy};
use crate::single_job::scenario::Scenario;

/// Wall seconds of one iteration of a job at its requested allocation.
pub const ITERATION_WALL_S: f64 = 0.25;
/// Iterations of a job, at least and at most.
const ITERATIONS: (u64, u64) = (4, 4000);

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
    /// Mean wall seconds a preemption or rescale of a running job held the scheduler before
    /// its next action: the run stopped and its checkpoint written (through Slurm, the job
    /// requeued first). Not in `restart_cost_s`, which counts from the new run's start.
    pub stop_wall_s: Option<f64>,
    /// Iterations the jobs completed, all runs together.
    pub iterations: u64,
    /// What Slurm measured, where Slurm ran the jobs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmReport>,
    /// Each start that reached its first iteration, in that order.
    pub start_records: Vec<StartRecord>,
}

/// One start and the starts it overlapped: how start costs grow with starts made together.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StartRecord {
    pub job: String,
    pub restart: bool,
    /// Wall seconds from the start's decision to its first iteration.
    pub cost_wall_s: f64,
    /// Starts not yet at their first iteration when this one was made, itself included: all
    /// of them, and those on a machine this one uses.
    pub in_flight: usize,
    pub in_flight_on_its_machines: usize,
}

/// A start waiting for its first iteration.
struct Starting {
    machines: Vec<u32>,
    in_flight: usize,
    in_flight_on_its_machines: usize,
}

/// The latencies Slurm added over an episode, in wall seconds, and where it ran each start.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SlurmReport {
    /// Each command's calls and mean wall seconds (`scontrol update`, `sbatch`, ...).
    pub commands: std::collections::BTreeMap<String, crate::real::slurm::CommandTiming>,
    /// Means over starts: the placement and release commands, release to every worker
    /// connected, and (restarts) the wait for a requeued job to be pending again.
    pub release_s: f64,
    pub release_to_workers_s: f64,
    pub requeue_s: Option<f64>,
    /// Each start: the job, the nodes the scheduler chose and those Slurm ran it on.
    pub placements: Vec<Placement>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Placement {
    pub job: String,
    pub chosen: Vec<String>,
    pub slurm: Vec<String>,
}

/// Where the episode's processes run.
enum Backend {
    /// Groups this process makes: the run's folder (`tag`) and one group per machine.
    Local { tag: u64, machines: Vec<Group> },
    /// A Slurm job per job, on the cluster's nodes.
    Slurm(SlurmJobs),
}

/// One episode's real cluster.
pub struct RealCluster {
    spec: RealSpec,
    started: Instant,
    backend: Backend,
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
    /// Each job's start waiting for its first iteration.
    starting: Vec<Option<Starting>>,
    start_records: Vec<StartRecord>,
    /// Wall seconds of each stop of a running job.
    stop_walls: Vec<f64>,
    /// Each start through Slurm: the job and what Slurm measured.
    slurm_starts: Vec<(usize, SlurmStartTimes)>,
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
        let tag = crate::real::next_run_tag();
        checkpoint::remove_stale_folders(&std::env::temp_dir());
        let checkpoints = std::env::temp_dir().join(format!(
            "{}{}-{tag}",
            checkpoint::FOLDER_PREFIX,
            std::process::id()
        ));
        std::fs::create_dir_all(&checkpoints).map_err(|e| EnvError::io(&checkpoints, e))?;
        let per_milli = rates(workload, spec.cores());
        let backend = match workload.execution {
            Execution::Slurm => {
                let name = format!("{}-{tag}", std::process::id());
                SlurmJobs::submit(workload, &checkpoints, name).map(Backend::Slurm)
            }
            _ => local_machines(workload, &spec, tag),
        };
        let backend = backend.inspect_err(|_| {
            std::fs::remove_dir_all(&checkpoints).ok();
        })?;
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
            backend,
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
            starting: (0..jobs).map(|_| None).collect(),
            start_records: Vec::new(),
            stop_walls: Vec::new(),
            slurm_starts: Vec::new(),
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
        let Some(run) = self.runs[job].take() else {
            return;
        };
        self.starting[job] = None;
        let begun = Instant::now();
        let ended = match &self.backend {
            Backend::Local { .. } => run.end(),
            Backend::Slurm(slurm) => run.end_through(|| slurm.preempt(job)),
        };
        self.stop_walls.push(begun.elapsed().as_secs_f64());
        if let Err(e) = ended {
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
        let machines: Vec<u32> = containers.iter().map(|c| c.machine).collect();
        let waiting = self.starting.iter().flatten();
        let shares = |other: &Starting| other.machines.iter().any(|m| machines.contains(m));
        self.starting[job] = Some(Starting {
            in_flight: waiting.clone().count() + 1,
            in_flight_on_its_machines: waiting.filter(|other| shares(other)).count() + 1,
            machines,
        });
        let limits = containers.iter().map(|c| {
            let mib = (c.mem as f64 * self.spec.mem_mb_per_gb / 1024.0) as u64;
            let cores = container_cores(self.per_milli, c.cpu, c.gpu_milli());
            (cores, mib.max(MIN_CONTAINER_MIB))
        });
        let launch = match &self.backend {
            Backend::Local { machines, .. } => Launch::Local(
                containers
                    .iter()
                    .zip(limits)
                    .enumerate()
                    .map(|(k, (c, (cores, mib)))| {
                        let machine = &machines[c.machine as usize];
                        let group = machine.child(&format!("job-{job}-run-{run}-{k}"))?;
                        group.set_memory(mib << 20)?;
                        Ok(ContainerGroup { group, cores })
                    })
                    .collect::<Result<Vec<_>>>()?,
            ),
            Backend::Slurm(slurm) => {
                Launch::Slurm(slurm.start((job, run), containers, limits.collect(), run > 1))
            }
        };
        self.runs[job] = Some(JobRun::start(
            (job, run),
            Arc::clone(&self.plans[job]),
            launch,
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
                Event::Resumed {
                    job,
                    run,
                    cost_s,
                    slurm,
                } if run == self.run_counts[job] => {
                    // none where the run was stopped as its news came
                    if let Some(starting) = self.starting[job].take() {
                        self.start_records.push(StartRecord {
                            job: self.plans[job].id.clone(),
                            restart: self.restarting[job],
                            cost_wall_s: cost_s,
                            in_flight: starting.in_flight,
                            in_flight_on_its_machines: starting.in_flight_on_its_machines,
                        });
                    }
                    self.slurm_starts.extend(slurm.map(|times| (job, times)));
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
        let mean = |costs: &[f64]| {
            (!costs.is_empty()).then(|| costs.iter().sum::<f64>() / costs.len() as f64)
        };
        let records = &self.start_records;
        let costs: Vec<f64> = records.iter().map(|r| r.cost_wall_s).collect();
        let all = mean(&costs).unwrap_or(0.0);
        let restarts: Vec<f64> = records
            .iter()
            .filter(|r| r.restart)
            .map(|r| r.cost_wall_s)
            .collect();
        RealJobsReport {
            starts: self.run_counts.iter().map(|&r| r as usize).sum(),
            restarts: self.restarts,
            start_cost_wall_s: all,
            start_cost_s: all / self.spec.time_scale,
            restart_cost_s: mean(&restarts).map(|c| c / self.spec.time_scale),
            stop_wall_s: mean(&self.stop_walls),
            iterations: self.progress.iter().map(|p| p.load(Ordering::SeqCst)).sum(),
            slurm: match &self.backend {
                Backend::Slurm(slurm) => Some(self.slurm_report(slurm)),
                Backend::Local { .. } => None,
            },
            start_records: records.clone(),
        }
    }

    fn slurm_report(&self, slurm: &SlurmJobs) -> SlurmReport {
        let starts = &self.slurm_starts;
        let mean = |values: Vec<f64>| {
            (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
        };
        let of = |f: fn(&SlurmStartTimes) -> f64| mean(starts.iter().map(|(_, t)| f(t)).collect());
        let restarts = starts
            .iter()
            .filter(|(_, t)| t.requeue_s > 0.0)
            .map(|(_, t)| t.requeue_s)
            .collect();
        SlurmReport {
            commands: slurm.timings(),
            release_s: of(|t| t.release_s).unwrap_or(0.0),
            release_to_workers_s: of(|t| t.release_to_workers_s).unwrap_or(0.0),
            requeue_s: mean(restarts),
            placements: starts
                .iter()
                .map(|(job, t)| Placement {
                    job: self.plans[*job].id.clone(),
                    chosen: t.chosen.clone(),
                    slurm: t.nodes.clone(),
                })
                .collect(),
        }
    }

    fn checkpoint_path(&self, job: usize) -> PathBuf {
        self.checkpoints.join(format!("job-{job}.ckpt"))
    }
}

impl Drop for RealCluster {
    fn drop(&mut self) {
        self.runs.iter_mut().filter_map(Option::take).for_each(drop);
        if let Backend::Local { tag, .. } = self.backend
            && let Err(e) = crate::real::remove_run(tag)
        {
            eprintln!("real execution: {e}");
        }
        std::fs::remove_dir_all(&self.checkpoints).ok();
    }
}

/// The run's folder of groups (removed with the run) and one group per machine, its CPU
/// quota the machine's share of `real.cores` and its memory limit its memory.
fn local_machines(workload: &JobsWorkload, spec: &RealSpec, tag: u64) -> Result<Backend> {
    let hierarchy = Hierarchy::detect(spec.cgroup_root.as_deref())?;
    let run = hierarchy.create_run(tag)?;
    crate::real::register(tag, run.clone());
    let per_milli = rates(workload, spec.cores());
    let machines = workload
        .machines
        .iter()
        .flat_map(|m| std::iter::repeat_n(m, m.count));
    let made = run.set_cpu(None).and_then(|()| {
        machines
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
            .collect::<Result<Vec<_>>>()
    });
    match made {
        Ok(machines) => Ok(Backend::Local { tag, machines }),
        Err(e) => {
            crate::real::remove_run(tag)?;
            Err(e)
        }
    }
}

/// Real cores per GPU-milli and per CPU-milli: `cores` shared out over the cluster's GPUs,
/// and over its CPU cores.
fn rates(workload: &JobsWorkload, cores: f64) -> (f64, f64) {
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
    (per_gpu_milli, cores / cpu_milli.max(1.0))
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
