//! A genetic algorithm over plans (a GPU per task): tournaments of two, uniform crossover,
//! each gene redrawn among the GPUs that hold its task with probability 1/tasks, the best
//! plan kept; scored by the env's executor.

use rand::RngExt;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use schedlab_env::dag::Problem;

use super::decoder::Decoder;
use super::plan::{Planner, plan_policy, row};
use super::woa::SearchBudget;
use crate::scheduler_row::SchedulerRow;

pub const ROW: SchedulerRow = row(
    "ga",
    "genetic algorithm over plans decoded by the env's executor (seeded by the episode)",
    &SearchBudget::OPTIONS,
    |ctx, options| plan_policy(ctx, "ga", Ga(SearchBudget::from_options(options))),
);

pub struct Ga(pub SearchBudget);

impl Planner for Ga {
    fn plan(&mut self, problem: &Problem, seed: u64) -> Vec<usize> {
        let mut rng = self.0.rng(seed, 0x6a);
        let mut decoder = Decoder::new(problem);
        let n = problem.len();
        let size = self.0.population.max(2);
        let draw = |rng: &mut StdRng, t: usize, d: &Decoder| {
            *d.fitting[t].choose(rng).expect("a task fits a GPU")
        };
        let mut plans: Vec<(Vec<usize>, f64)> = (0..size)
            .map(|_| {
                let plan: Vec<usize> = (0..n).map(|t| draw(&mut rng, t, &decoder)).collect();
                let m = decoder.makespan_s(&plan);
                (plan, m)
            })
            .collect();
        let generations = (self.0.evaluations / size).saturating_sub(1);
        for _ in 0..generations {
            let elite = plans
                .iter()
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .expect("not empty")
                .clone();
            let mut next = vec![elite];
            while next.len() < size {
                let pick = |rng: &mut StdRng| {
                    let (a, b) = (rng.random_range(0..size), rng.random_range(0..size));
                    if plans[a].1 <= plans[b].1 { a } else { b }
                };
                let (x, y) = (pick(&mut rng), pick(&mut rng));
                let child: Vec<usize> = (0..n)
                    .map(|t| {
                        if rng.random_range(0..n) == 0 {
                            draw(&mut rng, t, &decoder)
                        } else if rng.random_bool(0.5) {
                            plans[x].0[t]
                        } else {
                            plans[y].0[t]
                        }
                    })
                    .collect();
                let m = decoder.makespan_s(&child);
                next.push((child, m));
            }
            plans = next;
        }
        plans
            .into_iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("not empty")
            .0
    }
}
