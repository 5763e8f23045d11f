//! `raes`: each round, predict every worker's next-round use from its last rounds of usage
//! (the chosen predictor), price each container option with the paper's objective, solve the
//! allocation problem (exact MIP or heuristic), act.
//!
//! The cost model, per worker `i` and option `u` (normalised as the env's reward is):
//! - the worker's primary resource `k` is its GPU when the node can give one, else its CPU;
//! - predicted utilisation `rho = d_k / a_k`: predicted use over the current allocation;
//! - `T_i(u) / interval = d_k / u_k`: the predicted demand takes that share of a round at
//!   allocation `u` (more resource, faster work);
//! - idle: the primary resource idles `(1 - rho) u_k`, the others `max(u_r - d_r, 0)`;
//! - `cost = lambda_time * p_i * T_i / (N interval) + lambda_idle * sum_r price_r idle_r /
//!   sum_r price_r capacity_r`, with `p_i` the cross-layer priority (mean 1 over the
//!   workers): higher for workers whose gradient variance or update delay is above the mean.
//!   The reward's `lambda_held_idle` term is not priced: it is a ratio over the whole
//!   allocation, not a sum over options, so the MIP would lose its linear objective.
//!
//! Memory and the non-primary compute resource take the smallest level covering the predicted
//! use with [`HEADROOM`]; a worker that used all it had thus grows a level. Every worker may
//! also keep the `static` allocation, so the problem is always feasible. By default only the
//! nodes' free capacity binds; with `budget=static` RAES shares out exactly the resources
//! `static` would hold.

use std::path::PathBuf;

use schedlab_env::Observation;
use schedlab_env::single_job::features::{HISTORY, HISTORY_FEATURES, NODE_DELAY, NODE_VARIANCE};
use schedlab_predictors::Predictor;

use crate::context::EnvContext;
use crate::context::SingleJobContext;
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::policy::Policy;
use crate::raes::exact::{ExactError, SearchLimit, solve_exact};
use crate::raes::heuristic::solve_heuristic;
use crate::raes::problem::{AllocationProblem, ContainerOption, RESOURCES, Worker};
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "raes",
    kinds: &[EnvKind::SingleJob],
    help: "RAES: predict each worker's use, price container options, solve the allocation MIP",
    options: &OPTIONS,
    build,
};

fn build(ctx: &EnvContext, options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(RaesPolicy::new(
        SingleJobContext::part_of(ctx).clone(),
        RaesOptions::from_options(options),
    )?))
}

/// Predicted use is covered with this much to spare.
pub const HEADROOM: f64 = 1.25;
/// Utilisation assumed for a resource a running worker did not have last round.
const PRIOR_UTILISATION: f64 = 0.5;

/// The options of `raes`.
pub const OPTIONS: [OptionSpec; 6] = [
    OptionSpec {
        key: "predictor",
        kind: OptionType::Choice(&schedlab_predictors::NAMES),
        default: "lstm",
        help: "the demand predictor",
    },
    OptionSpec {
        key: "predictor_dir",
        kind: OptionType::Text,
        default: "",
        help: "folder of fitted predictors (`schedlab predictors fit --out`); `last` needs none",
    },
    OptionSpec {
        key: "solver",
        kind: OptionType::Choice(&["exact", "heuristic"]),
        default: "exact",
        help: "the allocation solver: the MIP (microlp) or the greedy heuristic",
    },
    OptionSpec {
        key: "budget",
        kind: OptionType::Choice(&["none", "static"]),
        default: "none",
        help: "`static`: share out exactly what `static` would hold; `none`: only free capacity binds",
    },
    OptionSpec {
        key: "feedback",
        kind: OptionType::Bool,
        default: "true",
        help: "priorities from gradient variance and update delay (all 1 without)",
    },
    OptionSpec {
        key: "node_limit",
        kind: OptionType::Count,
        default: "100000",
        help: "the exact solver's branch-and-bound nodes per round; past them the round uses the heuristic",
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solver {
    Exact,
    Heuristic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// Only the nodes' free capacity.
    None,
    /// The cluster-wide total `static` would allocate this round.
    Static,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RaesOptions {
    /// `lstm`, `ewma`, `ar` or `last`.
    pub predictor: String,
    /// Folder of fitted predictors (`schedlab predictors fit --out`); `last` needs none.
    pub predictor_dir: Option<PathBuf>,
    pub solver: Solver,
    pub budget: Budget,
    /// Priorities from gradient variance and update delay; all 1 without.
    pub feedback: bool,
    /// The exact solver's branch-and-bound nodes per round; past them the round uses the
    /// heuristic (a limit in work, so the same seed gives the same rounds on any machine).
    pub node_limit: u64,
}

impl RaesOptions {
    pub fn from_options(options: &Options) -> Self {
        RaesOptions {
            predictor: schedlab_predictors::NAMES[options.choice("predictor")].to_owned(),
            predictor_dir: options.text("predictor_dir").map(PathBuf::from),
            solver: [Solver::Exact, Solver::Heuristic][options.choice("solver")],
            budget: [Budget::None, Budget::Static][options.choice("budget")],
            feedback: options.flag("feedback"),
            node_limit: options.count("node_limit"),
        }
    }
}

pub struct RaesPolicy {
    ctx: SingleJobContext,
    options: RaesOptions,
    predictor: Box<dyn Predictor>,
    rounds_seen: usize,
}

impl RaesPolicy {
    pub fn new(ctx: SingleJobContext, options: RaesOptions) -> Result<Self, PolicyError> {
        let predictor = match (&options.predictor_dir, options.predictor.as_str()) {
            (_, "last") => schedlab_predictors::untrained("last"),
            (Some(dir), name) => schedlab_predictors::load(dir, name),
            (None, name) => {
                return Err(PolicyError::Option {
                    policy: "raes".into(),
                    key: "predictor_dir".into(),
                    value: String::new(),
                    expected: format!(
                        "a folder with a fitted `{name}` (from `schedlab predictors fit`)"
                    ),
                });
            }
        }
        .map_err(|e| PolicyError::Predictor(e.to_string()))?;
        Ok(RaesPolicy {
            ctx,
            options,
            predictor,
            rounds_seen: 0,
        })
    }

    fn static_levels(&self, observation: &Observation, node: usize) -> [usize; RESOURCES] {
        std::array::from_fn(|r| self.ctx.middle_feasible(observation, self.ctx.dim(node, r)))
    }

    /// Next round's predicted use of node `n`'s worker, in resource units.
    fn predicted_use(&self, observation: &Observation, n: usize) -> [f64; RESOURCES] {
        let rows = self.rounds_seen.min(HISTORY);
        let features = self.ctx.node_features(observation, n);
        let history: Vec<f32> = (HISTORY - rows..HISTORY)
            .flat_map(|t| features[t * HISTORY_FEATURES..t * HISTORY_FEATURES + RESOURCES].iter())
            .copied()
            .collect();
        let shares = self.predictor.predict(&history, RESOURCES);
        let capacity = self.ctx.node_capacity[n];
        std::array::from_fn(|r| f64::from(shares[r]).max(0.0) * capacity[r])
    }

    /// Per worker, mean 1: half from gradient variance, half from update delay, each relative
    /// to the mean over the workers.
    fn priorities(&self, observation: &Observation) -> Vec<f64> {
        let nodes = self.ctx.nodes();
        if !self.options.feedback {
            return vec![1.0; nodes];
        }
        let relative = |feature: usize| -> Vec<f64> {
            let values: Vec<f64> = (0..nodes)
                .map(|n| f64::from(self.ctx.node_features(observation, n)[feature]).max(0.0))
                .collect();
            let mean = values.iter().sum::<f64>() / nodes as f64;
            values
                .iter()
                .map(|v| if mean > 0.0 { v / mean } else { 1.0 })
                .collect()
        };
        let variance = relative(NODE_VARIANCE);
        let delay = relative(NODE_DELAY);
        (0..nodes)
            .map(|n| 0.5 * variance[n] + 0.5 * delay[n])
            .collect()
    }

    fn problem(&self, observation: &Observation) -> AllocationProblem {
        let nodes = self.ctx.nodes();
        let capacity_cost: f64 = (0..RESOURCES)
            .map(|r| {
                let total: f64 = self.ctx.node_capacity.iter().map(|c| c[r]).sum();
                self.ctx.prices_per_s[r] * total
            })
            .sum();
        let mut estimates = Estimates {
            priorities: self.priorities(observation),
            allocated: Vec::with_capacity(nodes),
            predicted: Vec::with_capacity(nodes),
            capacity_cost,
        };
        for n in 0..nodes {
            let last = self.ctx.last_round(observation, n);
            estimates.allocated.push([last[3], last[4], last[5]]);
            estimates.predicted.push(self.predicted_use(observation, n));
        }
        AllocationProblem {
            capacity: self.ctx.node_capacity.clone(),
            workers: (0..nodes)
                .map(|n| self.worker(observation, &estimates, n))
                .collect(),
            budget: self.budget(observation),
        }
    }

    /// Node `n`'s container options: each allowed level of its primary resource (the GPU
    /// where it may have one, else CPU) with the others covering the predicted use, and the
    /// static container; each costed by eq. 21's time and idle terms.
    fn worker(&self, observation: &Observation, estimates: &Estimates, n: usize) -> Worker {
        let nodes = self.ctx.nodes();
        let sizes = &self.ctx.level_sizes;
        let reward = &self.ctx.reward;
        let predicted = &estimates.predicted;
        let gpu_levels: Vec<usize> = (1..sizes[2].len())
            .filter(|&l| observation.mask_of(&self.ctx.action_space, self.ctx.dim(n, 2))[l])
            .collect();
        let primary = if gpu_levels.is_empty() { 0 } else { 2 };
        let rho = estimates.utilisation(n, primary);
        let demand = rho * estimates.allocated[n][primary];
        let cost = |request: &[f64; RESOURCES]| -> f64 {
            let time = if request[primary] > 0.0 {
                demand / request[primary]
            } else {
                f64::INFINITY
            };
            let idle: f64 = (0..RESOURCES)
                .map(|r| {
                    let idle = if r == primary {
                        (1.0 - rho) * request[r]
                    } else {
                        (request[r] - predicted[n][r]).max(0.0)
                    };
                    self.ctx.prices_per_s[r] * idle
                })
                .sum();
            reward.lambda_time * estimates.priorities[n] * time / nodes as f64
                + reward.lambda_idle * idle / estimates.capacity_cost
        };
        let option = |levels: [usize; RESOURCES]| {
            let request = std::array::from_fn(|r| sizes[r][levels[r]]);
            ContainerOption {
                levels,
                cost: cost(&request),
                request,
                node: None,
            }
        };
        let mut secondary: [usize; RESOURCES] = std::array::from_fn(|r| {
            self.ctx
                .covering_level(observation, self.ctx.dim(n, r), predicted[n][r] * HEADROOM)
        });
        if primary == 0 {
            secondary[2] = 0;
        }
        let primary_levels: Vec<usize> = if primary == 2 {
            gpu_levels
        } else {
            (1..sizes[0].len())
                .filter(|&l| observation.mask_of(&self.ctx.action_space, self.ctx.dim(n, 0))[l])
                .collect()
        };
        let mut options: Vec<ContainerOption> = primary_levels
            .into_iter()
            .map(|l| {
                let mut levels = secondary;
                levels[primary] = l;
                option(levels)
            })
            .collect();
        options.push(option(self.static_levels(observation, n)));
        Worker { node: n, options }
    }

    /// The total the allocation may hold: none, or the static containers' sum.
    fn budget(&self, observation: &Observation) -> Option<[f64; RESOURCES]> {
        match self.options.budget {
            Budget::None => None,
            Budget::Static => {
                let sizes = &self.ctx.level_sizes;
                let mut total = [0.0; RESOURCES];
                for n in 0..self.ctx.nodes() {
                    let levels = self.static_levels(observation, n);
                    (0..RESOURCES).for_each(|r| total[r] += sizes[r][levels[r]]);
                }
                Some(total)
            }
        }
    }
}

/// What RAES estimates of each node before costing its options: its priority, what it held
/// last round and what it is predicted to use, and the cluster's full price per second.
struct Estimates {
    priorities: Vec<f64>,
    allocated: Vec<[f64; RESOURCES]>,
    predicted: Vec<[f64; RESOURCES]>,
    capacity_cost: f64,
}

impl Estimates {
    /// Node `n`'s predicted utilisation of resource `r`; for a node that held none, the mean
    /// of the nodes that did (a prior where none did).
    fn utilisation(&self, n: usize, r: usize) -> f64 {
        let of = |m: usize| (self.predicted[m][r] / self.allocated[m][r]).clamp(0.0, 1.0);
        if self.allocated[n][r] > 0.0 {
            return of(n);
        }
        let others: Vec<f64> = (0..self.allocated.len())
            .filter(|&m| self.allocated[m][r] > 0.0)
            .map(of)
            .collect();
        if others.is_empty() {
            PRIOR_UTILISATION
        } else {
            others.iter().sum::<f64>() / others.len() as f64
        }
    }
}

impl Policy for RaesPolicy {
    fn name(&self) -> &str {
        "raes"
    }

    fn reset(&mut self, _seed: u64) {
        self.rounds_seen = 0;
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let nodes = self.ctx.nodes();
        // nothing to predict from yet: the first round probes with the static allocation
        let action = if self.rounds_seen == 0 {
            (0..nodes)
                .flat_map(|n| self.static_levels(observation, n))
                .collect()
        } else {
            let problem = self.problem(observation);
            let allocation = match self.options.solver {
                Solver::Heuristic => solve_heuristic(&problem),
                Solver::Exact => {
                    match solve_exact(&problem, SearchLimit::nodes(self.options.node_limit)) {
                        Ok(allocation) => Some(allocation),
                        Err(ExactError::Limit(_) | ExactError::Solver(_)) => {
                            solve_heuristic(&problem)
                        }
                        Err(ExactError::Infeasible) => None,
                    }
                }
            }
            .expect("the static option makes every problem feasible");
            problem
                .workers
                .iter()
                .zip(&allocation.choice)
                .flat_map(|(w, &o)| w.options[o].levels)
                .collect()
        };
        self.rounds_seen += 1;
        action
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::single_job::test_envs::real::small_env;

    fn options(pairs: &[(&str, &str)]) -> Result<RaesOptions, PolicyError> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Options::parse("raes", &OPTIONS, &pairs).map(|o| RaesOptions::from_options(&o))
    }

    #[test]
    fn options_are_parsed_and_bad_ones_refused_by_name() {
        let parsed = options(&[("solver", "heuristic"), ("predictor", "ewma")]).unwrap();
        assert_eq!(parsed.solver, Solver::Heuristic);
        assert_eq!(parsed.predictor, "ewma");
        let error = options(&[("solver", "cplex")]).unwrap_err().to_string();
        assert!(
            error.contains("solver") && error.contains("cplex"),
            "{error}"
        );
        let error = options(&[("colour", "red")]).unwrap_err().to_string();
        assert!(
            error.contains("colour") && error.contains("predictor"),
            "{error}"
        );
        assert!(options(&[("node_limit", "0")]).is_err());
    }

    #[test]
    fn a_fitted_predictor_is_required_except_for_last() {
        let ctx = SingleJobContext::of(&small_env());
        assert!(RaesPolicy::new(ctx.clone(), options(&[]).unwrap()).is_err());
        assert!(RaesPolicy::new(ctx, options(&[("predictor", "last")]).unwrap()).is_ok());
    }

    /// On the real env: every action is allowed by the mask, the static budget holds every
    /// round, the exact solver matches brute force on RAES's own problems and the heuristic
    /// never beats it.
    #[test]
    fn raes_acts_within_mask_and_budget_and_solves_its_problems_exactly() {
        let mut env = small_env();
        let ctx = SingleJobContext::of(&env);
        let mut raes = RaesPolicy::new(
            ctx.clone(),
            options(&[("predictor", "last"), ("budget", "static")]).unwrap(),
        )
        .unwrap();
        let (mut obs, _) = env.reset(3).unwrap();
        raes.reset(3);
        let mut solved = 0;
        for round in 0..6 {
            let problem = (round > 0).then(|| raes.problem(&obs));
            let action = raes.act(&obs);
            for (d, &l) in action.iter().enumerate() {
                assert!(
                    obs.mask_of(&ctx.action_space, d)[l],
                    "dimension {d} level {l}"
                );
            }
            if let Some(problem) = problem {
                let budget = problem.budget.expect("a static budget");
                let mut total = [0.0; RESOURCES];
                for (d, &l) in action.iter().enumerate() {
                    total[ctx.action_space.field_of(d)] += ctx.size_of(d, l);
                }
                for r in 0..RESOURCES {
                    assert!(
                        total[r] <= budget[r] + 1e-9,
                        "round {round}: {total:?} > {budget:?}"
                    );
                }
                let best = problem.brute_force().unwrap();
                let exact = solve_exact(&problem, SearchLimit::default()).unwrap();
                assert!((exact.objective - best.objective).abs() < 1e-9);
                assert!(solve_heuristic(&problem).unwrap().objective >= best.objective - 1e-9);
                solved += 1;
            }
            let step = env.step(&action).unwrap();
            if step.terminated || step.truncated {
                break;
            }
            obs = step.observation;
        }
        assert!(solved >= 2, "small-4node runs at least three rounds");
    }
}
