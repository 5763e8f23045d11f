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
use schedlab_env::jobs::observe::{SLOT_CPU, SLOT_GPU, SLOT_MEM};

use schedlab_env::jobs::observe::{FIELD_PLACEMENT, FIELD_SIZE, FIELD_WORKERS};

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
        let cluster = ctx.cluster(observation);
        let mut capacity: [f64; 3] = std::array::from_fn(|r| cluster[r] as f64);
        let interval = ctx.interval_s;
        let price: [f64; 3] =
            std::array::from_fn(|r| ctx.prices_per_s[r] * ctx.cluster_capacity[r]);
        let cluster_price: f64 = price.iter().sum::<f64>().max(f64::MIN_POSITIVE);
        let workers = views
            .iter()
            .map(|v| {
                if v.running() {
                    let held = self.request(v, v.workers_level, v.size_level);
                    (0..3).for_each(|r| capacity[r] += held[r]);
                }
                let request_speed =
                    ctx.speedup(v, ctx.requested_workers_level, ctx.requested_size_level);
                let cost = |w: usize, s: usize, request: &[f64; 3]| {
                    let time = if w == 0 {
                        v.remaining_s() + interval
                    } else {
                        v.remaining_s() * request_speed / ctx.speedup(v, w, s)
                    };
                    let held: f64 = (0..3).map(|r| price[r] * request[r]).sum();
                    time / interval + self.idle_weight * held * time / (cluster_price * interval)
                };
                let options = self
                    .choices(observation, v)
                    .into_iter()
                    .map(|(w, s)| {
                        let request = if w == 0 {
                            [0.0; 3]
                        } else {
                            self.request(v, w, s)
                        };
                        ContainerOption {
                            levels: [w, s, 0],
                            request,
                            cost: cost(w, s, &request),
                        }
                    })
                    .collect();
                Worker { node: 0, options }
            })
            .collect::<Vec<_>>();
        if workers.is_empty() {
            return action;
        }
        let problem = AllocationProblem {
            capacity: vec![capacity],
            workers,
            budget: None,
        };
        let allocation = solve_exact(&problem, self.limit)
            .ok()
            .or_else(|| solve_heuristic(&problem));
        if let Some(allocation) = allocation {
            for ((view, worker), &o) in views.iter().zip(&problem.workers).zip(&allocation.choice) {
                let [w, s, _] = worker.options[o].levels;
                action[ctx.dim(view.slot, FIELD_WORKERS)] = w;
                action[ctx.dim(view.slot, FIELD_SIZE)] = s;
                action[ctx.dim(view.slot, FIELD_PLACEMENT)] = self.placement;
            }
        }
        action
    }
}
