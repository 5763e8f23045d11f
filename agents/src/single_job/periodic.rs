//! `periodic`: Optimus-like. Every few virtual minutes, fit each worker's speed from what it
//! observed and re-allocate the cluster's compute in proportion; in between, keep the
//! allocation.

use schedlab_env::Observation;
use schedlab_env::single_job::features::NODE_THROUGHPUT;

use crate::context::EnvContext;
use crate::context::SingleJobContext;
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "periodic",
    kinds: &[EnvKind::SingleJob],
    help: "Optimus-like: every interval, compute in proportion to each worker's fitted speed",
    options: &[OptionSpec {
        key: "interval_s",
        kind: OptionType::Positive,
        default: "300",
        help: "virtual seconds between re-plans",
    }],
    build,
};

fn build(ctx: &EnvContext, options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(PeriodicPolicy::with_period(
        SingleJobContext::part_of(ctx).clone(),
        options.number("interval_s"),
    )))
}

const CPU: usize = 0;
const MEM: usize = 1;
const GPU: usize = 2;

/// Starts from the `static` allocation. At each re-plan it fits every running worker's speed
/// from the last round: samples per second per allocated GPU for workers with a GPU (their
/// throughput comes from it), per allocated core for the others. GPU workers then split the
/// GPU budget, CPU-only workers the CPU budget, each in proportion to its speed and rounded
/// down to feasible levels (a running CPU worker keeps at least the smallest size). GPU
/// workers keep their CPU level; memory takes the level that covers the worker's use.
pub struct PeriodicPolicy {
    ctx: SingleJobContext,
    period_s: f64,
    elapsed_s: f64,
    next_plan_s: f64,
    current: Option<Vec<usize>>,
}

impl PeriodicPolicy {
    /// Re-plans every `period_s` virtual seconds (Optimus re-plans on a fixed interval).
    pub fn with_period(ctx: SingleJobContext, period_s: f64) -> Self {
        PeriodicPolicy {
            ctx,
            period_s,
            elapsed_s: 0.0,
            next_plan_s: period_s,
            current: None,
        }
    }

    fn static_allocation(&self, observation: &Observation) -> Vec<usize> {
        (0..self.ctx.action_space.dims())
            .map(|d| self.ctx.middle_feasible(observation, d))
            .collect()
    }

    fn replan(&self, observation: &Observation, current: &[usize]) -> Vec<usize> {
        let nodes = self.ctx.nodes();
        let sizes = &self.ctx.level_sizes;
        let dim = |n: usize, r: usize| self.ctx.dim(n, r);
        let last: Vec<[f64; 6]> = (0..nodes)
            .map(|n| self.ctx.last_round(observation, n))
            .collect();
        let samples_per_s: Vec<f64> = (0..nodes)
            .map(|n| (self.ctx.node_features(observation, n)[NODE_THROUGHPUT] as f64).exp_m1())
            .collect();
        let has_gpu: Vec<bool> = (0..nodes).map(|n| last[n][5] > 0.0).collect();
        let speed: Vec<f64> = (0..nodes)
            .map(|n| {
                let units = if has_gpu[n] { last[n][5] } else { last[n][3] };
                if units > 0.0 {
                    samples_per_s[n] / units
                } else {
                    0.0
                }
            })
            .collect();
        let pool = |gpu: bool| -> (f64, f64) {
            let members = (0..nodes).filter(|&n| has_gpu[n] == gpu && speed[n] > 0.0);
            let r = if gpu { GPU } else { CPU };
            members.fold((0.0, 0.0), |(budget, total), n| {
                (budget + sizes[r][current[dim(n, r)]], total + speed[n])
            })
        };
        let (cpu_budget, cpu_total) = pool(false);
        let (gpu_budget, gpu_total) = pool(true);
        let mut action = current.to_vec();
        for n in (0..nodes).filter(|&n| speed[n] > 0.0) {
            if has_gpu[n] {
                let level = self.ctx.level_within(
                    observation,
                    dim(n, GPU),
                    gpu_budget * speed[n] / gpu_total,
                );
                action[dim(n, GPU)] = if level == 0 {
                    self.ctx.covering_level(observation, dim(n, GPU), 0.0)
                } else {
                    level
                };
            } else {
                let level = self.ctx.level_within(
                    observation,
                    dim(n, CPU),
                    cpu_budget * speed[n] / cpu_total,
                );
                action[dim(n, CPU)] = if level == 0 {
                    self.ctx.covering_level(observation, dim(n, CPU), 0.0)
                } else {
                    level
                };
            }
            action[dim(n, MEM)] = self
                .ctx
                .covering_level(observation, dim(n, MEM), last[n][MEM]);
        }
        action
    }
}

impl Policy for PeriodicPolicy {
    fn name(&self) -> &str {
        "periodic"
    }

    fn reset(&mut self, _seed: u64) {
        self.elapsed_s = 0.0;
        self.next_plan_s = self.period_s;
        self.current = None;
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let action = match self.current.take() {
            None => self.static_allocation(observation),
            Some(current) if self.elapsed_s + 1e-9 >= self.next_plan_s => {
                self.next_plan_s += self.period_s;
                self.replan(observation, &current)
            }
            // keep the allocation, but never ask for a level that no longer fits
            Some(current) => current
                .iter()
                .enumerate()
                .map(|(d, &l)| {
                    if observation.mask_of(&self.ctx.action_space, d)[l] {
                        l
                    } else {
                        self.ctx
                            .level_within(observation, d, self.ctx.size_of(d, l))
                    }
                })
                .collect(),
        };
        self.elapsed_s += self.ctx.round_interval_s;
        self.current = Some(action.clone());
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::single_job::test_envs::real::small_env;

    #[test]
    fn periodic_holds_its_allocation_between_plans_and_replans_on_schedule() {
        let mut env = small_env();
        let ctx = SingleJobContext::of(&env);
        let interval = ctx.round_interval_s;
        let mut policy = PeriodicPolicy::with_period(ctx.clone(), 2.0 * interval);
        let (mut obs, _) = env.reset(1).unwrap();
        policy.reset(1);
        let mut actions = Vec::new();
        for _ in 0..5 {
            let action = policy.act(&obs);
            for (d, &l) in action.iter().enumerate() {
                assert!(
                    obs.mask_of(&ctx.action_space, d)[l],
                    "dimension {d} level {l} is masked"
                );
            }
            actions.push(action.clone());
            let step = env.step(&action).unwrap();
            if step.terminated || step.truncated {
                break;
            }
            obs = step.observation;
        }
        assert!(actions.len() >= 4, "small-4node runs at least four rounds");
        assert_eq!(
            actions[0], actions[1],
            "no plan before the first period ends"
        );
        assert_eq!(
            actions[2], actions[3],
            "the plan of round 2 holds through round 3"
        );
        // the re-plan moves GPU share towards the faster GPU node (gpu-fast outruns gpu-old)
        let gpu = |a: &Vec<usize>, n: usize| ctx.level_sizes[GPU][a[ctx.dim(n, GPU)]];
        assert!(
            gpu(&actions[2], 0) >= gpu(&actions[2], 1),
            "{:?}",
            actions[2]
        );
    }
}
