use proptest::prelude::*;

use super::exact::solve_exact;
use super::heuristic::solve_heuristic;
use super::problem::{AllocationProblem, RESOURCES, random_problem};

/// `share` of the cluster's total capacity per resource, as a budget.
fn with_budget(mut problem: AllocationProblem, share: f64) -> AllocationProblem {
    let mut total = [0.0; RESOURCES];
    for c in &problem.capacity {
        (0..RESOURCES).for_each(|r| total[r] += c[r] * share);
    }
    problem.budget = Some(total);
    problem
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Tiny instances (3-5 workers, 2 to a node, up to 11 options each): the exact solver
    /// matches brute force, and neither solver exceeds a capacity.
    #[test]
    fn exact_matches_brute_force_and_both_respect_capacity(
        workers in 3usize..=5,
        seed in 0u64..1_000,
    ) {
        let problem = random_problem(workers, 2, seed);
        let best = problem.brute_force().expect("the empty container always fits");
        let exact = solve_exact(&problem, None).unwrap();
        prop_assert!(problem.feasible(&exact.choice));
        prop_assert!((exact.objective - best.objective).abs() < 1e-6,
            "exact {} vs brute force {}", exact.objective, best.objective);
        let heuristic = solve_heuristic(&problem).expect("feasible");
        prop_assert!(problem.feasible(&heuristic.choice));
        prop_assert!(heuristic.objective >= best.objective - 1e-9);
    }

    #[test]
    fn the_heuristic_respects_capacity_on_large_instances(
        workers in 50usize..300,
        per_node in 1usize..8,
        seed in 0u64..1_000,
    ) {
        let problem = random_problem(workers, per_node, seed);
        let allocation = solve_heuristic(&problem).expect("feasible");
        prop_assert!(problem.feasible(&allocation.choice));
    }

    /// A budget couples the nodes: still exact = brute force, and no solver exceeds it.
    #[test]
    fn budgets_are_respected_and_solved_exactly(
        workers in 3usize..=5,
        share in 0.1f64..0.9,
        seed in 0u64..1_000,
    ) {
        let problem = with_budget(random_problem(workers, 1, seed), share);
        let best = problem.brute_force().expect("the empty container always fits");
        let exact = solve_exact(&problem, None).unwrap();
        prop_assert!(problem.feasible(&exact.choice));
        prop_assert!((exact.objective - best.objective).abs() < 1e-6,
            "exact {} vs brute force {}", exact.objective, best.objective);
        let heuristic = solve_heuristic(&problem).expect("feasible");
        prop_assert!(problem.feasible(&heuristic.choice));
        prop_assert!(heuristic.objective >= best.objective - 1e-9);
    }

    #[test]
    fn the_heuristic_respects_a_budget_on_larger_instances(
        workers in 20usize..80,
        per_node in 1usize..4,
        share in 0.05f64..0.9,
        seed in 0u64..1_000,
    ) {
        let problem = with_budget(random_problem(workers, per_node, seed), share);
        let allocation = solve_heuristic(&problem).expect("feasible");
        prop_assert!(problem.feasible(&allocation.choice));
    }
}
