//! The DAG env: each step places the next task of the env's order (highest upward rank
//! among the ready tasks, [`env_order`]) on a GPU, at its earliest idle gap after its data
//! arrives (insertion, as HEFT). The mask hides GPUs without the memory for the task; the
//! reward is minus the makespan's increase, so an episode's return is minus its makespan.
//!
//! With `ready_tasks = K` a step chooses the task too: among the first K ready tasks of the
//! env's order (the highest upward ranks), one choice per (task, GPU) pair, each observed as
//! the GPU's features for that task and the task's. Slot 0 is always the env's next task, so
//! a scheduler that answers the GPU of the env's task (choice `g`) plays as in the default.

use std::sync::Arc;

use super::instance::DagWorkload;
use super::metrics::DagMetrics;
use super::problem::Problem;
use super::ranks::{env_order, lower_bound_s, mean_exec_s, upward_rank};
use super::schedule::Builder;
use super::window::ReadyWindow;
use crate::error::{EnvError, Result};
use crate::gym::{ActionSpace, Environment, Field, Observation, ObservationSpace, Step, StepInfo};

/// Per GPU: fits, relative speed, free-at, data arrival, earliest start, EFT over the best
/// EFT, busy share, memory.
pub const GPU_FEATURES: usize = 8;
/// The task: mean execution, upward rank, parents, children, data in, data out, progress,
/// makespan so far.
pub const TASK_FEATURES: usize = 8;

/// What a step reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DagInfo {
    /// The task placed by this step (or to be placed next, after `reset`), and where.
    pub task: usize,
    pub gpu: Option<usize>,
    pub start_s: f64,
    pub finish_s: f64,
    /// The makespan so far.
    pub time_s: f64,
    pub placed: usize,
    pub metrics: Option<DagMetrics>,
}

impl StepInfo<DagMetrics> for DagInfo {
    fn metrics(&self) -> Option<&DagMetrics> {
        self.metrics.as_ref()
    }
    fn time_s(&self) -> f64 {
        self.time_s
    }
}

/// Features of the episode in the task-choice interface: share placed, share of the window
/// holding ready tasks.
pub const EPISODE_FEATURES: usize = 2;

/// What an episode's seed fixes: its instance and the orders and scales read from it.
struct Instance {
    seed: u64,
    problem: Arc<Problem>,
    order: Vec<usize>,
    rank: Vec<f64>,
    /// The largest upward rank, the unit of the task's rank feature.
    rank_max: f64,
    mean_exec: Vec<f64>,
    /// Mean task execution seconds: the time unit of the features.
    scale: f64,
}

impl Instance {
    fn draw(workload: &DagWorkload, seed: u64) -> Self {
        let problem = Arc::new(workload.instance(seed));
        let rank = upward_rank(&problem);
        let mean_exec: Vec<f64> = (0..problem.len())
            .map(|t| mean_exec_s(&problem, t))
            .collect();
        Instance {
            seed,
            order: env_order(&problem),
            scale: mean_exec.iter().sum::<f64>() / problem.len() as f64,
            rank_max: rank.iter().copied().fold(f64::MIN_POSITIVE, f64::max),
            problem,
            rank,
            mean_exec,
        }
    }
}

struct Episode {
    instance: Instance,
    builder: Builder,
    window: ReadyWindow,
    episode_return: f64,
    done: bool,
}

impl Episode {
    fn place(&mut self, task: usize, gpu: usize) -> (f64, f64) {
        self.window.mark_placed(task);
        self.builder.place(&self.instance.problem, task, gpu)
    }
}

pub struct DagEnv {
    workload: Arc<DagWorkload>,
    action_space: ActionSpace,
    observation_space: ObservationSpace,
    episode: Option<Episode>,
}

impl DagEnv {
    pub fn new(workload: Arc<DagWorkload>) -> Self {
        let gpus = workload.platform.gpus();
        let (action_space, observation_space) = match workload.spec.ready_tasks {
            0 => (
                ActionSpace::grid("task", 1, vec![Field::new("gpu", gpus)]),
                ObservationSpace::new(&[("gpu", gpus, GPU_FEATURES), ("task", 1, TASK_FEATURES)]),
            ),
            k => (
                ActionSpace::grid("decision", 1, vec![Field::new("task x gpu", k * gpus)]),
                ObservationSpace::new(&[
                    ("task x gpu", k * gpus, GPU_FEATURES + TASK_FEATURES),
                    ("episode", 1, EPISODE_FEATURES),
                ]),
            ),
        };
        DagEnv {
            action_space,
            observation_space,
            workload,
            episode: None,
        }
    }

    pub fn workload(&self) -> &Arc<DagWorkload> {
        &self.workload
    }

    /// The current episode's problem (none before the first `reset`).
    pub fn problem(&self) -> Option<&Arc<Problem>> {
        self.episode.as_ref().map(|e| &e.instance.problem)
    }

    /// The schedule so far.
    pub fn schedule(&self) -> Option<&super::Schedule> {
        self.episode.as_ref().map(|e| e.builder.schedule())
    }

    fn observe(&self, e: &Episode) -> Observation {
        let mut features = vec![0.0f32; self.observation_space.len()];
        let mut mask = vec![false; self.action_space.mask_len()];
        if e.done {
            mask.fill(true);
            return Observation {
                features,
                action_mask: mask,
            };
        }
        let k = self.workload.spec.ready_tasks;
        if k == 0 {
            let (gpu_blocks, task_block, fits) = self.task_features(e, e.window.next_task());
            let at = self.observation_space.group("gpu").offset;
            for (g, block) in gpu_blocks.iter().enumerate() {
                let at = at + g * GPU_FEATURES;
                features[at..at + GPU_FEATURES].copy_from_slice(block);
            }
            let at = self.observation_space.group("task").offset;
            features[at..at + TASK_FEATURES].copy_from_slice(&task_block);
            mask = fits;
        } else {
            let gpus = e.instance.problem.gpus();
            let width = GPU_FEATURES + TASK_FEATURES;
            let window = self.asked(e);
            for (slot, &task) in window.iter().enumerate() {
                let (gpu_blocks, task_block, fits) = self.task_features(e, task);
                for (g, block) in gpu_blocks.iter().enumerate() {
                    let at = (slot * gpus + g) * width;
                    features[at..at + GPU_FEATURES].copy_from_slice(block);
                    features[at + GPU_FEATURES..at + width].copy_from_slice(&task_block);
                    mask[slot * gpus + g] = fits[g];
                }
            }
            let at = self.observation_space.group("episode").offset;
            features[at..at + EPISODE_FEATURES].copy_from_slice(&[
                e.builder.placed() as f32 / e.instance.problem.len() as f32,
                window.len() as f32 / k as f32,
            ]);
        }
        Observation {
            features,
            action_mask: mask,
        }
    }

    /// Placing `task` now: each GPU's features for it, the task's, and which GPUs hold it.
    fn task_features(
        &self,
        e: &Episode,
        task: usize,
    ) -> (Vec<[f32; GPU_FEATURES]>, [f32; TASK_FEATURES], Vec<bool>) {
        let (p, gpus) = (&*e.instance.problem, e.instance.problem.gpus());
        let b = &e.builder;
        let ready: Vec<f64> = (0..gpus).map(|g| b.data_ready_s(p, task, g)).collect();
        let reference = ready.iter().copied().fold(f64::INFINITY, f64::min);
        let start: Vec<f64> = (0..gpus)
            .map(|g| b.earliest_start_after_s(p, task, g, ready[g]))
            .collect();
        let eft: Vec<f64> = (0..gpus).map(|g| start[g] + p.exec_s(task, g)).collect();
        let best_eft = eft.iter().copied().fold(f64::INFINITY, f64::min);
        let makespan = b.makespan_s();
        let largest_memory = self.workload.platform.largest_memory_gb();
        let time = |t: f64| ((t - reference) / e.instance.scale) as f32;
        let mut fits = vec![false; gpus];
        let blocks = (0..gpus)
            .map(|g| {
                let mut block = [0.0f32; GPU_FEATURES];
                block[6] = (b.gpu_busy_s(g) / makespan.max(f64::MIN_POSITIVE)) as f32;
                block[7] = (self.workload.platform.memory_gb(g) / largest_memory) as f32;
                block[2] = time(b.gpu_free_s(g).max(reference));
                block[3] = time(ready[g]);
                if p.fits(task, g) {
                    fits[g] = true;
                    block[0] = 1.0;
                    block[1] = (e.instance.mean_exec[task] / p.exec_s(task, g)) as f32;
                    block[4] = time(start[g]);
                    block[5] = ((eft[g] - best_eft) / e.instance.scale) as f32;
                }
                block
            })
            .collect();
        let per_mb = p.mean_per_mb_s();
        let data = |edges: &[(usize, f64)]| {
            (edges.iter().map(|(_, d)| d * per_mb).sum::<f64>() / e.instance.scale) as f32
        };
        let task_block = [
            (e.instance.mean_exec[task] / e.instance.scale) as f32,
            (e.instance.rank[task] / e.instance.rank_max) as f32,
            (p.preds(task).len() as f32).ln_1p(),
            (p.succs(task).len() as f32).ln_1p(),
            data(p.preds(task)),
            data(p.succs(task)),
            b.placed() as f32 / p.len() as f32,
            time(makespan.max(reference)),
        ];
        (blocks, task_block, fits)
    }

    /// The tasks a decision chooses among: the env's next one, or the window of `ready_tasks`.
    fn asked(&self, e: &Episode) -> Vec<usize> {
        match self.workload.spec.ready_tasks {
            0 => vec![e.window.next_task()],
            k => e.window.tasks(&e.instance.problem, k),
        }
    }

    /// The task and GPU `action` names (choice `slot x GPUs + gpu`), or why it is not allowed.
    fn decode(&self, e: &Episode, action: &[usize]) -> Result<(usize, usize)> {
        let p = &e.instance.problem;
        let tasks = self.asked(e);
        let mut mask = vec![false; self.action_space.mask_len()];
        for (slot, &task) in tasks.iter().enumerate() {
            for g in 0..p.gpus() {
                mask[slot * p.gpus() + g] = p.fits(task, g);
            }
        }
        self.action_space
            .check(action, &mask)
            .map_err(|err| EnvError::BadAction(err.to_string()))?;
        Ok((tasks[action[0] / p.gpus()], action[0] % p.gpus()))
    }

    fn info(e: &Episode, task: usize, placed: Option<(usize, f64, f64)>) -> DagInfo {
        let (gpu, start_s, finish_s) = match placed {
            Some((g, s, f)) => (Some(g), s, f),
            None => (None, f64::NAN, f64::NAN),
        };
        DagInfo {
            task,
            gpu,
            start_s,
            finish_s,
            time_s: e.builder.makespan_s(),
            placed: e.builder.placed(),
            metrics: None,
        }
    }
}

impl Environment for DagEnv {
    type Metrics = DagMetrics;
    type Info = DagInfo;

    fn workload_name(&self) -> &str {
        self.workload.name()
    }
    fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }
    fn step_limit(&self) -> usize {
        self.workload.max_tasks()
    }

    fn reset(&mut self, seed: u64) -> Result<(Observation, DagInfo)> {
        // a seed played again (a guide's episodes of one instance) keeps its instance
        let instance = match self.episode.take() {
            Some(e) if e.instance.seed == seed => e.instance,
            _ => Instance::draw(&self.workload, seed),
        };
        let episode = Episode {
            builder: Builder::new(&instance.problem),
            window: ReadyWindow::new(instance.order.clone()),
            instance,
            episode_return: 0.0,
            done: false,
        };
        let observation = self.observe(&episode);
        let info = Self::info(&episode, episode.window.next_task(), None);
        self.episode = Some(episode);
        Ok((observation, info))
    }

    fn step(&mut self, action: &[usize]) -> Result<Step<DagInfo>> {
        let e = self.episode.as_ref().ok_or(EnvError::EpisodeOver)?;
        if e.done {
            return Err(EnvError::EpisodeOver);
        }
        let (task, gpu) = self.decode(e, action)?;
        let mut e = self.episode.take().expect("checked above");
        let before = e.builder.makespan_s();
        let (start, finish) = e.place(task, gpu);
        let reward = -(e.builder.makespan_s() - before);
        e.episode_return += reward;
        e.done = e.builder.placed() == e.instance.problem.len();
        let mut info = Self::info(&e, task, Some((gpu, start, finish)));
        if e.done {
            info.metrics = Some(DagMetrics::of(
                &e.instance.problem,
                e.builder.schedule(),
                lower_bound_s(&e.instance.problem),
                e.episode_return,
            ));
        }
        let observation = self.observe(&e);
        let terminated = e.done;
        self.episode = Some(e);
        Ok(Step {
            observation,
            reward,
            terminated,
            truncated: false,
            info,
        })
    }

    fn fresh_copy(&self) -> Self {
        DagEnv::new(Arc::clone(&self.workload))
    }
}
