//! WORL-RTGS (Du et al. 2025): the whale optimisation algorithm ([`super::woa`]) whose
//! population is seeded and refreshed with plans of a trained policy (the guide: the paper's
//! Double DQN, here by default the shipped message-passing scheduler `dag-gnn`, which plays
//! any DAG size and GPU count and is closer to HEFT), and whose moves are steered by the Running Time Gap Strategy. Only the
//! paper's abstract is at hand; this is the workbench's reconstruction (docs/dag.md, "WORL-RTGS"):
//! - seeding: a share of the first population are guide episodes, the first greedy, the
//!   others with ε-random GPU choices; the rest are random positions;
//! - refresh: every `refresh_every` iterations the worst share of the population is replaced
//!   by new ε-guide episodes;
//! - running time gap steering: since plans at a small distance (SPD) finish close together
//!   (FTG), a whale may move at most `FTG(whale, best) / slope` in SPD, the slope fitted
//!   online from the moves evaluated so far: whales that finish near the best refine
//!   locally, whales far behind it jump.
//!
//! `a` falls from 2 to 0 over the evaluation budget; guide episodes count one evaluation each.

use std::sync::Arc;

use rand::RngExt;
use rand::rngs::StdRng;
use rand::seq::index::sample;
use schedlab_env::dag::Problem;

use super::decoder::Decoder;
use super::guide::Guide;
use super::plan::{PlanPolicy, Planner, row};
use super::plan_distance::{GapSlope, ftg, spd};
use super::woa::{
    EVALUATIONS, POPULATION, SEARCH_SEED, SearchBudget, Whale, WoaDraws, best_of, woa_move,
};
use crate::context::DagContext;
use crate::context::EnvContext;
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::scheduler_row::SchedulerRow;

/// The shipped message-passing scheduler trained from scratch on generated and real DAGs
/// (data/policies/README.md, docs/dag-from-scratch.md); `dag-ppo` and `dag-ddqn`, the paper's
/// kind of guide, stay options.
pub const DEFAULT_GUIDE: &str = "dag-gnn";

pub const ROW: SchedulerRow = row(
    "worl-rtgs",
    "WOA seeded and refreshed by a trained policy's plans (default dag-gnn), moves bounded by the finish-time gap",
    &[
        POPULATION,
        EVALUATIONS,
        SEARCH_SEED,
        OptionSpec {
            key: "guide",
            kind: OptionType::Text,
            default: DEFAULT_GUIDE,
            help: "the guide: a trained run folder or shipped policy (or any DAG scheduler)",
        },
        OptionSpec {
            key: "guided",
            kind: OptionType::Share,
            default: "0.5",
            help: "share of the first population taken from guide episodes",
        },
        OptionSpec {
            key: "epsilon",
            kind: OptionType::Share,
            default: "0.1",
            help: "chance per step that a guide episode takes a random GPU instead",
        },
        OptionSpec {
            key: "refresh_every",
            kind: OptionType::NonNegative,
            default: "10",
            help: "iterations between refreshes (0: never)",
        },
        OptionSpec {
            key: "refresh",
            kind: OptionType::Share,
            default: "0.2",
            help: "share of the population (the worst) replaced at a refresh",
        },
        OptionSpec {
            key: "steer",
            kind: OptionType::Bool,
            default: "true",
            help: "bound each move's plan distance by its finish-time gap (false: plain WOA moves)",
        },
    ],
    build,
);

fn build(ctx: &EnvContext, options: &Options) -> Result<Box<dyn crate::Policy>, PolicyError> {
    let spec = options.text("guide").unwrap_or(DEFAULT_GUIDE);
    let dag = DagContext::part_of(ctx);
    let guides = dag.guides.as_ref().ok_or_else(|| PolicyError::Option {
        policy: "worl-rtgs".into(),
        key: "guide".into(),
        value: spec.into(),
        expected: "a context that resolves guides (build WORL-RTGS through the registry)".into(),
    })?;
    let guide = (guides.0)(spec, dag).map_err(|e| PolicyError::Option {
        policy: "worl-rtgs".into(),
        key: "guide".into(),
        value: spec.into(),
        expected: format!("a trained agent or DAG scheduler for this workload ({e})"),
    })?;
    let workload = Arc::clone(&DagContext::part_of(ctx).workload);
    let planner = WorlRtgs {
        budget: SearchBudget::from_options(options),
        guided: options.number("guided"),
        epsilon: options.number("epsilon"),
        refresh_every: options.number("refresh_every") as usize,
        refresh: options.number("refresh"),
        steer: options.flag("steer"),
        guide: Guide::new(Arc::clone(&workload), guide),
    };
    Ok(Box::new(PlanPolicy::new(
        "worl-rtgs",
        workload,
        Box::new(planner),
    )))
}

pub struct WorlRtgs {
    pub budget: SearchBudget,
    pub guided: f64,
    pub epsilon: f64,
    pub refresh_every: usize,
    pub refresh: f64,
    pub steer: bool,
    pub guide: Guide,
}

impl WorlRtgs {
    /// A guide episode's whale: the greedy one first, then ε-episodes.
    fn guided_whale(
        &mut self,
        decoder: &mut Decoder,
        seed: u64,
        greedy: bool,
        rng: &mut StdRng,
    ) -> Whale {
        let epsilon = if greedy { 0.0 } else { self.epsilon };
        let plan = self.guide.rollout(seed, epsilon, rng);
        Whale::of_plan(decoder, &plan)
    }

    /// Runs the search on the instance of `seed`; returns the best whale and the best
    /// makespan after each iteration.
    pub fn search(
        &mut self,
        decoder: &mut Decoder,
        seed: u64,
        rng: &mut StdRng,
    ) -> (Whale, Vec<f64>) {
        let population = self.budget.population.max(1);
        let guided = ((population as f64 * self.guided).ceil() as usize).min(population);
        let mut whales: Vec<Whale> = Vec::with_capacity(population);
        for i in 0..population {
            whales.push(if i < guided {
                self.guided_whale(decoder, seed, i == 0, rng)
            } else {
                Whale::random(decoder, rng)
            });
        }
        let mut best = best_of(&whales).clone();
        let mut curve = vec![best.makespan_s];
        let mut slope = GapSlope::default();
        let budget = self
            .budget
            .evaluations
            .max(decoder.evaluations + population);
        let mut iteration = 0;
        while decoder.evaluations + population <= budget {
            let a = 2.0 - 2.0 * decoder.evaluations as f64 / budget as f64;
            for i in 0..population {
                let draws = WoaDraws::draw(a, rng);
                let partner = rng.random_range(0..population);
                let from = &whales[i];
                let mut position = woa_move(
                    &from.position,
                    &best.position,
                    &whales[partner].position,
                    draws,
                );
                let old_plan = decoder.gpus_of(&from.position);
                let mut plan = decoder.gpus_of(&position);
                if self.steer {
                    let radius = slope
                        .slope()
                        .map_or(1.0, |k| ftg(from.makespan_s, best.makespan_s) / k);
                    bound_move(
                        &mut position,
                        &mut plan,
                        &from.position,
                        &old_plan,
                        radius,
                        rng,
                    );
                }
                let makespan_s = decoder.makespan_s(&plan);
                slope.add(spd(&old_plan, &plan), ftg(from.makespan_s, makespan_s));
                whales[i] = Whale {
                    position,
                    makespan_s,
                };
            }
            iteration += 1;
            if self.refresh_every > 0 && iteration % self.refresh_every == 0 {
                self.refresh_worst(&mut whales, decoder, seed, rng, budget);
            }
            let round_best = best_of(&whales);
            if round_best.makespan_s < best.makespan_s {
                best = round_best.clone();
            }
            curve.push(best.makespan_s);
        }
        (best, curve)
    }

    /// Replaces the worst whales by ε-guide episodes, within the budget.
    fn refresh_worst(
        &mut self,
        whales: &mut [Whale],
        decoder: &mut Decoder,
        seed: u64,
        rng: &mut StdRng,
        budget: usize,
    ) {
        let count = (whales.len() as f64 * self.refresh).round() as usize;
        let mut worst: Vec<usize> = (0..whales.len()).collect();
        worst.sort_by(|&a, &b| whales[b].makespan_s.total_cmp(&whales[a].makespan_s));
        for &i in worst.iter().take(count.min(whales.len().saturating_sub(1))) {
            if decoder.evaluations + whales.len() + 1 > budget {
                return;
            }
            whales[i] = self.guided_whale(decoder, seed, false, rng);
        }
    }
}

/// Keeps at most `radius` (a plan distance) of the tasks a move reassigns, drawn at random
/// (at least one), and puts the others back where they were.
fn bound_move(
    position: &mut [f64],
    plan: &mut [usize],
    old_position: &[f64],
    old_plan: &[usize],
    radius: f64,
    rng: &mut StdRng,
) {
    let moved: Vec<usize> = (0..plan.len())
        .filter(|&t| plan[t] != old_plan[t])
        .collect();
    let allowed = ((radius * plan.len() as f64).ceil() as usize).max(1);
    if moved.len() <= allowed {
        return;
    }
    let mut keep = vec![false; moved.len()];
    for k in sample(rng, moved.len(), allowed) {
        keep[k] = true;
    }
    for (&t, kept) in moved.iter().zip(keep) {
        if !kept {
            position[t] = old_position[t];
            plan[t] = old_plan[t];
        }
    }
}

impl Planner for WorlRtgs {
    fn plan(&mut self, problem: &Problem, seed: u64) -> Vec<usize> {
        let mut decoder = Decoder::new(problem);
        let mut rng = self.budget.rng(seed, 0x5715);
        let (best, _) = self.search(&mut decoder, seed, &mut rng);
        decoder.gpus_of(&best.position)
    }
}
