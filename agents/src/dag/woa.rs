//! The whale optimisation algorithm (Mirjalili and Lewis 2016) over plans: a whale's
//! position holds a number in `[0, 1)` per task, decoded to one of the GPUs that hold it
//! and scored by the env's executor. Each whale, each iteration, with `a` falling linearly
//! from 2 to 0, `A = 2a r1 - a`, `C = 2 r2`: with probability 1/2 it encircles the best
//! whale (`|A| < 1`: `X' = X* - A |C X* - X|`) or searches around a random whale
//! (`|A| >= 1`: `X' = Xr - A |C Xr - X|`); otherwise it spirals towards the best
//! (`X' = |X* - X| e^(b l) cos(2 pi l) + X*`, `b = 1`, `l` uniform in `[-1, 1]`).
//! Positions are clamped to `[0, 1)`.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use schedlab_env::dag::Problem;

use super::decoder::Decoder;
use super::plan::{Planner, plan_policy, row};
use crate::options::{OptionSpec, OptionType, Options};
use crate::scheduler_row::SchedulerRow;

pub(super) const POPULATION: OptionSpec = OptionSpec {
    key: "population",
    kind: OptionType::Positive,
    default: "30",
    help: "plans in the population",
};
pub(super) const EVALUATIONS: OptionSpec = OptionSpec {
    key: "evaluations",
    kind: OptionType::Positive,
    default: "3000",
    help: "plans evaluated in all (the budget)",
};

pub(super) const SEARCH_SEED: OptionSpec = OptionSpec {
    key: "search_seed",
    kind: OptionType::NonNegative,
    default: "0",
    help: "the search's own seed, mixed with the episode's (runs on one instance differ by it)",
};

/// What every search over plans takes (`ga`, `woa`, `worl-rtgs`): its population, its
/// budget of plan evaluations and its own seed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchBudget {
    pub population: usize,
    pub evaluations: usize,
    pub search_seed: u64,
}

impl SearchBudget {
    /// The options it is read from.
    pub(super) const OPTIONS: [OptionSpec; 3] = [POPULATION, EVALUATIONS, SEARCH_SEED];

    pub(super) fn from_options(options: &Options) -> Self {
        SearchBudget {
            population: options.number("population") as usize,
            evaluations: options.number("evaluations") as usize,
            search_seed: options.number("search_seed") as u64,
        }
    }

    /// The search's random numbers: from the episode's seed, the scheduler's salt and
    /// `search_seed`.
    pub(super) fn rng(&self, seed: u64, salt: u64) -> StdRng {
        StdRng::seed_from_u64(seed ^ salt ^ self.search_seed.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }
}

pub const ROW: SchedulerRow = row(
    "woa",
    "whale optimisation over plans decoded by the env's executor (Mirjalili and Lewis 2016)",
    &SearchBudget::OPTIONS,
    |ctx, options| {
        let woa = Woa {
            budget: SearchBudget::from_options(options),
            initial: Vec::new(),
        };
        plan_policy(ctx, "woa", woa)
    },
);

/// One whale's random numbers for one iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WoaDraws {
    pub a: f64,
    pub r1: f64,
    pub r2: f64,
    pub p: f64,
    pub l: f64,
}

impl WoaDraws {
    /// One whale's draws at `a`.
    pub fn draw(a: f64, rng: &mut StdRng) -> Self {
        WoaDraws {
            a,
            r1: rng.random_range(0.0..1.0),
            r2: rng.random_range(0.0..1.0),
            p: rng.random_range(0.0..1.0),
            l: rng.random_range(-1.0..=1.0),
        }
    }
}

/// The published update of position `x` given the best whale and a random one.
pub fn woa_move(x: &[f64], best: &[f64], random: &[f64], d: WoaDraws) -> Vec<f64> {
    const B: f64 = 1.0;
    let big_a = 2.0 * d.a * d.r1 - d.a;
    let c = 2.0 * d.r2;
    let upper = 1.0 - f64::EPSILON;
    x.iter()
        .enumerate()
        .map(|(j, &xj)| {
            let moved = if d.p < 0.5 {
                let towards = if big_a.abs() < 1.0 {
                    best[j]
                } else {
                    random[j]
                };
                towards - big_a * (c * towards - xj).abs()
            } else {
                (best[j] - xj).abs() * (B * d.l).exp() * (2.0 * std::f64::consts::PI * d.l).cos()
                    + best[j]
            };
            moved.clamp(0.0, upper)
        })
        .collect()
}

/// A position and its makespan.
#[derive(Debug, Clone)]
pub struct Whale {
    pub position: Vec<f64>,
    pub makespan_s: f64,
}

impl Whale {
    /// A whale at a uniformly drawn position.
    pub(super) fn random(decoder: &mut Decoder, rng: &mut StdRng) -> Whale {
        let position: Vec<f64> = (0..decoder.problem.len())
            .map(|_| rng.random_range(0.0..1.0))
            .collect();
        Whale {
            makespan_s: decoder.makespan_s(&decoder.gpus_of(&position)),
            position,
        }
    }

    /// The whale in the middle of `plan`'s intervals (it decodes back to `plan`).
    pub(super) fn of_plan(decoder: &mut Decoder, plan: &[usize]) -> Whale {
        Whale {
            makespan_s: decoder.makespan_s(plan),
            position: decoder.position_of(plan),
        }
    }
}

pub struct Woa {
    pub budget: SearchBudget,
    /// Plans to start from besides random positions (for example HEFT's).
    pub initial: Vec<Vec<usize>>,
}

impl Woa {
    /// Runs the search; returns the best whale and the best makespan after each iteration.
    pub fn search(&self, decoder: &mut Decoder, rng: &mut StdRng) -> (Whale, Vec<f64>) {
        let population = self.budget.population.max(1);
        let mut whales: Vec<Whale> = (0..population)
            .map(|i| match self.initial.get(i) {
                Some(plan) => Whale::of_plan(decoder, plan),
                None => Whale::random(decoder, rng),
            })
            .collect();
        let mut best = best_of(&whales).clone();
        let iterations = (self.budget.evaluations / population).saturating_sub(1);
        let mut curve = vec![best.makespan_s];
        for it in 0..iterations {
            let a = 2.0 - 2.0 * it as f64 / iterations as f64;
            for i in 0..population {
                let draws = WoaDraws::draw(a, rng);
                let partner = rng.random_range(0..population);
                let position = woa_move(
                    &whales[i].position,
                    &best.position,
                    &whales[partner].position,
                    draws,
                );
                let makespan_s = decoder.makespan_s(&decoder.gpus_of(&position));
                whales[i] = Whale {
                    position,
                    makespan_s,
                };
            }
            let round_best = best_of(&whales);
            if round_best.makespan_s < best.makespan_s {
                best = round_best.clone();
            }
            curve.push(best.makespan_s);
        }
        (best, curve)
    }
}

pub(super) fn best_of(whales: &[Whale]) -> &Whale {
    whales
        .iter()
        .min_by(|a, b| a.makespan_s.total_cmp(&b.makespan_s))
        .expect("a population is not empty")
}

impl Planner for Woa {
    fn plan(&mut self, problem: &Problem, seed: u64) -> Vec<usize> {
        let mut decoder = Decoder::new(problem);
        let mut rng = self.budget.rng(seed, 0x3a1e);
        let (best, _) = self.search(&mut decoder, &mut rng);
        decoder.gpus_of(&best.position)
    }
}
