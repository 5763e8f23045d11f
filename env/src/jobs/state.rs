//! The jobs env's state: what every episode of a workload shares ([`Shared`]), and one
//! episode's jobs, queue, cluster and running sums ([`Episode`]). Dynamics, accounting and
//! observation read and change it; none of them know of each other's internals.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::sync::Arc;

use super::heterogeneity::ModelSpeeds;
use super::machines::{Cluster, Container, Models, Within};
use super::metrics::Integrals;
use super::refusals::Refusals;
use super::requests::scaled_request;
use super::schema::{GPU_MILLI, JobsWorkload};
use super::sharing::Sharer;
use super::trained::TrainedJob;
use crate::real::jobs::RealCluster;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Status {
    /// Not arrived yet, or arrived with DAG parents still unfinished.
    Waiting,
    Queued,
    Running,
    Done,
}

/// A job's state in one episode.
#[derive(Debug, Clone)]
pub(super) struct Job {
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
    /// The integral of jobs in the system (`Integrals::in_system`) at its arrival and at its
    /// finish: their difference over its lifetime is how many it contended with
    /// (`fairness.rs`).
    pub in_system_at_arrival: f64,
    pub in_system_at_finish: f64,
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

    pub fn settle(&mut self, now: f64) {
        self.remaining = self.remaining_at(now);
        self.attained = self.attained_at(now);
        self.anchor_s = now;
    }
}

/// Totals as `f64` keys for heaps (the completion heap, the bounds' remaining work).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Time(pub f64);
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

/// What every episode of a workload shares: the workload, per-job template, DAG links,
/// arrival order and the empty cluster.
#[derive(Debug)]
pub(super) struct Shared {
    pub workload: Arc<JobsWorkload>,
    pub template: Vec<usize>,
    pub children: Vec<Vec<u32>>,
    pub parents: Vec<u32>,
    /// Job indices by arrival time (stable).
    pub arrival_order: Vec<u32>,
    /// The empty cluster, with the workload's request shapes indexed; each episode copies it.
    pub empty_cluster: Cluster,
    /// The templates' speeds on the machines' GPU models, with `[heterogeneity]` on.
    pub model_speeds: Option<ModelSpeeds>,
    /// Per job, the machines its `gpu_models` allow.
    pub within: Vec<Models>,
    /// With `[heterogeneity]`, the machines of each model (`ModelSpeeds::names`): what the
    /// action's model field picks from.
    pub model_sets: Vec<Models>,
    /// Per job whose tenant has a guaranteed share: the tenant's index in `tenant_shares`
    /// and its share.
    pub tenant_share: Vec<Option<(usize, f64)>>,
}

/// Per job whose tenant has a guaranteed share: the tenant's index in `tenant_shares` and its
/// share.
fn tenant_shares_of(workload: &JobsWorkload) -> Vec<Option<(usize, f64)>> {
    let shares = &workload.tenant_shares;
    (workload.jobs.iter())
        .map(|j| {
            let tenant = j.tenant.as_deref()?;
            let at = shares.keys().position(|t| t == tenant)?;
            Some((at, shares[tenant]))
        })
        .collect()
}

impl Shared {
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
        let model_speeds = workload.heterogeneity.as_ref().map(|h| {
            ModelSpeeds::resolve(&workload, h)
                .unwrap_or_else(|(key, why)| panic!("validated at load: {key}: {why}"))
        });
        let mut empty_cluster = Cluster::new(&workload.machines, &shapes);
        if let Some(rules) = model_speeds.as_ref().and_then(ModelSpeeds::sharing_rules) {
            empty_cluster = empty_cluster.with_sharing(rules);
        }
        let within = jobs
            .iter()
            .map(|j| match j.gpu_models.as_slice() {
                [] => Models::ANY,
                names => empty_cluster
                    .models(names)
                    .expect("validated: every constraint names a machine's model"),
            })
            .collect();
        let model_sets = model_speeds.as_ref().map_or_else(Vec::new, |s| {
            s.names()
                .iter()
                // a mapped model no machine of this window has: nothing to go to
                .map(|name| {
                    empty_cluster
                        .models(std::slice::from_ref(name))
                        .unwrap_or(Models::NONE)
                })
                .collect()
        });
        Shared {
            tenant_share: tenant_shares_of(&workload),
            workload,
            template,
            children,
            parents,
            arrival_order,
            empty_cluster,
            model_speeds,
            within,
            model_sets,
        }
    }

    /// The largest speed job `i` can have on any GPU model of the cluster (1 without
    /// `[heterogeneity]`), for lower bounds.
    pub fn fastest_factor(&self, i: usize) -> f64 {
        self.model_speeds
            .as_ref()
            .map_or(1.0, |s| s.fastest(self.template[i]))
    }

    /// The machines job `job` may run on, as the job whose GPU shares must fit beside others'.
    pub fn within(&self, job: usize) -> Within {
        Within {
            models: self.within[job],
            sharer: self.sharer(job),
        }
    }

    fn sharer(&self, job: usize) -> Option<Sharer> {
        Some(Sharer {
            job: job as u32,
            kind: self.template[job] as u16,
        })
    }

    /// The machines job `job` may run on when the action's model field says `level` (0: any
    /// model; `k`: the `k`-th of `model_sets`).
    pub fn within_model(&self, job: usize, level: usize) -> Within {
        let models = match level {
            0 => self.within[job],
            k => self.within[job].and(self.model_sets[k - 1]),
        };
        Within {
            models,
            sharer: self.sharer(job),
        }
    }

    pub fn template_of(&self, job: usize) -> usize {
        self.template[job]
    }

    /// The containers job `job` gets at a workers level (level 0 is not running).
    pub fn worker_count(&self, job: usize, workers_level: usize) -> u32 {
        let factor = self.workload.scaling.workers[workers_level - 1];
        ((self.workload.jobs[job].workers as f64 * factor).round() as u32).max(1)
    }

    /// The GPUs job `job` asks for at its request, whole (a share of one counts as one).
    pub fn requested_gpus(&self, job: usize) -> u32 {
        let scaling = &self.workload.scaling;
        let container = self.container(job, scaling.requested_size_level());
        let count = self.worker_count(job, scaling.requested_workers_level());
        (container[2] * count).div_ceil(GPU_MILLI)
    }

    /// One container of job `job` at a size level.
    pub fn container(&self, job: usize, size_level: usize) -> [u32; 3] {
        scaled_request(
            self.workload.jobs[job].request(),
            self.workload.scaling.sizes[size_level],
        )
    }
}

pub(super) struct Episode {
    pub now: f64,
    pub jobs: Vec<Job>,
    pub cluster: Cluster,
    pub next_arrival: usize,
    pub next_tick: f64,
    pub completions: BinaryHeap<Reverse<(Time, u32, u32)>>,
    /// Queued jobs in queue order.
    pub queue: BTreeMap<u64, u32>,
    pub queue_key: Vec<u64>,
    pub next_key: u64,
    /// Running jobs in the order the window shows them (round-robin).
    pub running_ring: VecDeque<(u32, u32)>,
    pub counts: [usize; 4],
    /// What the queued jobs request in all, `[cpu, mem, gpu]` milli-units x containers.
    pub queued_demand: [u64; 3],
    pub used_rate: [f64; 3],
    pub sums: Integrals,
    pub reward_marks: (f64, f64),
    /// The jobs' projected remaining seconds when the last reward was taken, and the virtual
    /// time it was taken at (`reward.remaining_potential`, accounting.rs).
    pub potential_mark: (f64, f64),
    /// `reward.lambda_fairness`'s excess ρ of the jobs finished since the last reward.
    pub fairness_due: f64,
    /// Per tenant with a guaranteed share, its jobs in the system now and their time
    /// integral (the tenant's `Integrals::in_system`).
    pub tenant_in_system: Vec<u32>,
    pub tenant_in_system_s: Vec<f64>,
    pub window: Vec<Option<u32>>,
    /// One-choice interface: the slots changed since the window was drawn.
    pub changed: Vec<bool>,
    pub mask: Vec<bool>,
    /// Placements refused to queued jobs, for the model mask (refusals.rs).
    pub refusals: Refusals,
    pub steps_here: usize,
    pub decision_points: usize,
    pub steps: usize,
    pub rejected_total: usize,
    /// Jobs the env started because the clock was to move while they fit (conserve.rs).
    pub forced_total: usize,
    pub episode_return: f64,
    pub done: bool,
    /// The `trained` fidelity's training run of each job.
    pub trained_jobs: Vec<TrainedJob>,
    /// The jobs as real processes, where the workload executes for real; dropped at the
    /// episode's end (its processes and groups go with it).
    pub executed: Option<Box<RealCluster>>,
}

impl Episode {
    /// The integral of jobs in the system a job of tenant share `share` (`Shared::tenant_share`)
    /// is measured by: its tenant's where the tenant has a guaranteed share, else everyone's.
    pub fn in_system_for(&self, share: Option<(usize, f64)>) -> f64 {
        share.map_or(self.sums.in_system, |(t, _)| self.tenant_in_system_s[t])
    }

    /// Jobs whose arrival time has passed.
    pub fn arrived(&self) -> usize {
        self.next_arrival
    }
    pub fn count(&self, status: Status) -> usize {
        self.counts[status as usize]
    }
    /// Nothing runs and nothing is left to arrive (or to be released by a parent): moving the
    /// clock only adds time to every queued job (env/src/jobs/conserve.rs).
    pub fn frozen(&self) -> bool {
        [Status::Running, Status::Waiting]
            .iter()
            .all(|&s| self.count(s) == 0)
    }
}

/// Where a status counts in [`Episode::counts`].
pub(super) fn status_index(s: Status) -> usize {
    s as usize
}
