//! The multi-job cluster: jobs arrive on the virtual clock, wait in a queue, run on the
//! containers the scheduler gives them and finish when their work is done.
//!
//! Decision points are arrivals, completions and (optionally) a fixed interval. At one, the
//! policy may take several same-time steps: the clock moves on only after a step that
//! changes nothing, or after `max_steps_per_decision` steps. So a policy can start jobs one
//! at a time in its own order (Decima's sequential decisions) or many at once.

use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, LogNormal};
use serde::Serialize;

use super::accounting::{completion_time, metrics, projected_remaining_s, reward};
use super::bounds;
use super::choice::{Choice, ChoiceLayout};
use super::conserve::{fill_idle, queued_that_fit, unfreeze};
use super::dynamics::{advance, apply, apply_one};
use super::family::sample_window;
use super::machines::{Container, Placement};
use super::metrics::{Integrals, JobsMetrics};
use super::observe;
use super::refusals::Refusals;
use super::schema::{Fidelity, Interface, JobsWorkload};
use super::state::{Episode, Job, Shared, Status};
use super::trained::TrainedJob;
use crate::error::{EnvError, Result};
use crate::execution::Execution;
use crate::gym::{
    ActionError, ActionSpace, Environment, Field, Observation, ObservationSpace, Step, StepInfo,
};
use crate::real::jobs::{RealCluster, RealJobsReport};
use crate::single_job::scenario::Scenario;

/// Mixed into a family's episode seed before drawing its window, so the window's draws and
/// the jobs' speed noise (drawn from the seed itself) are independent streams.
const WINDOW_SEED_SALT: u64 = 0x6a09_e667_f3bc_c908;

/// What `step` returns.
pub type JobsStep = Step<JobsInfo>;

/// What acting on the episode did before the reward and observation are taken.
struct Acted {
    terminated: bool,
    truncated: bool,
    /// Draw the window anew.
    redraw: bool,
    /// Why each change that the mask allowed was still refused.
    rejected: Vec<String>,
}

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
    /// At the end of a real execution's episode: what the real processes measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real: Option<RealJobsReport>,
}

pub struct JobsEnv {
    /// The workload of the current episode: the file's, or the window drawn from a family.
    shared: Arc<Shared>,
    /// A workload family's file, from which every reset draws a window.
    family: Option<Arc<JobsWorkload>>,
    /// Per template, the single-job workload the `trained` fidelity trains and real execution
    /// runs.
    templates: Option<Arc<Vec<Arc<Scenario>>>>,
    /// The per-slot grid `slot x [workers, size, placement]`, which the dynamics read.
    slot_space: ActionSpace,
    /// The one-choice interface's layout, when the workload asks for it.
    choices: Option<ChoiceLayout>,
    /// What a step takes: `slot_space`, or the one-choice dimension.
    action_space: ActionSpace,
    observation_space: ObservationSpace,
    episode: Option<Episode>,
}

impl JobsEnv {
    pub fn new(workload: Arc<JobsWorkload>) -> Self {
        let slots = workload.window.slots();
        let shared = Shared::new(Arc::clone(&workload));
        // with heterogeneity, a model field and the model groups; without, the shapes as ever
        let models = shared.model_sets.len();
        let mut fields = vec![Field::new("", 1); if models > 0 { 4 } else { 3 }];
        fields[observe::FIELD_WORKERS] = Field::new("workers", workload.scaling.workers.len() + 1);
        fields[observe::FIELD_SIZE] = Field::new("size", workload.scaling.sizes.len());
        fields[observe::FIELD_PLACEMENT] = Field::new("placement", Placement::ALL.len());
        if models > 0 {
            fields[observe::FIELD_MODEL] = Field::new("model", models + 1);
        }
        let slot_space = ActionSpace::grid("slot", slots, fields);
        let choices = (workload.window.interface == Interface::OneChoice).then(|| {
            ChoiceLayout::new(
                slots,
                workload.scaling.workers.len() + 1,
                workload.scaling.sizes.len(),
                models + 1,
            )
        });
        let action_space = choices
            .as_ref()
            .map_or_else(|| slot_space.clone(), ChoiceLayout::action_space);
        let mut groups = vec![
            (observe::SLOT_GROUP, slots, observe::SLOT_FEATURES),
            (observe::CLUSTER_GROUP, 1, observe::CLUSTER_FEATURES),
        ];
        if models > 0 {
            groups.push((observe::MODEL_SPEED_GROUP, slots, models));
            groups.push((observe::MODEL_FREE_GROUP, 1, models));
            groups.push((observe::MODEL_HELD_GROUP, slots, models));
            groups.push((observe::MODEL_GPUS_GROUP, 1, models + 1));
        }
        let mut observation_space = ObservationSpace::new(&groups);
        if models > 0 {
            observation_space = observation_space
                .with_unit_groups(&[observe::MODEL_SPEED_GROUP, observe::MODEL_HELD_GROUP]);
        }
        let family = workload.family.is_some().then(|| Arc::clone(&workload));
        JobsEnv {
            shared: Arc::new(shared),
            family,
            templates: None,
            slot_space,
            choices,
            action_space,
            observation_space,
            episode: None,
        }
    }

    /// An env of the `trained` fidelity or of real execution: `templates[k]` is template k's
    /// single-job workload (see [`super::trained::load_templates`]).
    pub fn with_templates(workload: Arc<JobsWorkload>, templates: Vec<Arc<Scenario>>) -> Self {
        let mut env = Self::new(workload);
        env.templates = Some(Arc::new(templates));
        env
    }

    /// The current episode's workload (for a family, the last drawn window; before the
    /// first reset, the family's whole file).
    pub fn workload(&self) -> &Arc<JobsWorkload> {
        &self.shared.workload
    }
    /// Per window slot: workers level (0 = not running), size level, placement; or, with the
    /// one-choice interface, one dimension of choices (env/src/jobs/choice.rs).
    pub fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    /// The per-slot grid the dynamics read (the action space unless one-choice).
    pub fn slot_space(&self) -> &ActionSpace {
        &self.slot_space
    }
    /// The one-choice layout, when the workload asks for that interface.
    pub fn choice_layout(&self) -> Option<&ChoiceLayout> {
        self.choices.as_ref()
    }
    /// Feature group `slot` (one block per window slot), then `cluster`.
    pub fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }

    /// Starts an episode; each job's speed factor (and for a family, the window) derives
    /// from `seed`.
    pub fn reset(&mut self, seed: u64) -> Result<(Observation, JobsInfo)> {
        if let Some(family) = &self.family {
            let spec = family.family.as_ref().expect("a family has its section");
            let (window, _) = sample_window(family, spec, seed ^ WINDOW_SEED_SALT);
            self.shared = Arc::new(Shared::new(Arc::new(window)));
        }
        let jobs = self.fresh_jobs(seed);
        let trained_jobs = self.trained_jobs(seed)?;
        // the last episode's real processes and groups go before this one's start
        self.episode = None;
        let executed = self.real_cluster(&jobs, seed)?;
        let mut episode = self.new_episode(jobs, trained_jobs, executed);
        let (terminated, truncated) = advance(&self.shared, &mut episode)?;
        episode.done = terminated || truncated;
        episode.potential_mark = (projected_remaining_s(&self.shared, &episode), episode.now);
        let observation = self.observe(&mut episode, true);
        let info = self.info(&episode, Vec::new());
        self.episode = Some(episode);
        Ok((observation, info))
    }

    /// Every job waiting, its work at its workers and its speed factor drawn from `seed`.
    fn fresh_jobs(&self, seed: u64) -> Vec<Job> {
        let w = &self.shared.workload;
        let mut rng = StdRng::seed_from_u64(seed);
        let sigma = w.episode.speed_sigma;
        let noise = LogNormal::new(0.0, sigma.max(1e-12)).expect("sigma validated >= 0");
        w.jobs
            .iter()
            .enumerate()
            .map(|(i, j)| {
                let template = &w.templates[self.shared.template[i]];
                let spread = if sigma > 0.0 {
                    noise.sample(&mut rng)
                } else {
                    1.0
                };
                let work = j.duration_s * template.speedup(j.workers as f64, 1.0);
                Job {
                    status: Status::Waiting,
                    arrived: false,
                    parents_left: self.shared.parents[i],
                    remaining: work,
                    work,
                    anchor_s: 0.0,
                    paused_until: 0.0,
                    rate: 0.0,
                    attained: 0.0,
                    speed: spread * w.episode.speed_factor,
                    workers_level: 0,
                    size_level: w.scaling.requested_size_level(),
                    containers: Vec::new(),
                    eligible_s: 0.0,
                    in_system_at_arrival: 0.0,
                    in_system_at_finish: 0.0,
                    first_start_s: None,
                    finish_s: None,
                    version: 0,
                }
            })
            .collect()
    }

    /// At the `trained` fidelity, each job's training run; none otherwise.
    fn trained_jobs(&self, seed: u64) -> Result<Vec<TrainedJob>> {
        let w = &self.shared.workload;
        match (&self.templates, w.fidelity) {
            (Some(templates), Fidelity::Trained) => w
                .jobs
                .iter()
                .enumerate()
                .map(|(i, j)| {
                    let t = self.shared.template[i];
                    TrainedJob::new(
                        &templates[t],
                        &w.templates[t],
                        j.duration_s,
                        j.workers,
                        seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                    )
                })
                .collect(),
            (None, Fidelity::Trained) => Err(EnvError::BadAction(
                "a trained-fidelity workload needs its templates' workloads: build the env with JobsEnv::with_templates".into(),
            )),
            _ => Ok(Vec::new()),
        }
    }

    /// Under real execution, the cluster of real processes; none in the simulator.
    fn real_cluster(&self, jobs: &[Job], seed: u64) -> Result<Option<Box<RealCluster>>> {
        let w = &self.shared.workload;
        match (&self.templates, w.execution) {
            (_, Execution::Sim) => Ok(None),
            (Some(templates), _) => {
                let speeds: Vec<f64> = jobs.iter().map(|j| j.speed).collect();
                let cluster = RealCluster::new(w, &self.shared.template, templates, &speeds, seed)?;
                Ok(Some(Box::new(cluster)))
            }
            (None, _) => Err(EnvError::BadAction(
                "a real execution needs its templates' workloads: build the env with JobsEnv::with_templates (JobsSetup does)".into(),
            )),
        }
    }

    /// An episode at time 0 over `jobs`, before any arrival.
    fn new_episode(
        &self,
        jobs: Vec<Job>,
        trained_jobs: Vec<TrainedJob>,
        executed: Option<Box<RealCluster>>,
    ) -> Episode {
        let w = &self.shared.workload;
        let count = jobs.len();
        Episode {
            now: 0.0,
            jobs,
            cluster: self.shared.empty_cluster.clone(),
            next_arrival: 0,
            next_tick: w.episode.decision_interval_s,
            completions: BinaryHeap::new(),
            queue: BTreeMap::new(),
            queue_key: vec![0; count],
            next_key: 0,
            running_ring: VecDeque::new(),
            counts: [count, 0, 0, 0],
            queued_demand: [0; 3],
            used_rate: [0.0; 3],
            sums: Integrals::default(),
            reward_marks: (0.0, 0.0),
            potential_mark: (0.0, 0.0),
            fairness_due: 0.0,
            tenant_in_system: vec![0; w.tenant_shares.len()],
            tenant_in_system_s: vec![0.0; w.tenant_shares.len()],
            window: Vec::new(),
            changed: vec![false; w.window.slots()],
            mask: Vec::new(),
            refusals: Refusals::default(),
            steps_here: 0,
            decision_points: 0,
            steps: 0,
            rejected_total: 0,
            forced_total: 0,
            episode_return: 0.0,
            done: false,
            trained_jobs,
            executed,
        }
    }

    /// Applies one action: per window slot `[workers level, size level, placement]`, or with
    /// the one-choice interface `[choice]`.
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
        episode.steps += 1;
        let acted = match &self.choices {
            Some(layout) => self.act_choice(layout, &mut episode, action[0]),
            None => self.act_per_slot(&mut episode, action),
        };
        let Acted {
            terminated,
            truncated,
            redraw,
            rejected,
        } = match acted {
            Ok(acted) => acted,
            Err(e) => {
                episode.done = true;
                episode.executed = None;
                self.episode = Some(episode);
                return Err(e);
            }
        };
        // at `max_time_s` the reward settles every unfinished job's remaining time, so nothing
        // follows: the episode terminates there, and a learner must not bootstrap past it
        let settled = truncated;
        let reward = reward(&self.shared, &mut episode, settled);
        episode.episode_return += reward;
        episode.done = terminated || settled;
        let observation = self.observe(&mut episode, redraw);
        let mut info = self.info(&episode, rejected);
        if episode.done {
            let stranded = queued_that_fit(&self.shared, &episode).len();
            info.metrics = Some(metrics(&self.shared, &episode, stranded));
            info.real = episode.executed.take().map(|cluster| cluster.report());
        }
        self.episode = Some(episode);
        Ok(Step {
            observation,
            reward,
            terminated: terminated || settled,
            truncated: false,
            info,
        })
    }

    /// All slots at once: running jobs' changes, then starts; the clock moves on after a
    /// step that changed nothing or after `max_steps_per_decision` steps.
    fn act_per_slot(&self, episode: &mut Episode, action: &[usize]) -> Result<Acted> {
        let (changed, rejected) = apply(&self.shared, &self.slot_space, episode, action);
        episode.steps_here += 1;
        let (mut terminated, mut truncated) = (false, false);
        if !changed || episode.steps_here >= self.shared.workload.episode.max_steps_per_decision {
            (terminated, truncated) = self.move_clock(episode)?;
        }
        Ok(Acted {
            terminated,
            truncated,
            redraw: true,
            rejected,
        })
    }

    /// One job's change, or `advance`: a new drawing of the window at the same time when a
    /// slot changed since the last one (at most `max_steps_per_decision` drawings), the next
    /// decision point otherwise.
    fn act_choice(
        &self,
        layout: &ChoiceLayout,
        episode: &mut Episode,
        choice: usize,
    ) -> Result<Acted> {
        let mut acted = Acted {
            terminated: false,
            truncated: false,
            redraw: false,
            rejected: Vec::new(),
        };
        let change = match layout.decode(choice) {
            Choice::Advance => {
                let dirty = episode.changed.iter().any(|&c| c);
                episode.changed.fill(false);
                episode.steps_here += 1;
                acted.redraw = true;
                if !dirty
                    || episode.steps_here >= self.shared.workload.episode.max_steps_per_decision
                {
                    (acted.terminated, acted.truncated) = self.move_clock(episode)?;
                }
                return Ok(acted);
            }
            Choice::Preempt { slot } => (slot, (0, 0, Placement::BestFit, 0)),
            Choice::Set {
                slot,
                workers_level,
                size_level,
                placement,
                model,
            } => (slot, (workers_level, size_level, placement, model)),
        };
        let (slot, levels) = change;
        let j = episode.window[slot].expect("the mask offers only filled slots");
        episode.changed[slot] = true;
        if let Err(reason) = apply_one(&self.shared, episode, j, levels) {
            episode.rejected_total += 1;
            acted.rejected.push(reason.to_string());
        }
        Ok(acted)
    }

    /// Starts what fits where the workload conserves work, and a job on a frozen cluster
    /// (conserve.rs), then moves the clock to the next decision point.
    fn move_clock(&self, episode: &mut Episode) -> Result<(bool, bool)> {
        if self.shared.workload.window.work_conserving {
            fill_idle(&self.shared, episode);
        }
        unfreeze(&self.shared, episode);
        advance(&self.shared, episode)
    }

    fn check_action(&self, episode: &Episode, action: &[usize]) -> Result<()> {
        let space = &self.action_space;
        space
            .check(action, &episode.mask)
            .map_err(|error| match error {
                ActionError::Masked { level, .. } if self.choices.is_some() => {
                    let layout = self.choices.as_ref().expect("checked");
                    EnvError::BadAction(format!(
                        "choice {level} ({}) is masked: it does not fit now, changes nothing, or its slot already changed since the window was drawn",
                        layout.describe(&self.shared, episode, level)
                    ))
                }
                ActionError::Masked { dim, label, level } => {
                    let job = episode.window[space.unit_of(dim)]
                        .map(|j| format!("job {}", self.shared.workload.jobs[j as usize].id))
                        .unwrap_or_else(|| "an empty slot".into());
                    EnvError::BadAction(format!(
                        "{label} ({job}): level {level} is masked (it does not fit now)"
                    ))
                }
                other => EnvError::BadAction(other.to_string()),
            })
    }

    /// The observation; `redraw` draws the window anew (always, except between one-choice
    /// changes).
    fn observe(&self, episode: &mut Episode, redraw: bool) -> Observation {
        if redraw {
            episode.window = observe::window(&self.shared, episode);
        }
        let (features, slot_mask) = observe::observe(
            &self.shared,
            &self.slot_space,
            self.observation_space.len(),
            episode,
        );
        let mask = match &self.choices {
            Some(layout) => {
                let changed = episode.changed.clone();
                layout.mask(&self.shared, episode, &changed)
            }
            None => slot_mask,
        };
        episode.mask = mask.clone();
        Observation {
            features,
            action_mask: mask,
        }
    }

    fn info(&self, episode: &Episode, rejected: Vec<String>) -> JobsInfo {
        JobsInfo {
            time_s: episode.now,
            decision_points: episode.decision_points,
            waiting: episode.count(Status::Waiting),
            queued: episode.count(Status::Queued),
            running: episode.count(Status::Running),
            finished: episode.count(Status::Done),
            rejected,
            window: episode
                .window
                .iter()
                .map(|s| s.map(|j| self.shared.workload.jobs[j as usize].id.clone()))
                .collect(),
            metrics: None,
            real: None,
        }
    }

    /// Each arrived job's completion time in the current episode, in workload order (the
    /// distribution behind `jct_avg_s` and `jct_p95_s`).
    pub fn completion_times(&self) -> Vec<f64> {
        self.episode.as_ref().map_or_else(Vec::new, |e| {
            (0..e.jobs.len())
                .filter_map(|i| completion_time(&self.shared, e, i))
                .collect()
        })
    }

    /// Each job's completion time in the current episode were it to start the moment it
    /// arrives, alone on the empty cluster, at the fastest allocation the scaling levels
    /// allow, and never pause: a lower bound on its JCT under any scheduler, since queueing,
    /// parents, sharing the cluster and restarts only add to it. Workload order; empty
    /// before the first reset and on the `trained` fidelity (its progress is a training loop).
    pub fn jct_lower_bounds_s(&self) -> Vec<f64> {
        self.simulated_episode()
            .map_or_else(Vec::new, |e| bounds::no_wait_s(&self.shared, e))
    }

    /// The total completion time no schedule that finishes every job of the current episode
    /// can go under (`bounds::total_jct_s`: at least the no-wait bounds' sum, and the pooled
    /// cluster served shortest-remaining-first). `None` where `jct_lower_bounds_s` is empty.
    pub fn total_jct_lower_bound_s(&self) -> Option<f64> {
        self.simulated_episode()
            .map(|e| bounds::total_jct_s(&self.shared, e))
    }

    /// The current episode unless its jobs train or run for real.
    fn simulated_episode(&self) -> Option<&Episode> {
        let simulated = self.shared.workload.execution == Execution::Sim;
        self.episode
            .as_ref()
            .filter(|e| e.trained_jobs.is_empty() && simulated)
    }

    /// The ids of queued jobs that could start now at some level, oldest first: where the
    /// workload conserves work, none when an episode ends (a check for stranded work).
    pub fn queued_that_fit(&self) -> Vec<String> {
        self.episode.as_ref().map_or_else(Vec::new, |e| {
            queued_that_fit(&self.shared, e)
                .into_iter()
                .map(|j| self.shared.workload.jobs[j as usize].id.clone())
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

    /// The machines job `job`'s containers are on (none unless it runs).
    pub fn machines_of(&self, job: usize) -> Vec<u32> {
        self.episode.as_ref().map_or_else(Vec::new, |e| {
            e.jobs[job].containers.iter().map(|c| c.machine).collect()
        })
    }

    /// The containers job `job` holds (none unless it runs).
    pub fn containers_of(&self, job: usize) -> Vec<Container> {
        self.episode
            .as_ref()
            .map_or_else(Vec::new, |e| e.jobs[job].containers.clone())
    }

    /// The current observation's mask as the env computes it, and as a look at the cluster
    /// with no refusal remembered finds it (refusals.rs): the two must be equal.
    #[cfg(test)]
    pub(super) fn mask_remembered_and_fresh(&mut self) -> (Vec<bool>, Vec<bool>) {
        let mut episode = self.episode.take().expect("an episode is running");
        let remembered = self.observe(&mut episode, false).action_mask;
        let kept = std::mem::take(&mut episode.refusals);
        let fresh = self.observe(&mut episode, false).action_mask;
        episode.refusals = kept;
        self.episode = Some(episode);
        (remembered, fresh)
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

impl StepInfo<JobsMetrics> for JobsInfo {
    fn metrics(&self) -> Option<&JobsMetrics> {
        self.metrics.as_ref()
    }
    fn time_s(&self) -> f64 {
        self.time_s
    }
}

impl Environment for JobsEnv {
    type Metrics = JobsMetrics;
    type Info = JobsInfo;

    fn workload_name(&self) -> &str {
        &self.shared.workload.name
    }
    fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }
    /// Decision points come at most at each arrival, each completion, each interval tick and
    /// the start; each allows `max_steps_per_decision` steps (one-choice: drawings of the
    /// window, each with at most one change per slot and an `advance`). A family's window
    /// holds at most all of its file's jobs.
    fn step_limit(&self) -> usize {
        let jobs = self
            .family
            .as_ref()
            .map_or(self.shared.workload.jobs.len(), |f| f.jobs.len());
        let e = &self.shared.workload.episode;
        let ticks = if e.decision_interval_s > 0.0 {
            (e.max_time_s / e.decision_interval_s).ceil() as usize + 1
        } else {
            0
        };
        let per_drawing = if self.choices.is_some() {
            self.slot_space.units() + 1
        } else {
            1
        };
        (2 * jobs + ticks + 2) * e.max_steps_per_decision * per_drawing
    }
    fn reset(&mut self, seed: u64) -> Result<(Observation, JobsInfo)> {
        JobsEnv::reset(self, seed)
    }
    fn step(&mut self, action: &[usize]) -> Result<JobsStep> {
        JobsEnv::step(self, action)
    }
    fn fresh_copy(&self) -> Self {
        JobsEnv {
            shared: Arc::clone(&self.shared),
            family: self.family.clone(),
            templates: self.templates.clone(),
            slot_space: self.slot_space.clone(),
            choices: self.choices.clone(),
            action_space: self.action_space.clone(),
            observation_space: self.observation_space.clone(),
            episode: None,
        }
    }
}
