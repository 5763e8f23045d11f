//! The exact solver: the problem as a 0-1 program (one binary per worker and option,
//! exactly one per worker, requests within each node's capacity and the budget) solved by
//! microlp's pure-Rust branch and bound. microlp is called directly rather than through
//! good_lp because good_lp only passes a wall-clock limit on, and a scheduler whose rounds
//! depend on the machine's load would break "same seed, same metrics".

use std::time::Duration;

use microlp::{
    ComparisonOp, OptimizationDirection, Problem, SolveOptions, SolveOutcome, TerminationReason,
    Variable,
};

use super::problem::{Allocation, AllocationProblem, RESOURCES};

/// How long the search may go on before it gives up without a proven optimum.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SearchLimit {
    /// Branch-and-bound nodes (deterministic).
    pub nodes: Option<u64>,
    /// Wall-clock seconds (for benchmarks only: the outcome depends on the machine).
    pub seconds: Option<f64>,
}

impl SearchLimit {
    pub fn nodes(nodes: u64) -> Self {
        SearchLimit {
            nodes: Some(nodes),
            seconds: None,
        }
    }

    pub fn seconds(seconds: f64) -> Self {
        SearchLimit {
            nodes: None,
            seconds: Some(seconds),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExactError {
    #[error("no allocation fits the nodes' capacity")]
    Infeasible,
    #[error("no allocation proved optimal within {0:?}")]
    Limit(SearchLimit),
    #[error("the MIP solver failed: {0}")]
    Solver(String),
}

/// An optimal allocation, or why there is none (within `limit`).
pub fn solve_exact(
    problem: &AllocationProblem,
    limit: SearchLimit,
) -> Result<Allocation, ExactError> {
    let mut program = Problem::new(OptimizationDirection::Minimize);
    let x: Vec<Vec<Variable>> = problem
        .workers
        .iter()
        .map(|w| {
            w.options
                .iter()
                .map(|o| program.add_binary_var(o.cost))
                .collect()
        })
        .collect();
    for xs in &x {
        let one: Vec<(Variable, f64)> = xs.iter().map(|&v| (v, 1.0)).collect();
        program.add_constraint(one.as_slice(), ComparisonOp::Eq, 1.0);
    }
    // resource `r` requested by the (worker, option)s `on` selects
    let requested = |r: usize, on: &dyn Fn(usize, usize) -> bool| -> Vec<(Variable, f64)> {
        (problem.workers.iter().zip(&x).enumerate())
            .flat_map(|(i, (w, xs))| {
                (w.options.iter().zip(xs).enumerate())
                    .filter(move |&(o, _)| on(i, o))
                    .map(move |(_, (option, &v))| (v, option.request[r]))
            })
            .collect()
    };
    for (node, capacity) in problem.capacity.iter().enumerate() {
        for (r, &cap) in capacity.iter().enumerate().take(RESOURCES) {
            let terms = requested(r, &|i, o| problem.node_of(i, o) == node);
            program.add_constraint(terms.as_slice(), ComparisonOp::Le, cap);
        }
    }
    if let Some(budget) = problem.budget {
        for (r, &cap) in budget.iter().enumerate() {
            program.add_constraint(requested(r, &|_, _| true).as_slice(), ComparisonOp::Le, cap);
        }
    }
    let mut options = SolveOptions::default();
    options.node_limit = limit.nodes;
    options.time_limit = limit.seconds.map(Duration::from_secs_f64);
    let outcome = program.solve_with(options).map_err(|e| match e {
        microlp::Error::Infeasible => ExactError::Infeasible,
        other => ExactError::Solver(other.to_string()),
    })?;
    let solution = match &outcome {
        SolveOutcome::Solution(solution)
            if solution.termination_reason() == TerminationReason::ProvenOptimal =>
        {
            solution
        }
        _ => return Err(ExactError::Limit(limit)),
    };
    let choice = x
        .iter()
        .map(|xs| {
            (0..xs.len())
                .max_by(|&a, &b| {
                    solution
                        .var_value(xs[a])
                        .total_cmp(&solution.var_value(xs[b]))
                })
                .expect("every worker has an option")
        })
        .collect();
    Ok(problem.allocation(choice))
}
