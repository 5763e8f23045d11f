//! One run of a real job, from a start (or restart) to its end or its preemption: worker
//! processes in its containers' groups, the parameters resumed from its checkpoint, and
//! synchronous data-parallel SGD on its template's model and data (each worker computes a
//! real gradient on its share of the batch and burns its share of the iteration's CPU time;
//! the thread averages the gradients and steps). A preemption kills the workers, and the
//! thread writes the checkpoint of the last complete iteration before it ends; a completed
//! run writes its final one. The workers are processes this one starts, or the tasks of a
//! Slurm job that the start releases (`slurm_run.rs`).

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::Child;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::checkpoint::Checkpoint;
use super::slurm_run::{SlurmStart, SlurmStartTimes};
use crate::error::{EnvError, Result};
use crate::real::cgroup::{ContainerGroup, Group};
use crate::real::connect::{StartFailure, WorkerListener};
use crate::real::messages::{FromWorker, ToWorker};
use crate::real::process;
use crate::real::wire::{receive, send};
use crate::single_job::scenario::Scenario;
use crate::single_job::sim::rules::Shard;

/// What a job trains, fixed for an episode.
pub struct JobPlan {
    pub id: String,
    pub scenario: Arc<Scenario>,
    pub seed: u64,
    pub iterations: u64,
    /// CPU seconds of one iteration, all workers together.
    pub cpu_per_iteration: f64,
}

/// What a run tells the cluster; `run` tells a job's runs apart.
#[derive(Debug)]
pub enum Event {
    /// The first iteration began `cost_s` wall seconds after the start was asked for; what
    /// Slurm measured of the start, where Slurm started it.
    Resumed {
        job: usize,
        run: u32,
        cost_s: f64,
        slurm: Option<SlurmStartTimes>,
    },
    Finished {
        job: usize,
        run: u32,
        at: Instant,
    },
    Failed {
        job: usize,
        run: u32,
        message: String,
    },
}

/// Where a run's workers come from.
pub enum Launch {
    /// Processes this one starts, in the containers' groups (memory limits set).
    Local(Vec<ContainerGroup>),
    /// The tasks of a held Slurm job, placed and released by the start.
    Slurm(SlurmStart),
}

/// A job's run in progress.
pub struct JobRun {
    stop: Arc<AtomicBool>,
    finished: Arc<AtomicBool>,
    pids: Arc<Mutex<Vec<u32>>>,
    thread: Option<JoinHandle<()>>,
    groups: Arc<Mutex<Vec<Group>>>,
    /// Whether a Slurm job was released; locked while the thread releases it.
    released: Arc<Mutex<bool>>,
}

/// What the run's thread reads.
struct Context {
    job: usize,
    run: u32,
    plan: Arc<JobPlan>,
    launch: Launch,
    checkpoint: PathBuf,
    progress: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    pids: Arc<Mutex<Vec<u32>>>,
    /// The run's groups, to remove at its end.
    groups: Arc<Mutex<Vec<Group>>>,
    released: Arc<Mutex<bool>>,
    asked: Instant,
}

impl JobRun {
    /// Starts run `run` of job `job` as `launch` says; its completed iterations go to
    /// `progress`, its news to `events`.
    pub fn start(
        (job, run): (usize, u32),
        plan: Arc<JobPlan>,
        launch: Launch,
        checkpoint: PathBuf,
        progress: Arc<AtomicU64>,
        events: Sender<Event>,
    ) -> JobRun {
        let stop = Arc::new(AtomicBool::new(false));
        let finished = Arc::new(AtomicBool::new(false));
        let pids = Arc::new(Mutex::new(Vec::new()));
        let groups = match &launch {
            Launch::Local(containers) => containers.iter().map(|c| c.group.clone()).collect(),
            Launch::Slurm(_) => Vec::new(),
        };
        let groups = Arc::new(Mutex::new(groups));
        let released = Arc::new(Mutex::new(false));
        let context = Context {
            job,
            run,
            plan,
            launch,
            checkpoint,
            progress,
            stop: Arc::clone(&stop),
            pids: Arc::clone(&pids),
            groups: Arc::clone(&groups),
            released: Arc::clone(&released),
            asked: Instant::now(),
        };
        let done = Arc::clone(&finished);
        let thread = std::thread::spawn(move || {
            let mut children = Vec::new();
            let outcome = train(&context, &events, &mut children);
            for child in &mut children {
                process::kill(child.id());
                // reaps it; an error only means it was reaped already
                let _ = child.wait();
            }
            let event = match outcome {
                Ok(true) => {
                    done.store(true, Ordering::SeqCst);
                    Event::Finished {
                        job,
                        run,
                        at: Instant::now(),
                    }
                }
                Ok(_) => return,
                Err(e) => Event::Failed {
                    job,
                    run,
                    message: e.to_string(),
                },
            };
            // the cluster is gone when its episode ended first
            let _ = events.send(event);
        });
        JobRun {
            stop,
            finished,
            pids,
            thread: Some(thread),
            groups,
            released,
        }
    }

    /// Ends a run whose workers a Slurm job runs: stopped first, so that a release not made
    /// yet is not made, then preempted through Slurm with `preempt` (its processes signalled,
    /// the checkpoint written as the workers go) unless it completed, then ended.
    pub fn end_through(self, preempt: impl FnOnce() -> Result<()>) -> Result<()> {
        self.stop.store(true, Ordering::SeqCst);
        let preempted = if *lock(&self.released) && !self.finished() {
            preempt()
        } else {
            Ok(())
        };
        let ended = self.end();
        preempted.and(ended)
    }

    /// Whether the run completed its iterations.
    pub fn finished(&self) -> bool {
        self.finished.load(Ordering::SeqCst)
    }

    /// Ends the run: a preemption, when it is still training (its checkpoint is written
    /// before this returns); its processes and groups are removed.
    pub fn end(mut self) -> Result<()> {
        self.halt();
        let groups = std::mem::take(&mut *lock(&self.groups));
        groups.into_iter().try_for_each(|g| g.remove())
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for &pid in lock(&self.pids).iter() {
            process::kill(pid);
        }
        if let Some(thread) = self.thread.take() {
            // a panic in the thread has printed itself; the groups go all the same
            let _ = thread.join();
        }
    }
}

impl Drop for JobRun {
    fn drop(&mut self) {
        self.halt();
        let groups = std::mem::take(&mut *lock(&self.groups));
        for group in groups {
            if let Err(e) = group.remove() {
                eprintln!("real execution: {e}");
            }
        }
    }
}

/// The run's work: true when the job completed its iterations, false when it was stopped.
/// Either way its checkpoint is written last.
fn train(context: &Context, events: &Sender<Event>, children: &mut Vec<Child>) -> Result<bool> {
    let plan = &context.plan;
    let Some((mut streams, containers, slurm)) = launch(context, children)? else {
        return Ok(false);
    };
    let (mut iteration, mut params) = match Checkpoint::load(&context.checkpoint, &plan.id)? {
        Some(c) => (c.iteration, c.params),
        None => (
            0,
            plan.scenario
                .model
                .init_params(&mut StdRng::seed_from_u64(plan.seed)),
        ),
    };
    for c in &containers {
        c.group.set_cpu(Some(c.cores))?;
    }
    let resumed = Event::Resumed {
        job: context.job,
        run: context.run,
        cost_s: context.asked.elapsed().as_secs_f64(),
        slurm,
    };
    // the cluster is gone when its episode ended first
    let _ = events.send(resumed);
    let n = streams.len();
    let rows = plan.scenario.workload.job.base_batch.div_ceil(n).max(1);
    let burn_cpu_s = plan.cpu_per_iteration / n as f64;
    let lr = plan.scenario.workload.job.lr as f32;
    while iteration < plan.iterations && !context.stop.load(Ordering::SeqCst) {
        let work = |index| ToWorker::Work {
            version: iteration,
            epoch: 0,
            batch: rows,
            shard: Shard { index, of: n },
            burn_cpu_s,
        };
        match one_iteration(&mut streams, work, &params) {
            Ok(sum) => {
                let scale = lr / n as f32;
                params
                    .iter_mut()
                    .zip(&sum)
                    .for_each(|(p, g)| *p -= scale * g);
                iteration += 1;
                context.progress.store(iteration, Ordering::SeqCst);
            }
            Err(_) if context.stop.load(Ordering::SeqCst) => break,
            Err(e) => {
                return Err(EnvError::RealExecution {
                    message: format!("job {} at iteration {iteration}: {e}", plan.id),
                });
            }
        }
    }
    // a preempted job resumes from here; a finished one leaves its trained model
    let stopped = iteration < plan.iterations;
    Checkpoint { iteration, params }.save(&context.checkpoint, &plan.id)?;
    Ok(!stopped)
}

/// One synchronous iteration: every worker's gradient at `params` (on the work `work` gives its index), summed.
fn one_iteration(
    streams: &mut [TcpStream],
    work: impl Fn(usize) -> ToWorker,
    params: &[f32],
) -> std::io::Result<Vec<f32>> {
    for (index, stream) in streams.iter_mut().enumerate() {
        match receive::<FromWorker>(stream)? {
            (FromWorker::Pull, _) => send(stream, &work(index), params)?,
            _ => return Err(std::io::Error::other("a worker spoke out of turn")),
        }
    }
    let mut sum = vec![0.0f32; params.len()];
    for (index, stream) in streams.iter_mut().enumerate() {
        let (push, grad) = receive::<FromWorker>(stream)?;
        match push {
            FromWorker::Push { finite: true, .. } if grad.len() == sum.len() => {
                sum.iter_mut().zip(&grad).for_each(|(s, g)| *s += g);
            }
            FromWorker::Push { finite: false, .. } => {
                return Err(std::io::Error::other(format!(
                    "worker {index} computed a non-finite gradient (lower the template workload's job.lr)"
                )));
            }
            _ => {
                return Err(std::io::Error::other(format!(
                    "worker {index} pushed no gradient"
                )));
            }
        }
    }
    Ok(sum)
}

/// The run's workers, connected and set up, in their containers' groups; with what Slurm
/// measured where Slurm started them. `None` when the run was stopped meanwhile. Workers
/// load under their machine's quota only: a container's own slice of a core would stretch
/// loading the binary and the data to seconds.
type Launched = (Vec<TcpStream>, Vec<ContainerGroup>, Option<SlurmStartTimes>);

fn launch(context: &Context, children: &mut Vec<Child>) -> Result<Option<Launched>> {
    let plan = &context.plan;
    let named = |failure| EnvError::RealExecution {
        message: format!("job {}: {}", plan.id, start_failure(failure)),
    };
    let stopped = || context.stop.load(Ordering::SeqCst);
    let setup = (&*plan.scenario, plan.seed);
    match &context.launch {
        Launch::Local(containers) => {
            let listener = WorkerListener::bind()?;
            for (index, container) in containers.iter().enumerate() {
                let child = listener.spawn_worker(index)?;
                lock(&context.pids).push(child.id());
                container.group.add(child.id())?;
                children.push(child);
            }
            let exited = || match children
                .iter_mut()
                .find_map(|c| c.try_wait().ok().flatten())
            {
                Some(status) => Err(StartFailure::Connecting(format!(
                    "a worker exited at the start: {status}"
                ))),
                None => Ok(()),
            };
            let connected = listener.connect(containers.len(), setup, exited, stopped);
            Ok(connected
                .map_err(named)?
                .map(|c| (c.streams, containers.clone(), None)))
        }
        Launch::Slurm(start) => {
            let listener = WorkerListener::bind_on(start.address)?;
            let mut released = lock(&context.released);
            if stopped() {
                return Ok(None);
            }
            let mut times = start.release(listener.address())?;
            *released = true;
            drop(released);
            let released = Instant::now();
            let n = start.containers();
            let connected = listener.connect(n, setup, start.watch(), stopped);
            let Some(connected) = connected.map_err(named)? else {
                return Ok(None);
            };
            times.release_to_workers_s = released.elapsed().as_secs_f64();
            lock(&context.pids).extend(&connected.pids);
            let groups = start.settle(&connected.pids, &context.groups)?;
            start.check_placement(&mut times)?;
            Ok(Some((connected.streams, groups, Some(times))))
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn start_failure(failure: StartFailure) -> String {
    match failure {
        StartFailure::Connecting(message) => message,
        StartFailure::Worker { index, error } => {
            format!("worker {index} went away at the start: {error}")
        }
    }
}
