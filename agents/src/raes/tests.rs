use proptest::prelude::*;

use super::exact::{SearchLimit, solve_exact};
use super::heuristic::solve_heuristic;
use super::problem::{AllocationProblem, ContainerOption, RESOURCES, random_problem};

/// With `share` given, a budget of that share of the cluster's total capacity per resource.
fn with_budget(mut problem: AllocationProblem, share: Option<f64>) -> AllocationProblem {
    problem.budget = share.map(|share| {
        let mut total = [0.0; RESOURCES];
        for c in &problem.capacity {
            (0..RESOURCES).for_each(|r| total[r] += c[r] * share);
        }
        total
    });
    problem
}

/// The exact solver matches brute force, and neither solver exceeds a capacity or the budget.
fn solvers_agree(problem: &AllocationProblem) -> Result<(), TestCaseError> {
    let best = problem
        .brute_force()
        .expect("the empty container always fits");
    let exact = solve_exact(problem, SearchLimit::default()).unwrap();
    prop_assert!(problem.feasible(&exact.choice));
    prop_assert!(
        (exact.objective - best.objective).abs() < 1e-6,
        "exact {} vs brute force {}",
        exact.objective,
        best.objective
    );
    let heuristic = solve_heuristic(problem).expect("feasible");
    prop_assert!(problem.feasible(&heuristic.choice));
    prop_assert!(heuristic.objective >= best.objective - 1e-9);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Tiny instances (3-5 workers, 1 or 2 to a node, up to 11 options each, with or without a
    /// budget that couples the nodes): the exact solver matches brute force, and neither solver
    /// exceeds a capacity or the budget.
    #[test]
    fn exact_matches_brute_force_and_both_respect_capacity(
        workers in 3usize..=5,
        per_node in 1usize..=2,
        share in proptest::option::of(0.1f64..0.9),
        seed in 0u64..1_000,
    ) {
        let problem = with_budget(random_problem(workers, per_node, seed), share);
        solvers_agree(&problem)?;
    }

    /// Workers whose options may go to another node (a jobs option on another GPU model): each
    /// worker's GPU options also offered on the next node; the exact solver still matches brute
    /// force, and both keep every node's capacity.
    #[test]
    fn options_on_other_nodes_are_counted_on_theirs(
        workers in 3usize..=4,
        share in proptest::option::of(0.2f64..0.9),
        seed in 0u64..1_000,
    ) {
        let mut problem = with_budget(random_problem(workers, 1, seed), share);
        let nodes = problem.capacity.len();
        for w in &mut problem.workers {
            let elsewhere: Vec<ContainerOption> = w
                .options
                .iter()
                .filter(|o| o.request[2] > 0.0)
                .map(|o| ContainerOption {
                    node: Some((w.node + 1) % nodes),
                    cost: o.cost * 0.8,
                    ..o.clone()
                })
                .collect();
            w.options.truncate(6);
            w.options.extend(elsewhere.into_iter().take(3));
        }
        solvers_agree(&problem)?;
    }

    #[test]
    fn the_heuristic_respects_capacity_and_budget_on_large_instances(
        workers in 50usize..300,
        per_node in 1usize..8,
        share in proptest::option::of(0.05f64..0.9),
        seed in 0u64..1_000,
    ) {
        // pair moves under a budget are quadratic: keep those instances smaller
        let workers = if share.is_some() { workers / 4 } else { workers };
        let problem = with_budget(random_problem(workers, per_node, seed), share);
        let allocation = solve_heuristic(&problem).expect("feasible");
        prop_assert!(problem.feasible(&allocation.choice));
    }
}

/// The search limit counts branch-and-bound nodes, so whether a solve gives up depends on the
/// problem alone: a coupled instance that needs branching fails the same way under a one-node
/// limit every time, and solves to the optimum without it.
#[test]
fn a_node_limit_gives_up_the_same_way_every_time() {
    let needs_branching = (0..50u64)
        .map(|seed| with_budget(random_problem(12, 4, seed), Some(0.3)))
        .find(|problem| solve_exact(problem, SearchLimit::nodes(1)).is_err())
        .expect("some coupled instance needs more than one node");
    for _ in 0..3 {
        assert!(matches!(
            solve_exact(&needs_branching, SearchLimit::nodes(1)),
            Err(super::exact::ExactError::Limit(_))
        ));
    }
    let optimum = solve_exact(&needs_branching, SearchLimit::default()).unwrap();
    assert!(needs_branching.feasible(&optimum.choice));
    let again = solve_exact(&needs_branching, SearchLimit::default()).unwrap();
    assert_eq!(optimum.choice, again.choice);
}
