//! What a jobs policy knows of its env, and the observation decoded slot by slot.

use std::ops::Deref;

use schedlab_env::ActionSpace;
use schedlab_env::Observation;
use schedlab_env::jobs::observe::{
    CLUSTER_GROUP, FIELD_MODEL, FIELD_SIZE, FIELD_WORKERS, MODEL_FREE_GROUP, MODEL_GPUS_GROUP,
    MODEL_HELD_GROUP, MODEL_SPEED_GROUP, SLOT_ATTAINED, SLOT_CONTENTION, SLOT_GPU, SLOT_GROUP,
    SLOT_PRESENT, SLOT_REMAINING, SLOT_RUNNING, SLOT_SIZE_EXPONENT, SLOT_SIZE_LEVEL, SLOT_WAIT,
    SLOT_WORKERS, SLOT_WORKERS_LEVEL, seconds_of,
};
use schedlab_env::jobs::{ChoiceLayout, GPU_MILLI, JobsEnv, MILLI_PER_UNIT, speedup};

use super::common::PolicyContext;
use schedlab_env::EnvKind;

/// The declared spaces (slot-major) plus the scaling ladders of a jobs workload, its cluster's
/// size, and the prices of its resources.
#[derive(Debug, Clone)]
pub struct JobsContext {
    pub common: PolicyContext,
    /// The per-slot grid `slot x [workers, size, placement]` the heuristics plan in (the
    /// env's action space unless it takes one choice per step).
    pub slot_space: ActionSpace,
    /// The window and scaling settings that shape the spaces.
    pub interface_settings: Vec<(String, String)>,
    /// The one-choice layout, when the env takes one choice per step: the heuristics' plans
    /// then reach it through [`super::one_choice::OneChoice`].
    pub one_choice: Option<ChoiceLayout>,
    /// `workers[level - 1]` multiplies the requested container count (level 0: not running).
    pub workers: Vec<f64>,
    pub sizes: Vec<f64>,
    pub requested_workers_level: usize,
    pub requested_size_level: usize,
    pub max_time_s: f64,
    /// The cluster's total and its largest machine's `[cpu, mem, gpu]` (milli-units).
    pub cluster_capacity: [f64; 3],
    pub largest_machine: [f64; 3],
    /// Prices per milli-unit-second and the decision interval (an hour when the workload has
    /// none), for policies that price their choices.
    pub prices_per_s: [f64; 3],
    pub interval_s: f64,
}

impl Deref for JobsContext {
    type Target = PolicyContext;
    fn deref(&self) -> &PolicyContext {
        &self.common
    }
}

impl JobsContext {
    /// The kind of env this context is of.
    pub fn kind(&self) -> EnvKind {
        EnvKind::Jobs
    }

    /// What sets the shapes of this env's spaces: the settings a trained policy records
    /// (`JobsWorkload::interface_settings`).
    pub fn shape_settings(&self) -> Vec<(String, String)> {
        self.interface_settings.clone()
    }

    pub fn of(env: &JobsEnv) -> Self {
        let w = env.workload();
        let mut cluster_capacity = [0.0; 3];
        let mut largest_machine = [0.0f64; 3];
        for m in &w.machines {
            let c = [
                m.cpu_milli() as f64,
                m.mem_mib() as f64,
                (m.gpus * GPU_MILLI) as f64,
            ];
            for r in 0..3 {
                cluster_capacity[r] += c[r] * m.count as f64;
                largest_machine[r] = largest_machine[r].max(c[r]);
            }
        }
        let per_unit = w.prices.per_second();
        JobsContext {
            common: PolicyContext::new(env.action_space().clone(), env.observation_space().clone()),
            slot_space: env.slot_space().clone(),
            interface_settings: w.interface_settings(),
            one_choice: env.choice_layout().cloned(),
            cluster_capacity,
            largest_machine,
            prices_per_s: std::array::from_fn(|r| per_unit[r] / MILLI_PER_UNIT[r]),
            interval_s: if w.episode.decision_interval_s > 0.0 {
                w.episode.decision_interval_s
            } else {
                3600.0
            },
            workers: w.scaling.workers.clone(),
            sizes: w.scaling.sizes.clone(),
            requested_workers_level: w.scaling.requested_workers_level(),
            requested_size_level: w.scaling.requested_size_level(),
            max_time_s: w.episode.max_time_s,
        }
    }

    pub fn slots(&self) -> usize {
        self.slot_space.units()
    }

    /// The dimension of `field` (`observe::FIELD_*`) at `slot`.
    pub fn dim(&self, slot: usize, field: usize) -> usize {
        self.slot_space.dim(slot, field)
    }

    pub fn slot<'a>(&self, observation: &'a Observation, slot: usize) -> SlotView<'a> {
        let features = self
            .observation_space
            .group(SLOT_GROUP)
            .block(&observation.features, slot);
        let top = [
            self.slot_space.field_choices(FIELD_WORKERS) - 1,
            self.slot_space.field_choices(FIELD_SIZE) - 1,
        ];
        SlotView {
            slot,
            features,
            workers_level: (features[SLOT_WORKERS_LEVEL] * top[0] as f32).round() as usize,
            size_level: (features[SLOT_SIZE_LEVEL] * top[1] as f32).round() as usize,
        }
    }

    /// With `[heterogeneity]`, the GPU models the action's model field picks from (level
    /// `k + 1` is model `k`); 0 without.
    pub fn models(&self) -> usize {
        if self.slot_space.fields().len() > FIELD_MODEL {
            self.slot_space.field_choices(FIELD_MODEL) - 1
        } else {
            0
        }
    }

    /// The job in `slot`'s speed on each model over its speed on the reference model (with
    /// [`JobsContext::models`] > 0).
    pub fn model_speeds<'a>(&self, observation: &'a Observation, slot: usize) -> &'a [f32] {
        self.observation_space
            .group(MODEL_SPEED_GROUP)
            .block(&observation.features, slot)
    }

    /// Free GPUs of each model (with [`JobsContext::models`] > 0).
    pub fn free_gpus_per_model(&self, observation: &Observation) -> Vec<f64> {
        self.gpus_in(MODEL_FREE_GROUP, observation, 0)
    }

    /// The GPUs of each model the job in `slot` holds (with [`JobsContext::models`] > 0).
    pub fn held_gpus_per_model(&self, observation: &Observation, slot: usize) -> Vec<f64> {
        self.gpus_in(MODEL_HELD_GROUP, observation, slot)
    }

    /// The cluster's GPUs of each model (with [`JobsContext::models`] > 0).
    pub fn gpus_per_model(&self, observation: &Observation) -> Vec<f64> {
        let mut gpus = self.gpus_in(MODEL_GPUS_GROUP, observation, 0);
        gpus.truncate(self.models());
        gpus
    }

    /// Block `block` of a model group, shares of the cluster's GPUs, in GPUs: the cluster
    /// of this episode (a family's window has its own), whose GPUs end `model_gpus`.
    fn gpus_in(&self, group: &str, observation: &Observation, block: usize) -> Vec<f64> {
        let total = self
            .observation_space
            .group(MODEL_GPUS_GROUP)
            .block(&observation.features, 0)[self.models()];
        let gpus = f64::from(total).exp_m1().round();
        self.observation_space
            .group(group)
            .block(&observation.features, block)
            .iter()
            .map(|&share| f64::from(share) * gpus)
            .collect()
    }

    /// The GPUs the job in `view` asks for at `workers_level` (its size at the request).
    pub fn gpus_asked(&self, view: &SlotView, workers_level: usize) -> f64 {
        let per_container = f64::from(view.features[SLOT_GPU]) * self.largest_machine[2];
        self.worker_count(view, workers_level) * per_container / GPU_MILLI as f64
    }

    /// The cluster's features after the slots.
    pub fn cluster<'a>(&self, observation: &'a Observation) -> &'a [f32] {
        self.observation_space
            .group(CLUSTER_GROUP)
            .block(&observation.features, 0)
    }

    /// Jobs queued and running in the whole cluster, beyond the window too.
    pub fn in_system(&self, observation: &Observation) -> usize {
        let cluster = self.cluster(observation);
        let count = |f: f32| f64::from(f).exp_m1().round() as usize;
        count(cluster[4]) + count(cluster[5])
    }

    /// Virtual time now.
    pub fn now_s(&self, observation: &Observation) -> f64 {
        self.cluster(observation)[6] as f64 * self.max_time_s
    }

    /// Whether slot `slot` may take `level` in `field` (`observe::FIELD_*`).
    pub fn allowed(
        &self,
        observation: &Observation,
        slot: usize,
        field: usize,
        level: usize,
    ) -> bool {
        observation.mask_of(&self.slot_space, self.dim(slot, field))[level]
    }

    /// Every slot unchanged: running jobs keep their levels, queued ones wait.
    pub fn keep_all(&self, observation: &Observation) -> Vec<usize> {
        let mut action = vec![0; self.slot_space.dims()];
        for s in 0..self.slots() {
            let v = self.slot(observation, s);
            let (workers, size) = if v.running() {
                (v.workers_level, v.size_level)
            } else {
                (0, self.requested_size_level)
            };
            action[self.dim(s, FIELD_WORKERS)] = workers;
            action[self.dim(s, FIELD_SIZE)] = size;
        }
        action
    }

    /// The containers a workers level gives the job (0 at level 0).
    pub fn worker_count(&self, view: &SlotView, workers_level: usize) -> f64 {
        if workers_level == 0 {
            return 0.0;
        }
        let requested = view.features[SLOT_WORKERS].exp_m1().round() as f64;
        (requested * self.workers[workers_level - 1])
            .round()
            .max(1.0)
    }

    /// The nearest workers level above (`up`) or below the job's current one that changes its
    /// container count and that the mask allows.
    pub fn next_count_level(
        &self,
        observation: &Observation,
        view: &SlotView,
        up: bool,
    ) -> Option<usize> {
        let now = self.worker_count(view, view.workers_level);
        let top = self.slot_space.field_choices(FIELD_WORKERS) - 1;
        let candidates: Vec<usize> = if up {
            (view.workers_level + 1..=top).collect()
        } else {
            (1..view.workers_level).rev().collect()
        };
        candidates
            .into_iter()
            .find(|&l| self.worker_count(view, l) != now)
            .filter(|&l| self.allowed(observation, view.slot, FIELD_WORKERS, l))
    }

    /// The job's speed-up at a workers level and size level (its template's curve).
    pub fn speedup(&self, view: &SlotView, workers_level: usize, size_level: usize) -> f64 {
        if workers_level == 0 {
            return 0.0;
        }
        speedup(
            view.features[SLOT_CONTENTION] as f64,
            view.features[SLOT_SIZE_EXPONENT] as f64,
            self.worker_count(view, workers_level),
            self.sizes[size_level],
        )
    }
}

/// One window slot of an observation.
#[derive(Debug, Clone, Copy)]
pub struct SlotView<'a> {
    pub slot: usize,
    pub features: &'a [f32],
    pub workers_level: usize,
    pub size_level: usize,
}

impl SlotView<'_> {
    pub fn present(&self) -> bool {
        self.features[SLOT_PRESENT] > 0.5
    }
    pub fn running(&self) -> bool {
        self.features[SLOT_RUNNING] > 0.5
    }
    pub fn queued(&self) -> bool {
        self.present() && !self.running()
    }
    /// Seconds left at the requested allocation.
    pub fn remaining_s(&self) -> f64 {
        seconds_of(self.features[SLOT_REMAINING])
    }
    /// Seconds since it could first run (queued or running).
    pub fn wait_s(&self) -> f64 {
        seconds_of(self.features[SLOT_WAIT])
    }
    /// GPU-seconds (container-seconds without GPUs) received so far.
    pub fn attained_s(&self) -> f64 {
        seconds_of(self.features[SLOT_ATTAINED])
    }
}
