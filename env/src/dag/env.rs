//! The DAG env: each step places the next task of the env's order (highest upward rank
//! among the ready tasks, [`env_order`]) on a GPU, at its earliest idle gap after its data
//! arrives (insertion, as HEFT). The mask hides GPUs without the memory for the task; the
//! reward is minus the makespan's increase, so an episode's return is minus its makespan.

use std::sync::Arc;

use super::metrics::DagMetrics;
use super::problem::Problem;
use super::ranks::{env_order, lower_bound_s, mean_exec_s, upward_rank};
use super::schedule::Builder;
use super::workload::DagWorkload;
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
    episode_return: f64,
    done: bool,
}

impl Episode {
    fn next_task(&self) -> usize {
        self.instance.order[self.builder.placed()]
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
        DagEnv {
            action_space: ActionSpace::grid("task", 1, vec![Field::new("gpu", gpus)]),
            observation_space: ObservationSpace::new(&[
                ("gpu", gpus, GPU_FEATURES),
                ("task", 1, TASK_FEATURES),
            ]),
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
        let (p, gpus) = (&*e.instance.problem, e.instance.problem.gpus());
        let mut features = vec![0.0f32; self.observation_space.len()];
        let mut mask = vec![false; gpus];
        if e.done {
            mask.fill(true);
            return Observation {
                features,
                action_mask: mask,
            };
        }
        let task = e.next_task();
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
        let gpu_group = self.observation_space.group("gpu");
        for g in 0..gpus {
            let at = gpu_group.offset + g * GPU_FEATURES;
            let block = &mut features[at..at + GPU_FEATURES];
            block[6] = (b.gpu_busy_s(g) / makespan.max(f64::MIN_POSITIVE)) as f32;
            block[7] = (self.workload.platform.memory_gb(g) / largest_memory) as f32;
            block[2] = time(b.gpu_free_s(g).max(reference));
            block[3] = time(ready[g]);
            if p.fits(task, g) {
                mask[g] = true;
                block[0] = 1.0;
                block[1] = (e.instance.mean_exec[task] / p.exec_s(task, g)) as f32;
                block[4] = time(start[g]);
                block[5] = ((eft[g] - best_eft) / e.instance.scale) as f32;
            }
        }
        let per_mb = p.mean_per_mb_s();
        let data = |edges: &[(usize, f64)]| {
            (edges.iter().map(|(_, d)| d * per_mb).sum::<f64>() / e.instance.scale) as f32
        };
        let at = self.observation_space.group("task").offset;
        features[at..at + TASK_FEATURES].copy_from_slice(&[
            (e.instance.mean_exec[task] / e.instance.scale) as f32,
            (e.instance.rank[task] / e.instance.rank_max) as f32,
            (p.preds(task).len() as f32).ln_1p(),
            (p.succs(task).len() as f32).ln_1p(),
            data(p.preds(task)),
            data(p.succs(task)),
            b.placed() as f32 / p.len() as f32,
            time(makespan.max(reference)),
        ]);
        Observation {
            features,
            action_mask: mask,
        }
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
            instance,
            episode_return: 0.0,
            done: false,
        };
        let observation = self.observe(&episode);
        let info = Self::info(&episode, episode.next_task(), None);
        self.episode = Some(episode);
        Ok((observation, info))
    }

    fn step(&mut self, action: &[usize]) -> Result<Step<DagInfo>> {
        let e = self.episode.as_ref().ok_or(EnvError::EpisodeOver)?;
        if e.done {
            return Err(EnvError::EpisodeOver);
        }
        let mask: Vec<bool> = (0..e.instance.problem.gpus())
            .map(|g| e.instance.problem.fits(e.next_task(), g))
            .collect();
        self.action_space
            .check(action, &mask)
            .map_err(|err| EnvError::BadAction(err.to_string()))?;
        let mut e = self.episode.take().expect("checked above");
        let (task, gpu) = (e.next_task(), action[0]);
        let before = e.builder.makespan_s();
        let (start, finish) = e.builder.place(&e.instance.problem, task, gpu);
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
