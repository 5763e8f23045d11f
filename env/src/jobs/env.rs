//! The multi-job cluster: jobs arrive on the virtual clock, wait in a queue, run on the
//! containers the scheduler gives them and finish when their work is done.
//!
//! Decision points are arrivals, completions and (optionally) a fixed interval. At one, the
//! policy may take several same-time steps: the clock moves on only after a step that
//! changes nothing, or after `max_steps_per_decision` steps. So a policy can start jobs one
//! at a time in its own order (Decima's sequential decisions) or many at once.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, LogNormal};
use serde::Serialize;

use super::cluster::{Cluster, Container, Placement};
use super::metrics::{Integrals, JobsMetrics, quantile, share};
use super::observe;
use super::real::RealJob;
use super::spec::{Fidelity, GPU_MILLI, JobsWorkload, MILLI_PER_UNIT, scaled_request};
use crate::error::{EnvError, Result};
use crate::gym::{ActionSpace, Environment, Observation, ObservationSpace, Step, StepInfo};
use crate::scenario::Scenario;

/// What `step` returns.
pub type JobsStep = Step<JobsInfo>;

#[derive(Debug, Clone, Serialize)]
pub struct JobsInfo {
    pub time_s: f64,
    pub decision_points: usize,
    pub waiting: usize,
    pub queued: usize,
    pub running: usize,
    pub finished: usize,
    /// Why each choice of the last step that the mask allowed was still refused.
    pub rejected: Vec<String>,
    /// The job id in each window slot of the observation (`None`: empty slot).
    pub window: Vec<Option<String>>,
    pub metrics: Option<JobsMetrics>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// Not arrived yet, or arrived with DAG parents still unfinished.
    Waiting,
    Queued,
    Running,
    Done,
}

/// A job's state in one episode.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    pub status: Status,
    pub arrived: bool,
    pub parents_left: u32,
    /// Work left at `anchor_s`, in request-seconds x speed-up.
    pub remaining: f64,
    pub work: f64,
    pub anchor_s: f64,
    pub paused_until: f64,
    /// Work per second at the current allocation (0 when not running).
    pub rate: f64,
    /// GPU-seconds (container-seconds without GPUs) received so far, at `anchor_s`.
    pub attained: f64,
    /// This job's speed factor in this episode.
    pub speed: f64,
    pub workers_level: usize,
    pub size_level: usize,
    pub containers: Vec<Container>,
    pub eligible_s: f64,
    pub first_start_s: Option<f64>,
    pub finish_s: Option<f64>,
    /// Bumped on every change of allocation, so stale heap and ring entries are skipped.
    pub version: u32,
}

impl Job {
    /// Work done from `anchor_s` to `now`.
    fn progress_until(&self, now: f64) -> f64 {
        self.rate * (now - self.anchor_s.max(self.paused_until)).max(0.0)
    }

    pub fn remaining_at(&self, now: f64) -> f64 {
        (self.remaining - self.progress_until(now)).max(0.0)
    }

    pub fn attained_at(&self, now: f64) -> f64 {
        self.attained + self.attention_weight() * (now - self.anchor_s).max(0.0)
    }

    fn attention_weight(&self) -> f64 {
        self.containers
            .iter()
            .map(|c| {
                let g = c.gpu_milli();
                if g > 0 {
                    g as f64 / GPU_MILLI as f64
                } else {
                    1.0
                }
            })
            .sum()
    }

    fn settle(&mut self, now: f64) {
        self.remaining = self.remaining_at(now);
        self.attained = self.attained_at(now);
        self.anchor_s = now;
    }
}

/// Totals as `f64` keys for the completion heap.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Time(f64);
impl Eq for Time {}
impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Time {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// What every episode of a workload shares: per-job template, DAG links, arrival order and
/// the empty cluster.
#[derive(Debug)]
pub(crate) struct Statics {
    pub template: Vec<usize>,
    pub children: Vec<Vec<u32>>,
    pub parents: Vec<u32>,
    /// Job indices by arrival time (stable).
    pub arrival_order: Vec<u32>,
    /// The empty cluster, with the workload's request shapes indexed; each episode copies it.
    pub empty_cluster: Cluster,
}

pub(crate) struct Episode {
    pub now: f64,
    pub jobs: Vec<Job>,
    pub cluster: Cluster,
    next_arrival: usize,
    next_tick: f64,
    completions: BinaryHeap<Reverse<(Time, u32, u32)>>,
    /// Queued jobs in queue order.
    pub queue: BTreeMap<u64, u32>,
    queue_key: Vec<u64>,
    next_key: u64,
    /// Running jobs in the order the window shows them (round-robin).
    running_ring: VecDeque<(u32, u32)>,
    pub counts: [usize; 4],
    used_rate: [f64; 3],
    sums: Integrals,
    reward_marks: (f64, f64),
    pub window: Vec<Option<u32>>,
    pub mask: Vec<bool>,
    steps_here: usize,
    decision_points: usize,
    steps: usize,
    rejected_total: usize,
    episode_return: f64,
    done: bool,
    /// The `real` fidelity's training run of each job.
    real_jobs: Vec<RealJob>,
}

impl Episode {
    /// Jobs whose arrival time has passed.
    pub fn arrived(&self) -> usize {
        self.next_arrival
    }
}

pub struct JobsEnv {
    workload: Arc<JobsWorkload>,
    /// Per template, the single-job workload the `real` fidelity trains.
    real: Option<Arc<Vec<Arc<Scenario>>>>,
    statics: Arc<Statics>,
    action_space: ActionSpace,
    observation_space: ObservationSpace,
    episode: Option<Episode>,
}

fn status_index(s: Status) -> usize {
    s as usize
}

impl JobsEnv {
    pub fn new(workload: Arc<JobsWorkload>) -> Self {
        let jobs = &workload.jobs;
        let index: std::collections::HashMap<&str, u32> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| (j.id.as_str(), i as u32))
            .collect();
        let mut children = vec![Vec::new(); jobs.len()];
        let mut parents = vec![0u32; jobs.len()];
        for (i, j) in jobs.iter().enumerate() {
            for parent in &j.after {
                children[index[parent.as_str()] as usize].push(i as u32);
                parents[i] += 1;
            }
        }
        let mut arrival_order: Vec<u32> = (0..jobs.len() as u32).collect();
        arrival_order.sort_by(|&a, &b| {
            jobs[a as usize]
                .arrival_s
                .total_cmp(&jobs[b as usize].arrival_s)
        });
        let template = jobs
            .iter()
            .map(|j| {
                workload
                    .templates
                    .iter()
                    .position(|t| t.name == j.template)
                    .expect("validated: every job names a template")
            })
            .collect();
        let shapes: Vec<[u32; 3]> = jobs.iter().map(|j| j.request()).collect();
        let slots = workload.window.slots();
        let action_space = ActionSpace {
            nodes: slots,
            levels: [
                workload.scaling.workers.len() + 1,
                workload.scaling.sizes.len(),
                Placement::ALL.len(),
            ],
        };
        let observation_space = ObservationSpace {
            nodes: slots,
            node_features: observe::SLOT_FEATURES,
            job_features: observe::CLUSTER_FEATURES,
        };
        JobsEnv {
            statics: Arc::new(Statics {
                template,
                children,
                parents,
                arrival_order,
                empty_cluster: Cluster::new(&workload.machines, &shapes),
            }),
            workload,
            real: None,
            action_space,
            observation_space,
            episode: None,
        }
    }

    /// A `real`-fidelity env: `templates[k]` is template k's single-job workload (see
    /// [`super::real::load_templates`]).
    pub fn new_real(workload: Arc<JobsWorkload>, templates: Vec<Arc<Scenario>>) -> Self {
        let mut env = Self::new(workload);
        env.real = Some(Arc::new(templates));
        env
    }

    pub fn workload(&self) -> &Arc<JobsWorkload> {
        &self.workload
    }
    /// Per window slot: `[workers level (0 = not running), size level, placement]`.
    pub fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    /// Units are window slots (`nodes` = slots, `node_features` = per slot); the cluster's
    /// features come last (`job_features`).
    pub fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }

    /// Starts an episode; each job's speed factor derives from `seed`.
    pub fn reset(&mut self, seed: u64) -> Result<(Observation, JobsInfo)> {
        let w = &self.workload;
        let mut rng = StdRng::seed_from_u64(seed);
        let sigma = w.episode.speed_sigma;
        let noise = LogNormal::new(0.0, sigma.max(1e-12)).expect("sigma validated >= 0");
        let jobs = w
            .jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let template = &w.templates[self.statics.template[i]];
                let speed = if sigma > 0.0 {
                    noise.sample(&mut rng)
                } else {
                    1.0
                };
                let work = j.duration_s * template.speedup(j.workers as f64, 1.0);
                Job {
                    status: Status::Waiting,
                    arrived: false,
                    parents_left: self.statics.parents[i],
                    remaining: work,
                    work,
                    anchor_s: 0.0,
                    paused_until: 0.0,
                    rate: 0.0,
                    attained: 0.0,
                    speed,
                    workers_level: 0,
                    size_level: w.scaling.requested_size_level(),
                    containers: Vec::new(),
                    eligible_s: 0.0,
                    first_start_s: None,
                    finish_s: None,
                    version: 0,
                }
            })
            .collect::<Vec<_>>();
        let real_jobs = match (&self.real, w.fidelity) {
            (Some(templates), Fidelity::Real) => w
                .jobs
                .iter()
                .enumerate()
                .map(|(i, j)| {
                    let t = self.statics.template[i];
                    RealJob::new(
                        &templates[t],
                        &w.templates[t],
                        j.duration_s,
                        j.workers,
                        seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    )
                })
                .collect::<Result<Vec<_>>>()?,
            (None, Fidelity::Real) => {
                return Err(EnvError::BadAction(
                    "a real-fidelity workload needs its templates' workloads: build the env with JobsEnv::new_real".into(),
                ));
            }
            _ => Vec::new(),
        };
        let count = jobs.len();
        let mut episode = Episode {
            now: 0.0,
            jobs,
            cluster: self.statics.empty_cluster.clone(),
            next_arrival: 0,
            next_tick: w.episode.decision_interval_s,
            completions: BinaryHeap::new(),
            queue: BTreeMap::new(),
            queue_key: vec![0; count],
            next_key: 0,
            running_ring: VecDeque::new(),
            counts: [count, 0, 0, 0],
            used_rate: [0.0; 3],
            sums: Integrals::default(),
            reward_marks: (0.0, 0.0),
            window: Vec::new(),
            mask: Vec::new(),
            steps_here: 0,
            decision_points: 0,
            steps: 0,
            rejected_total: 0,
            episode_return: 0.0,
            done: false,
            real_jobs,
        };
        let (terminated, truncated) = self.advance(&mut episode)?;
        episode.done = terminated || truncated;
        let observation = self.observe(&mut episode);
        let info = self.info(&episode, Vec::new());
        self.episode = Some(episode);
        Ok((observation, info))
    }

    /// Applies one action: per window slot `[workers level, size level, placement]`.
    pub fn step(&mut self, action: &[usize]) -> Result<JobsStep> {
        let mut episode = self.episode.take().ok_or(EnvError::EpisodeOver)?;
        if episode.done {
            self.episode = Some(episode);
            return Err(EnvError::EpisodeOver);
        }
        if let Err(e) = self.check_action(&episode, action) {
            self.episode = Some(episode);
            return Err(e);
        }
        let (changed, rejected) = self.apply(&mut episode, action);
        episode.steps += 1;
        episode.steps_here += 1;
        let (mut terminated, mut truncated) = (false, false);
        if !changed || episode.steps_here >= self.workload.episode.max_steps_per_decision {
            match self.advance(&mut episode) {
                Ok(ends) => (terminated, truncated) = ends,
                Err(e) => {
                    episode.done = true;
                    self.episode = Some(episode);
                    return Err(e);
                }
            }
        }
        let reward = self.reward(&mut episode);
        episode.episode_return += reward;
        episode.done = terminated || truncated;
        let observation = self.observe(&mut episode);
        let mut info = self.info(&episode, rejected);
        if episode.done {
            info.metrics = Some(self.metrics(&episode));
        }
        self.episode = Some(episode);
        Ok(Step {
            observation,
            reward,
            terminated,
            truncated,
            info,
        })
    }

    fn check_action(&self, episode: &Episode, action: &[usize]) -> Result<()> {
        let space = &self.action_space;
        if action.len() != space.dims() {
            return Err(EnvError::BadAction(format!(
                "{} entries, the action space has {} (3 per window slot)",
                action.len(),
                space.dims()
            )));
        }
        for (d, &level) in action.iter().enumerate() {
            let (slot, dim) = (d / 3, d % 3);
            let what = ["workers", "size", "placement"][dim];
            if level >= space.levels[dim] {
                return Err(EnvError::BadAction(format!(
                    "slot {slot} {what} level {level}: only levels 0..{} exist",
                    space.levels[dim]
                )));
            }
            if !episode.mask[space.mask_offset(d) + level] {
                let job = episode.window[slot]
                    .map(|j| format!("job {}", self.workload.jobs[j as usize].id))
                    .unwrap_or_else(|| "an empty slot".into());
                return Err(EnvError::BadAction(format!(
                    "slot {slot} ({job}): {what} level {level} is masked (it does not fit now)"
                )));
            }
        }
        Ok(())
    }

    /// Running jobs' changes first (shrinking frees room), then starts, each in slot order.
    fn apply(&self, episode: &mut Episode, action: &[usize]) -> (bool, Vec<String>) {
        let mut changed = false;
        let mut rejected = Vec::new();
        for pass_running in [true, false] {
            for slot in 0..episode.window.len() {
                let Some(j) = episode.window[slot] else {
                    continue;
                };
                let running = episode.jobs[j as usize].status == Status::Running;
                if running != pass_running {
                    continue;
                }
                let choice = &action[slot * 3..slot * 3 + 3];
                let job = &episode.jobs[j as usize];
                let unchanged =
                    running && choice[0] == job.workers_level && choice[1] == job.size_level;
                let (w, s) = (choice[0], choice[1]);
                let placement = Placement::ALL[choice[2]];
                if running && w == 0 {
                    self.suspend(episode, j);
                    changed = true;
                } else if w > 0 && !unchanged {
                    match self.allocate(episode, j, w, s, placement) {
                        Ok(()) => changed = true,
                        Err(reason) => rejected.push(reason),
                    }
                }
            }
        }
        episode.rejected_total += rejected.len();
        (changed, rejected)
    }

    pub(crate) fn template_of(&self, job: usize) -> usize {
        self.statics.template[job]
    }

    pub(crate) fn worker_count(&self, job: usize, workers_level: usize) -> u32 {
        let factor = self.workload.scaling.workers[workers_level - 1];
        ((self.workload.jobs[job].workers as f64 * factor).round() as u32).max(1)
    }

    pub(crate) fn container(&self, job: usize, size_level: usize) -> [u32; 3] {
        scaled_request(
            self.workload.jobs[job].request(),
            self.workload.scaling.sizes[size_level],
        )
    }

    /// Starts or rescales job `j`; on failure nothing changes.
    fn allocate(
        &self,
        episode: &mut Episode,
        j: u32,
        workers_level: usize,
        size_level: usize,
        placement: Placement,
    ) -> std::result::Result<(), String> {
        let i = j as usize;
        let now = episode.now;
        let count = self.worker_count(i, workers_level);
        let request = self.container(i, size_level);
        let old = std::mem::take(&mut episode.jobs[i].containers);
        old.iter().for_each(|c| episode.cluster.release(c));
        let Some(placed) = episode.cluster.place(request, count, placement) else {
            old.iter().for_each(|c| episode.cluster.reinstate(c));
            episode.jobs[i].containers = old;
            return Err(format!(
                "job {}: {count} containers of {request:?} (mCPU, MiB, mGPU) no longer fit after earlier choices in this step",
                self.workload.jobs[i].id
            ));
        };
        let was_running = episode.jobs[i].status == Status::Running;
        // settle with the old allocation, then account for the new one
        episode.jobs[i].containers = old;
        self.change_used(episode, i, -1.0);
        let job = &mut episode.jobs[i];
        job.settle(now);
        job.containers = placed;
        job.workers_level = workers_level;
        job.size_level = size_level;
        job.version += 1;
        let template = &self.workload.templates[self.statics.template[i]];
        job.rate =
            template.speedup(count as f64, self.workload.scaling.sizes[size_level]) * job.speed;
        if was_running {
            let pause_from = job.paused_until.max(now);
            job.paused_until = now + self.workload.episode.restart_s;
            let pause = job.paused_until - pause_from;
            // restarting containers are allocated but do no work
            let used = self.used_of(i, &episode.jobs[i]);
            (0..3).for_each(|r| episode.sums.used[r] -= used[r] * pause);
        } else {
            let key = episode.queue_key[i];
            episode.queue.remove(&key);
            job.status = Status::Running;
            job.first_start_s.get_or_insert(now);
            episode.counts[status_index(Status::Queued)] -= 1;
            episode.counts[status_index(Status::Running)] += 1;
        }
        let job = &episode.jobs[i];
        let resume = job.paused_until.max(now);
        if let Some(real) = episode.real_jobs.get_mut(i) {
            let offset = size_level as i32 - self.workload.scaling.requested_size_level() as i32;
            real.set_allocation(count as usize, offset);
            real.next_round_s = resume + real.round_s;
        } else {
            let finish = resume + job.remaining / job.rate;
            episode
                .completions
                .push(Reverse((Time(finish), j, job.version)));
        }
        episode.running_ring.push_back((j, job.version));
        self.change_used(episode, i, 1.0);
        Ok(())
    }

    /// Takes a running job off its containers and back to the end of the queue.
    fn suspend(&self, episode: &mut Episode, j: u32) {
        let i = j as usize;
        let now = episode.now;
        self.change_used(episode, i, -1.0);
        let job = &mut episode.jobs[i];
        job.settle(now);
        let containers = std::mem::take(&mut job.containers);
        job.rate = 0.0;
        job.workers_level = 0;
        job.version += 1;
        job.status = Status::Queued;
        containers.iter().for_each(|c| episode.cluster.release(c));
        episode.counts[status_index(Status::Running)] -= 1;
        if let Some(real) = episode.real_jobs.get_mut(i) {
            real.next_round_s = f64::INFINITY;
        }
        self.enqueue(episode, i);
    }

    fn enqueue(&self, episode: &mut Episode, i: usize) {
        episode.jobs[i].status = Status::Queued;
        episode.counts[status_index(Status::Queued)] += 1;
        episode.queue_key[i] = episode.next_key;
        episode.queue.insert(episode.next_key, i as u32);
        episode.next_key += 1;
    }

    /// What a job's containers use per second, `[cpu, mem, gpu]` milli-units.
    fn used_of(&self, i: usize, job: &Job) -> [f64; 3] {
        let u = self.workload.templates[self.statics.template[i]].utilisation;
        let mut out = [0.0; 3];
        for c in &job.containers {
            out[0] += c.cpu as f64 * u[0];
            out[1] += c.mem as f64 * u[1];
            out[2] += c.gpu_milli() as f64 * u[2];
        }
        out
    }

    fn change_used(&self, episode: &mut Episode, i: usize, sign: f64) {
        let used = self.used_of(i, &episode.jobs[i]);
        (0..3).for_each(|r| episode.used_rate[r] += sign * used[r]);
    }

    /// Moves the clock to the next decision point; returns `(terminated, truncated)`.
    fn advance(&self, episode: &mut Episode) -> Result<(bool, bool)> {
        episode.steps_here = 0;
        let jobs = &self.workload.jobs;
        let order = &self.statics.arrival_order;
        let max_time = self.workload.episode.max_time_s;
        let next_completion = |e: &mut Episode| -> f64 {
            while let Some(Reverse((Time(t), j, version))) = e.completions.peek().copied() {
                let job = &e.jobs[j as usize];
                if job.status == Status::Running && job.version == version {
                    return t;
                }
                e.completions.pop();
            }
            f64::INFINITY
        };
        let tick = if self.workload.episode.decision_interval_s > 0.0 {
            episode.next_tick
        } else {
            f64::INFINITY
        };
        // real jobs train round by round in between, silently until one finishes
        let t = loop {
            let arrival = order
                .get(episode.next_arrival)
                .map_or(f64::INFINITY, |&j| jobs[j as usize].arrival_s);
            let event = arrival.min(next_completion(episode)).min(tick);
            let round = episode
                .real_jobs
                .iter()
                .enumerate()
                .map(|(i, r)| (r.next_round_s, i))
                .min_by(|a, b| a.0.total_cmp(&b.0));
            match round {
                Some((at, i)) if at < event && at < max_time => {
                    self.integrate(episode, at);
                    if episode.real_jobs[i].step()? {
                        episode.real_jobs[i].next_round_s = f64::INFINITY;
                        self.finish(episode, i);
                        break at;
                    }
                    let real = &mut episode.real_jobs[i];
                    real.next_round_s += real.round_s;
                }
                _ if event >= max_time => {
                    self.integrate(episode, max_time);
                    return Ok((false, true));
                }
                _ => {
                    self.integrate(episode, event);
                    break event;
                }
            }
        };
        while next_completion(episode) <= t {
            let Reverse((_, j, _)) = episode.completions.pop().expect("peeked");
            self.finish(episode, j as usize);
        }
        while let Some(&j) = order.get(episode.next_arrival) {
            if jobs[j as usize].arrival_s > t {
                break;
            }
            episode.next_arrival += 1;
            let job = &mut episode.jobs[j as usize];
            job.arrived = true;
            if job.parents_left == 0 {
                job.eligible_s = t;
                episode.counts[status_index(Status::Waiting)] -= 1;
                self.enqueue(episode, j as usize);
            }
        }
        while tick <= t && episode.next_tick <= t {
            episode.next_tick += self.workload.episode.decision_interval_s;
        }
        episode.decision_points += 1;
        Ok((
            episode.counts[status_index(Status::Done)] == jobs.len(),
            false,
        ))
    }

    fn finish(&self, episode: &mut Episode, i: usize) {
        let now = episode.now;
        self.change_used(episode, i, -1.0);
        let job = &mut episode.jobs[i];
        job.settle(now);
        job.remaining = 0.0;
        job.rate = 0.0;
        job.status = Status::Done;
        job.finish_s = Some(now);
        job.version += 1;
        let containers = std::mem::take(&mut job.containers);
        containers.iter().for_each(|c| episode.cluster.release(c));
        episode.counts[status_index(Status::Running)] -= 1;
        episode.counts[status_index(Status::Done)] += 1;
        for &child in &self.statics.children[i] {
            let c = &mut episode.jobs[child as usize];
            c.parents_left -= 1;
            if c.parents_left == 0 && c.arrived {
                c.eligible_s = now;
                episode.counts[status_index(Status::Waiting)] -= 1;
                self.enqueue(episode, child as usize);
            }
        }
    }

    fn integrate(&self, episode: &mut Episode, to: f64) {
        let dt = to - episode.now;
        if dt > 0.0 {
            let s = &mut episode.sums;
            let cap = episode.cluster.capacity_total();
            let free = episode.cluster.free_total();
            let stranded = episode.cluster.stranded_total();
            let prices = self.workload.prices.per_second();
            for r in 0..3 {
                let allocated = (cap[r] - free[r]) as f64;
                s.allocated[r] += allocated * dt;
                s.used[r] += episode.used_rate[r] * dt;
                s.capacity[r] += cap[r] as f64 * dt;
                s.free[r] += free[r] as f64 * dt;
                s.idle_cost +=
                    prices[r] * (allocated - episode.used_rate[r]) / MILLI_PER_UNIT[r] * dt;
            }
            s.stranded[0] += stranded[0] * dt;
            s.stranded[1] += stranded[1] * dt;
            let in_system = episode.next_arrival - episode.counts[status_index(Status::Done)];
            s.in_system += in_system as f64 * dt;
        }
        episode.now = to;
    }

    /// Minus the time term (jobs in the system, Little's law: its integral is the total
    /// completion time) and the idle term, each per decision interval and normalised.
    fn reward(&self, episode: &mut Episode) -> f64 {
        let w = &self.workload;
        let interval = w.episode.reward_interval_s();
        let (in_system, idle) = (episode.sums.in_system, episode.sums.idle_cost);
        let (last_in_system, last_idle) = episode.reward_marks;
        episode.reward_marks = (in_system, idle);
        let prices = w.prices.per_second();
        let cap = episode.cluster.capacity_total();
        let cluster_price: f64 = (0..3)
            .map(|r| prices[r] * cap[r] as f64 / MILLI_PER_UNIT[r])
            .sum();
        let time_term = (in_system - last_in_system) / (interval * w.window.slots() as f64);
        let idle_term = share(idle - last_idle, cluster_price * interval);
        -(w.reward.lambda_time * time_term + w.reward.lambda_idle * idle_term)
    }

    fn observe(&self, episode: &mut Episode) -> Observation {
        episode.window = self.window(episode);
        let (features, mask) = observe::observe(self, episode);
        episode.mask = mask.clone();
        Observation {
            features,
            action_mask: mask,
        }
    }

    /// The oldest queued jobs, then running jobs round-robin.
    fn window(&self, episode: &mut Episode) -> Vec<Option<u32>> {
        let w = &self.workload.window;
        let mut slots: Vec<Option<u32>> = episode
            .queue
            .values()
            .take(w.queued)
            .map(|&j| Some(j))
            .collect();
        slots.resize(w.queued, None);
        let mut shown = Vec::new();
        let mut looked = 0;
        let ring_len = episode.running_ring.len();
        while shown.len() < w.running && looked < ring_len {
            looked += 1;
            let Some((j, version)) = episode.running_ring.pop_front() else {
                break;
            };
            let job = &episode.jobs[j as usize];
            if job.status == Status::Running && job.version == version {
                if !shown.contains(&j) {
                    shown.push(j);
                }
                episode.running_ring.push_back((j, version));
            }
        }
        slots.extend(shown.into_iter().map(Some));
        slots.resize(w.slots(), None);
        slots
    }

    fn info(&self, episode: &Episode, rejected: Vec<String>) -> JobsInfo {
        let c = episode.counts;
        JobsInfo {
            time_s: episode.now,
            decision_points: episode.decision_points,
            waiting: c[status_index(Status::Waiting)],
            queued: c[status_index(Status::Queued)],
            running: c[status_index(Status::Running)],
            finished: c[status_index(Status::Done)],
            rejected,
            window: episode
                .window
                .iter()
                .map(|s| s.map(|j| self.workload.jobs[j as usize].id.clone()))
                .collect(),
            metrics: None,
        }
    }

    fn metrics(&self, episode: &Episode) -> JobsMetrics {
        let jobs = &self.workload.jobs;
        let mut jct = Vec::new();
        let mut delays = Vec::new();
        let mut last_finish: f64 = 0.0;
        let now = episode.now;
        for (spec, job) in jobs.iter().zip(&episode.jobs) {
            if let Some(t) = completion_time(spec, job, now) {
                jct.push(t);
                last_finish = last_finish.max(spec.arrival_s + t);
            }
            match job.first_start_s {
                Some(start) => delays.push(start - job.eligible_s),
                None if job.status == Status::Queued => delays.push(now - job.eligible_s),
                None => {}
            }
        }
        let finished = episode.counts[status_index(Status::Done)];
        let first_arrival = jobs
            .iter()
            .map(|j| j.arrival_s)
            .fold(f64::INFINITY, f64::min);
        let mean = |v: &[f64]| share(v.iter().sum(), v.len() as f64);
        let s = &episode.sums;
        let has_gpus = episode.cluster.capacity_total()[2] > 0;
        let fragmentation = if has_gpus {
            share(s.stranded[0], s.free[2])
        } else {
            share(s.stranded[1], s.free[0])
        };
        JobsMetrics {
            jobs: jobs.len(),
            finished,
            unfinished: jobs.len() - finished,
            jct_avg_s: mean(&jct),
            jct_p95_s: quantile(&mut jct, 0.95),
            makespan_s: if jct.is_empty() {
                0.0
            } else {
                last_finish - first_arrival
            },
            queueing_delay_avg_s: mean(&delays),
            gpu_occupancy: share(s.allocated[2], s.capacity[2]),
            cpu_occupancy: share(s.allocated[0], s.capacity[0]),
            gpu_util: share(s.used[2], s.allocated[2]),
            cpu_util: share(s.used[0], s.allocated[0]),
            fragmentation,
            idle_cost: s.idle_cost,
            episode_return: episode.episode_return,
            rejected_actions: episode.rejected_total,
            decision_points: episode.decision_points,
            steps: episode.steps,
            time_s: episode.now,
        }
    }

    /// Each arrived job's completion time in the current episode, in workload order (the
    /// distribution behind `jct_avg_s` and `jct_p95_s`).
    pub fn completion_times(&self) -> Vec<f64> {
        self.episode.as_ref().map_or_else(Vec::new, |e| {
            self.workload
                .jobs
                .iter()
                .zip(&e.jobs)
                .filter_map(|(spec, job)| completion_time(spec, job, e.now))
                .collect()
        })
    }

    /// Free and capacity per machine `[cpu, mem, gpu]`, for checking invariants.
    pub fn machine_state(&self) -> Vec<([u32; 3], [u32; 3])> {
        self.episode.as_ref().map_or_else(Vec::new, |e| {
            (0..e.cluster.machines())
                .map(|m| (e.cluster.free_of(m), e.cluster.capacity_of(m)))
                .collect()
        })
    }

    /// Sum of the containers every running job holds, per machine `[cpu, mem, gpu]`.
    pub fn held_per_machine(&self) -> Vec<[u64; 3]> {
        self.episode.as_ref().map_or_else(Vec::new, |e| {
            let mut held = vec![[0u64; 3]; e.cluster.machines()];
            for job in &e.jobs {
                for c in &job.containers {
                    let h = &mut held[c.machine as usize];
                    h[0] += c.cpu as u64;
                    h[1] += c.mem as u64;
                    h[2] += c.gpu_milli() as u64;
                }
            }
            held
        })
    }
}

/// Finish − arrival of an arrived job; a job still in the system at `now` (a truncation)
/// counts its time so far, a lower bound, so holding jobs back never flatters the averages.
fn completion_time(spec: &super::JobRecord, job: &Job, now: f64) -> Option<f64> {
    job.arrived
        .then(|| job.finish_s.unwrap_or(now) - spec.arrival_s)
}

impl StepInfo<JobsMetrics> for JobsInfo {
    fn metrics(&self) -> Option<&JobsMetrics> {
        self.metrics.as_ref()
    }
}

impl Environment for JobsEnv {
    type Metrics = JobsMetrics;
    type Info = JobsInfo;

    fn workload_name(&self) -> &str {
        &self.workload.name
    }
    fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }
    fn reset(&mut self, seed: u64) -> Result<(Observation, JobsInfo)> {
        JobsEnv::reset(self, seed)
    }
    fn step(&mut self, action: &[usize]) -> Result<JobsStep> {
        JobsEnv::step(self, action)
    }
    fn fresh_copy(&self) -> Self {
        JobsEnv {
            workload: Arc::clone(&self.workload),
            real: self.real.clone(),
            statics: Arc::clone(&self.statics),
            action_space: self.action_space.clone(),
            observation_space: self.observation_space,
            episode: None,
        }
    }
}
