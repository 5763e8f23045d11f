//! Gavel's heterogeneity-aware policies (Narayanan et al., 2020) over the window: at each
//! decision, an allocation program (`gavel_lp.rs`) over the jobs the window shows gives each
//! job a share of time on each GPU model, and a round of Gavel's mechanism realises it.
//! Jobs run in order of `share / share received so far` (Gavel's priority; the share
//! received is the job's attained GPU-seconds over its GPUs times its time in the system),
//! each on the model where its share is largest that has room. A running job the round
//! leaves out is preempted when a job ahead of it needs its GPUs, and one with no share on
//! the model it runs on is moved (preempted, then started on its planned model); what is left
//! over goes to the remaining jobs on their fastest model with room. Without
//! `[heterogeneity]` both rows play as `static`. What the window does not show (running jobs
//! beyond its running slots) keeps its GPUs and counts only in the isolated share's `N`.

use schedlab_env::EnvKind;
use schedlab_env::Observation;
use schedlab_env::jobs::observe::{FIELD_MODEL, FIELD_PLACEMENT, FIELD_WORKERS};

use super::gavel_lp::{Allocation, LpCluster, LpJob, finish_time_fairness, max_min_fairness};
use super::ordering::{Order, OrderingPolicy};
use super::placement::PLACEMENT;
use crate::context::{JobsContext, SlotView};
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;

pub const MAX_MIN: SchedulerRow = SchedulerRow {
    name: "gavel-max-min",
    kinds: &[EnvKind::Jobs],
    help: "Gavel's heterogeneity-aware LAS: max-min fairness of throughput over the isolated share, an LP per decision",
    options: &[PLACEMENT, AWARE],
    build: |ctx, o| build(ctx, o, Program::MaxMin),
};

pub const FINISH_TIME: SchedulerRow = SchedulerRow {
    name: "gavel-ftf",
    kinds: &[EnvKind::Jobs],
    help: "Gavel's finish-time fairness (Themis's rho): the largest rho minimised, LPs by bisection (needs window.oracle)",
    options: &[PLACEMENT, AWARE],
    build: |ctx, o| build(ctx, o, Program::FinishTime),
};

/// Gavel's heterogeneity-agnostic variant of a policy is the same program with every
/// throughput 1 where the job may run.
const AWARE: OptionSpec = OptionSpec {
    key: "aware",
    kind: OptionType::Bool,
    default: "true",
    help: "read the measured throughputs (false: every model counts as 1, Gavel's agnostic variant)",
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Program {
    MaxMin,
    FinishTime,
}

fn build(
    ctx: &crate::context::EnvContext,
    o: &Options,
    program: Program,
) -> Result<Box<dyn Policy>, PolicyError> {
    let ctx = JobsContext::part_of(ctx).clone();
    let name = match program {
        Program::MaxMin => MAX_MIN.name,
        Program::FinishTime => FINISH_TIME.name,
    };
    let homogeneous =
        OrderingPolicy::new(name, ctx.clone(), Order::Fifo, o.choice("placement"), true);
    Ok(Box::new(Gavel {
        name,
        ctx,
        program,
        placement: o.choice("placement"),
        aware: o.flag("aware"),
        homogeneous,
    }))
}

pub struct Gavel {
    name: &'static str,
    ctx: JobsContext,
    program: Program,
    /// Level 0 best-fit, 1 worst-fit, within the chosen model.
    placement: usize,
    /// Read the measured throughputs, or count every model as 1.
    aware: bool,
    /// What plays without `[heterogeneity]`: `static`.
    homogeneous: OrderingPolicy,
}

/// A visible job with GPUs: its slot, what the program sees of it, and its priority.
struct Candidate {
    slot: usize,
    running: bool,
    /// Per model, the GPUs it holds (all 0 when queued).
    held: Vec<f64>,
    job: LpJob,
    priority: f64,
}

impl Gavel {
    /// The visible jobs with GPUs, and per model the GPUs the program may give out: the free
    /// ones and those the visible running jobs hold.
    fn candidates(&self, observation: &Observation) -> (Vec<Candidate>, LpCluster) {
        let ctx = &self.ctx;
        let mut capacity = ctx.free_gpus_per_model(observation);
        let mut candidates = Vec::new();
        for slot in 0..ctx.slots() {
            let view = ctx.slot(observation, slot);
            if !view.present() {
                continue;
            }
            let held = ctx.held_gpus_per_model(observation, slot);
            let gpus = if view.running() {
                held.iter().sum()
            } else {
                ctx.gpus_asked(&view, ctx.requested_workers_level)
            };
            if gpus <= 0.0 {
                continue;
            }
            for (c, h) in capacity.iter_mut().zip(&held) {
                *c += h;
            }
            let speed = ctx
                .model_speeds(observation, slot)
                .iter()
                .map(|&s| match (self.aware, s > 0.0) {
                    (true, _) => f64::from(s),
                    (false, true) => 1.0,
                    (false, false) => 0.0,
                })
                .collect();
            candidates.push(Candidate {
                slot,
                running: view.running(),
                held,
                job: LpJob {
                    gpus,
                    speed,
                    elapsed_s: view.wait_s(),
                    remaining_s: view.remaining_s(),
                },
                priority: 0.0,
            });
        }
        let cluster = LpCluster {
            capacity,
            totals: ctx.gpus_per_model(observation),
            in_system: ctx.in_system(observation).max(candidates.len()),
        };
        (candidates, cluster)
    }

    fn allocate(&self, jobs: &[LpJob], cluster: &LpCluster) -> Allocation {
        match self.program {
            Program::MaxMin => max_min_fairness(jobs, cluster),
            Program::FinishTime => finish_time_fairness(jobs, cluster),
        }
    }
}

/// Gavel's priority: the share the program gives over the share received so far.
fn priority(share: f64, view: &SlotView, gpus: f64) -> f64 {
    let received = if view.wait_s() > 0.0 {
        view.attained_s() / (gpus * view.wait_s())
    } else {
        0.0
    };
    share / received.max(1e-6)
}

/// The model (index) a job runs on: where it holds its GPUs.
fn model_held(held: &[f64]) -> usize {
    (0..held.len())
        .max_by(|&a, &b| held[a].total_cmp(&held[b]))
        .unwrap_or(0)
}

/// The round's plan: per candidate, the model it should run on, or `None`, taking them in
/// `order` (by priority).
fn plan(
    candidates: &[Candidate],
    order: &[usize],
    x: &Allocation,
    capacity: &[f64],
) -> Vec<Option<usize>> {
    let mut room = capacity.to_vec();
    let mut chosen = vec![None; candidates.len()];
    for &c in order {
        let candidate = &candidates[c];
        let gpus = candidate.job.gpus;
        if x[c].iter().sum::<f64>() <= 1e-9 {
            continue;
        }
        // a running job stays where it runs while it has a share there; otherwise it moves
        let stays = candidate
            .running
            .then(|| model_held(&candidate.held))
            .filter(|&m| x[c][m] > 1e-9 && room[m] + 1e-9 >= gpus);
        let model = stays.or_else(|| {
            ranked(&x[c], 1e-9)
                .into_iter()
                .find(|&m| room[m] + 1e-9 >= gpus)
        });
        if let Some(m) = model {
            room[m] -= gpus;
            chosen[c] = Some(m);
        }
    }
    chosen
}

impl Policy for Gavel {
    fn name(&self) -> &str {
        self.name
    }

    fn reset(&mut self, seed: u64) {
        self.homogeneous.reset(seed);
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let ctx = &self.ctx;
        if ctx.models() == 0 {
            return self.homogeneous.act(observation);
        }
        let mut action = ctx.keep_all(observation);
        let (mut candidates, cluster) = self.candidates(observation);
        let jobs: Vec<LpJob> = candidates.iter().map(|c| c.job.clone()).collect();
        let x = self.allocate(&jobs, &cluster);
        for (c, candidate) in candidates.iter_mut().enumerate() {
            let view = ctx.slot(observation, candidate.slot);
            candidate.priority = priority(x[c].iter().sum(), &view, candidate.job.gpus);
        }
        let mut order: Vec<usize> = (0..candidates.len()).collect();
        order.sort_by(|&a, &b| candidates[b].priority.total_cmp(&candidates[a].priority));
        let chosen = plan(&candidates, &order, &x, &cluster.capacity);
        let mut free = ctx.free_gpus_per_model(observation);
        // the models whose planned starts wait for GPUs running jobs hold
        let mut blocked = vec![false; free.len()];
        // planned starts first, in priority order; then the rest on their fastest with room
        for pass in [true, false] {
            for &c in &order {
                let candidate = &candidates[c];
                if candidate.running || chosen[c].is_some() != pass {
                    continue;
                }
                let models =
                    chosen[c].map_or_else(|| ranked(&candidate.job.speed, 0.0), |m| vec![m]);
                let started = self.start(observation, &mut action, candidate, &models, &mut free);
                if let (Some(m), false) = (chosen[c], started) {
                    // its GPUs are kept from the jobs after it
                    free[m] -= candidate.job.gpus;
                    blocked[m] = true;
                }
            }
        }
        for (c, candidate) in candidates.iter().enumerate() {
            let held = model_held(&candidate.held);
            let left_out = chosen[c].is_none() && blocked[held];
            // a move is a preemption now and a start on the planned model at the next drawing
            let moves = chosen[c].is_some_and(|m| m != held);
            if candidate.running && (left_out || moves) {
                action[ctx.dim(candidate.slot, FIELD_WORKERS)] = 0;
            }
        }
        self.start_cpu_jobs(observation, &mut action);
        action
    }
}

/// The models whose value (a speed, a share) is above `above`, largest first.
fn ranked(values: &[f64], above: f64) -> Vec<usize> {
    let mut models: Vec<usize> = (0..values.len()).filter(|&m| values[m] > above).collect();
    models.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    models
}

impl Gavel {
    /// Starts `candidate` on the first of `models` with room now; whether it did.
    fn start(
        &self,
        observation: &Observation,
        action: &mut [usize],
        candidate: &Candidate,
        models: &[usize],
        free: &mut [f64],
    ) -> bool {
        let ctx = &self.ctx;
        let slot = candidate.slot;
        let level = ctx.requested_workers_level;
        if !ctx.allowed(observation, slot, FIELD_WORKERS, level) {
            return false;
        }
        let gpus = candidate.job.gpus;
        let Some(&m) = models.iter().find(|&&m| {
            free[m] + 1e-9 >= gpus && ctx.allowed(observation, slot, FIELD_MODEL, m + 1)
        }) else {
            return false;
        };
        free[m] -= gpus;
        action[ctx.dim(slot, FIELD_WORKERS)] = level;
        action[ctx.dim(slot, FIELD_PLACEMENT)] = self.placement;
        action[ctx.dim(slot, FIELD_MODEL)] = m + 1;
        true
    }

    /// Queued jobs without GPUs take no part in the program: they start when they fit.
    fn start_cpu_jobs(&self, observation: &Observation, action: &mut [usize]) {
        let ctx = &self.ctx;
        let level = ctx.requested_workers_level;
        for slot in 0..ctx.slots() {
            let view = ctx.slot(observation, slot);
            if view.queued()
                && ctx.gpus_asked(&view, level) <= 0.0
                && ctx.allowed(observation, slot, FIELD_WORKERS, level)
            {
                action[ctx.dim(slot, FIELD_WORKERS)] = level;
                action[ctx.dim(slot, FIELD_PLACEMENT)] = self.placement;
            }
        }
    }
}
