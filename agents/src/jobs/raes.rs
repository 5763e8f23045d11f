//! `raes` on the jobs cluster: each step, RAES's allocation MIP over the window. Every
//! visible job is a worker whose options are its (workers level, size level) pairs the mask
//! allows, plus holding (queued) or keeping (running); all share one capacity, the cluster's
//! free resources plus what the visible running jobs hold. An option costs
//! `T / interval + idle_weight * price(request) * T / (price(cluster) * interval)`
//! with `T` the job's remaining time there by its speed-up curve (a held job adds an
//! interval), as the single-job RAES prices time against allocated resources (eq. 21 with
//! `lambda_time = 1`, `lambda_idle = idle_weight`; its own option, since the jobs env's reward
//! no longer has an idle term by default). Exact solve (microlp) within a number of
//! branch-and-bound nodes, with the heuristic as fallback.

use schedlab_env::Observation;
use schedlab_env::jobs::GPU_MILLI;
use schedlab_env::jobs::observe::{SLOT_CPU, SLOT_GPU, SLOT_MEM};

use schedlab_env::jobs::observe::{FIELD_MODEL, FIELD_PLACEMENT, FIELD_SIZE, FIELD_WORKERS};

use super::placement::PLACEMENT;

use crate::context::EnvContext;
use crate::context::{JobsContext, SlotView};
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::policy::Policy;
use crate::raes::exact::{SearchLimit, solve_exact};
use crate::raes::heuristic::solve_heuristic;
use crate::raes::problem::{AllocationProblem, ContainerOption, Worker};
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "raes",
    kinds: &[EnvKind::Jobs],
    help: "RAES's allocation MIP over the window: hold, keep or a workers x size option per job",
    options: &[
        PLACEMENT,
        OptionSpec {
            key: "idle_weight",
            kind: OptionType::NonNegative,
            default: "1",
            help: "weight of the held resources' price against time in each option's cost",
        },
        OptionSpec {
            key: "node_limit",
            kind: OptionType::Count,
            default: "100000",
            help: "the exact solver's branch-and-bound nodes per step; past them the step uses the heuristic",
        },
    ],
    build,
};

fn build(ctx: &EnvContext, options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(JobsRaesPolicy::new(
        JobsContext::part_of(ctx).clone(),
        options.choice("placement"),
        options.number("idle_weight"),
        SearchLimit::nodes(options.count("node_limit")),
    )))
}

pub struct JobsRaesPolicy {
    ctx: JobsContext,
    placement: usize,
    idle_weight: f64,
    limit: SearchLimit,
}

impl JobsRaesPolicy {
    pub fn new(ctx: JobsContext, placement: usize, idle_weight: f64, limit: SearchLimit) -> Self {
        JobsRaesPolicy {
            ctx,
            placement,
            idle_weight,
            limit,
        }
    }

    /// What the job's containers take at these levels, in shares of the cluster's capacity.
    fn request(&self, view: &SlotView, workers_level: usize, size_level: usize) -> [f64; 3] {
        let count = self.ctx.worker_count(view, workers_level);
        let size = self.ctx.sizes[size_level];
        [SLOT_CPU, SLOT_MEM, SLOT_GPU].map(|k| {
            let r = k - SLOT_CPU;
            let per = view.features[k] as f64 * self.ctx.largest_machine[r];
            if self.ctx.cluster_capacity[r] > 0.0 {
                count * per * size / self.ctx.cluster_capacity[r]
            } else {
                0.0
            }
        })
    }

    /// Slot `v`'s candidate `(workers, size)` levels: its current ones (a queued job's: none),
    /// and those one dimension away that the mask allows, as the mask vouches for them only.
    fn choices(&self, observation: &Observation, v: &SlotView) -> Vec<(usize, usize)> {
        let ctx = &self.ctx;
        let current = if v.running() {
            (v.workers_level, v.size_level)
        } else {
            (0, ctx.requested_size_level)
        };
        let mut choices = vec![current];
        for w in 1..ctx.slot_space.field_choices(FIELD_WORKERS) {
            for s in 0..ctx.sizes.len() {
                let near = w == current.0 || s == current.1;
                if near
                    && (w, s) != current
                    && ctx.allowed(observation, v.slot, FIELD_WORKERS, w)
                    && ctx.allowed(observation, v.slot, FIELD_SIZE, s)
                {
                    choices.push((w, s));
                }
            }
        }
        choices
    }
}

/// What an option costs: its time in intervals plus the idle weight times the price of what it
/// holds over the cluster's, for that time.
struct Pricing {
    price: [f64; 3],
    cluster_price: f64,
    interval: f64,
    idle_weight: f64,
}

impl Pricing {
    fn cost(&self, time: f64, request: &[f64; 3]) -> f64 {
        let held: f64 = (0..3).map(|r| self.price[r] * request[r]).sum();
        time / self.interval + self.idle_weight * held * time / (self.cluster_price * self.interval)
    }
}

impl JobsRaesPolicy {
    fn pricing(&self) -> Pricing {
        let ctx = &self.ctx;
        let price: [f64; 3] =
            std::array::from_fn(|r| ctx.prices_per_s[r] * ctx.cluster_capacity[r]);
        Pricing {
            price,
            cluster_price: price.iter().sum::<f64>().max(f64::MIN_POSITIVE),
            interval: ctx.interval_s,
            idle_weight: self.idle_weight,
        }
    }

    /// The window's problem on one pool of the cluster's free resources (plus what the
    /// visible running jobs hold), model-blind.
    fn blind_problem(&self, observation: &Observation, views: &[SlotView]) -> AllocationProblem {
        let ctx = &self.ctx;
        let pricing = self.pricing();
        let capacity = self.pool(observation, views);
        let workers = views
            .iter()
            .map(|v| {
                let request_speed =
                    ctx.speedup(v, ctx.requested_workers_level, ctx.requested_size_level);
                let options = self
                    .choices(observation, v)
                    .into_iter()
                    .map(|(w, s)| {
                        let (time, request) = if w == 0 {
                            (v.remaining_s() + ctx.interval_s, [0.0; 3])
                        } else {
                            let time = v.remaining_s() * request_speed / ctx.speedup(v, w, s);
                            (time, self.request(v, w, s))
                        };
                        ContainerOption {
                            levels: [w, s, 0],
                            request,
                            cost: pricing.cost(time, &request),
                            node: None,
                        }
                    })
                    .collect();
                Worker { node: 0, options }
            })
            .collect();
        AllocationProblem {
            capacity: vec![capacity],
            workers,
            budget: None,
        }
    }

    /// With `[heterogeneity]`: one node per GPU model holding its free GPUs (plus what the
    /// visible running jobs hold there), CPU and memory (and all GPUs) in the cluster-wide
    /// budget. A start or rescale is offered on each model the mask allows, timed at the job's
    /// speed there; holding at its fastest model's time plus an interval, keeping at the
    /// model it runs on.
    fn model_problem(&self, observation: &Observation, views: &[SlotView]) -> AllocationProblem {
        let ctx = &self.ctx;
        let pricing = self.pricing();
        let models = ctx.models();
        let pool = self.pool(observation, views);
        let share_per_gpu = GPU_MILLI as f64 / ctx.cluster_capacity[2].max(1.0);
        let mut gpus = ctx.free_gpus_per_model(observation);
        for v in views.iter().filter(|v| v.running()) {
            let held = ctx.held_gpus_per_model(observation, v.slot);
            (0..models).for_each(|m| gpus[m] += held[m]);
        }
        let capacity = gpus
            .iter()
            .map(|g| [pool[0], pool[1], g * share_per_gpu])
            .collect();
        let workers = views
            .iter()
            .map(|v| self.model_worker(observation, v, &pricing))
            .collect();
        AllocationProblem {
            capacity,
            workers,
            budget: Some(pool),
        }
    }

    /// Slot `v`'s options over the GPU models ([`Self::model_problem`]).
    fn model_worker(&self, observation: &Observation, v: &SlotView, pricing: &Pricing) -> Worker {
        let ctx = &self.ctx;
        let speeds = ctx.model_speeds(observation, v.slot);
        let allowed: Vec<usize> = (0..ctx.models())
            .filter(|&m| speeds[m] > 0.0 && ctx.allowed(observation, v.slot, FIELD_MODEL, m + 1))
            .collect();
        let fastest = |among: &[usize]| {
            among
                .iter()
                .copied()
                .max_by(|&a, &b| speeds[a].total_cmp(&speeds[b]))
        };
        let held = ctx.held_gpus_per_model(observation, v.slot);
        let running_on = (0..ctx.models()).max_by(|&a, &b| held[a].total_cmp(&held[b]));
        let home = if v.running() {
            running_on
        } else {
            fastest(&allowed)
        }
        .unwrap_or(0);
        let best = fastest(&allowed).map_or(1.0, |m| f64::from(speeds[m]));
        let request_speed = ctx.speedup(v, ctx.requested_workers_level, ctx.requested_size_level);
        let time_at = |w: usize, s: usize, speed: f64| {
            v.remaining_s() * request_speed / ctx.speedup(v, w, s) / speed.max(f64::MIN_POSITIVE)
        };
        let mut options = Vec::new();
        for (w, s) in self.choices(observation, v) {
            let request = self.request(v, w, s);
            let option = |time: f64, model: usize, node: Option<usize>| ContainerOption {
                levels: [w, s, model],
                request,
                cost: pricing.cost(time, &request),
                node,
            };
            if w == 0 {
                options.push(option(v.remaining_s() / best + ctx.interval_s, 0, None));
            } else if v.running() && (w, s) == (v.workers_level, v.size_level) {
                options.push(option(
                    time_at(w, s, f64::from(speeds[home])),
                    0,
                    Some(home),
                ));
            } else if request[2] == 0.0 {
                options.push(option(time_at(w, s, 1.0), 0, None));
            } else {
                for &m in &allowed {
                    options.push(option(time_at(w, s, f64::from(speeds[m])), m + 1, Some(m)));
                }
            }
        }
        Worker {
            node: home,
            options,
        }
    }

    /// The cluster's free shares plus what the visible running jobs hold.
    fn pool(&self, observation: &Observation, views: &[SlotView]) -> [f64; 3] {
        let cluster = self.ctx.cluster(observation);
        let mut capacity: [f64; 3] = std::array::from_fn(|r| cluster[r] as f64);
        for v in views.iter().filter(|v| v.running()) {
            let held = self.request(v, v.workers_level, v.size_level);
            (0..3).for_each(|r| capacity[r] += held[r]);
        }
        capacity
    }
}

impl Policy for JobsRaesPolicy {
    fn name(&self) -> &str {
        "raes"
    }

    fn reset(&mut self, _seed: u64) {}

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let ctx = &self.ctx;
        let mut action = ctx.keep_all(observation);
        let views: Vec<SlotView> = (0..ctx.slots())
            .map(|s| ctx.slot(observation, s))
            .filter(SlotView::present)
            .collect();
        if views.is_empty() {
            return action;
        }
        let problem = if ctx.models() > 0 {
            self.model_problem(observation, &views)
        } else {
            self.blind_problem(observation, &views)
        };
        let allocation = solve_exact(&problem, self.limit)
            .ok()
            .or_else(|| solve_heuristic(&problem));
        if let Some(allocation) = allocation {
            for ((view, worker), &o) in views.iter().zip(&problem.workers).zip(&allocation.choice) {
                let [w, s, model] = worker.options[o].levels;
                action[ctx.dim(view.slot, FIELD_WORKERS)] = w;
                action[ctx.dim(view.slot, FIELD_SIZE)] = s;
                action[ctx.dim(view.slot, FIELD_PLACEMENT)] = self.placement;
                if ctx.models() > 0 {
                    action[ctx.dim(view.slot, FIELD_MODEL)] = model;
                }
            }
        }
        action
    }
}
