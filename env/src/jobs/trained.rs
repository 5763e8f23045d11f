//! The `trained` fidelity (`fidelity = "trained"`, called `"real"` before): every running job
//! trains its template's single-job workload with the real HB-ASGD loop (real gradients on
//! real data, in process, on the virtual clock) on containers like the ones it holds, and
//! finishes when that run reaches its target loss.
//!
//! A job's clock runs `duration / (time_at_one_s / S(requested))` times the template's, so
//! at its requested allocation it takes about its trace duration, as in the surrogate; what
//! differs is that its progress comes from real training.

use std::path::Path;
use std::sync::Arc;

use super::schema::{JobsWorkload, Template};
use crate::cluster::Resource;
use crate::error::Result;
use crate::gym::Observation;
use crate::single_job::SingleJobEnv;
use crate::single_job::SingleJobWorkload;
use crate::single_job::scenario::Scenario;
use crate::workload_file::resolve;

/// Each template's single-job workload, its nodes replaced by `nodes` copies of its first
/// node (a job's containers sit on like machines).
pub fn load_template(path: &Path, nodes: usize) -> Result<Arc<Scenario>> {
    let mut workload = SingleJobWorkload::load(path)?;
    workload.nodes.truncate(1);
    workload.nodes[0].count = nodes.max(1);
    Scenario::from_workload(path, workload)
}

/// The templates of a jobs workload read from `path`, with as many nodes as any of its jobs
/// can get containers.
pub fn load_templates(path: &Path, workload: &JobsWorkload) -> Result<Vec<Arc<Scenario>>> {
    let top = workload.scaling.workers.last().copied().unwrap_or(1.0);
    workload
        .templates
        .iter()
        .map(|t| {
            let most = workload
                .jobs
                .iter()
                .filter(|j| j.template == t.name)
                .map(|j| (j.workers as f64 * top).round() as usize)
                .max()
                .unwrap_or(1);
            load_template(&resolve(path, &t.workload), most)
        })
        .collect()
}

/// The ladder levels `[cpu, mem, gpu]` of a container `offset` levels of the primary
/// resource (GPU where the nodes have GPUs, else CPU) from the middle, and that size over
/// the middle one. `templates fit` and the trained fidelity share it.
pub fn template_levels(scenario: &Scenario, offset: i32) -> ([usize; 3], f64) {
    let ladder = &scenario.workload.containers;
    let has_gpu = scenario.nodes.iter().any(|n| n.gpus > 0) && !ladder.gpus.is_empty();
    let primary = if has_gpu {
        Resource::Gpu
    } else {
        Resource::Cpu
    };
    let levels = Resource::ALL.map(|r| {
        let middle = ladder.middle_level(r);
        if r == primary {
            let top = ladder.sizes(r).len() as i32;
            (middle as i32 + offset).clamp(1.min(top), top) as usize
        } else {
            middle
        }
    });
    let size = ladder.amount(primary, levels[primary as usize])
        / ladder.amount(primary, ladder.middle_level(primary));
    (levels, size)
}

/// The action giving `workers` containers at `levels` (the largest the mask allows below).
pub fn action_for(
    env: &SingleJobEnv,
    observation: &Observation,
    workers: usize,
    levels: [usize; 3],
) -> Vec<usize> {
    let space = env.action_space();
    (0..space.dims())
        .map(|d| {
            let want = if space.unit_of(d) < workers {
                levels[space.field_of(d)]
            } else {
                0
            };
            (0..=want)
                .rev()
                .find(|&l| observation.mask_of(space, d)[l])
                .unwrap_or(0)
        })
        .collect()
}

/// One job's training run.
pub(crate) struct TrainedJob {
    env: SingleJobEnv,
    observation: Observation,
    workers: usize,
    levels: [usize; 3],
    /// Cluster seconds per round of the template's clock.
    pub round_s: f64,
    /// When its next round ends (infinite while it does not run).
    pub next_round_s: f64,
}

impl TrainedJob {
    pub fn new(
        scenario: &Arc<Scenario>,
        template: &Template,
        duration_s: f64,
        requested: u32,
        seed: u64,
    ) -> Result<Self> {
        let mut env = SingleJobEnv::new(scenario.clone());
        let (observation, _) = env.reset(seed)?;
        let at_request = template.time_at_one_s / template.speedup(requested as f64, 1.0);
        let round_s = scenario.workload.episode.round_interval_s * duration_s / at_request;
        Ok(TrainedJob {
            env,
            observation,
            workers: 0,
            levels: [0; 3],
            round_s,
            next_round_s: f64::INFINITY,
        })
    }

    /// Runs on `workers` containers, `size_offset` primary-resource levels from the middle.
    pub fn set_allocation(&mut self, workers: usize, size_offset: i32) {
        self.workers = workers;
        self.levels = template_levels(self.env.scenario(), size_offset).0;
    }

    /// One round of real training; true once the job reached its target (or its own limit).
    pub fn step(&mut self) -> Result<bool> {
        let action = action_for(&self.env, &self.observation, self.workers, self.levels);
        let step = self.env.step(&action)?;
        self.observation = step.observation;
        Ok(step.terminated || step.truncated)
    }
}
