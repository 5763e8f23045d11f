//! The exact solver: the problem as a 0-1 program (one binary per worker and option,
//! exactly one per worker, requests within each node's capacity and the budget) solved by
//! good_lp with microlp, a pure-Rust branch and bound.

use good_lp::{
    Expression, ProblemVariables, Solution, SolutionStatus, SolverModel, Variable, WithTimeLimit,
    microlp, variable,
};

use super::problem::{Allocation, AllocationProblem, RESOURCES, Worker};

#[derive(Debug, thiserror::Error)]
pub enum ExactError {
    #[error("no allocation fits the nodes' capacity")]
    Infeasible,
    #[error("no allocation proved optimal within {0} s")]
    TimeLimit(f64),
    #[error("the MIP solver failed: {0}")]
    Solver(String),
}

/// An optimal allocation, or why there is none (within `time_limit_s` if given).
pub fn solve_exact(
    problem: &AllocationProblem,
    time_limit_s: Option<f64>,
) -> Result<Allocation, ExactError> {
    let mut vars = ProblemVariables::new();
    let x: Vec<Vec<Variable>> = problem
        .workers
        .iter()
        .map(|w| {
            w.options
                .iter()
                .map(|_| vars.add(variable().binary()))
                .collect()
        })
        .collect();
    let objective: Expression = problem
        .workers
        .iter()
        .zip(&x)
        .flat_map(|(w, xs)| w.options.iter().zip(xs).map(|(o, &v)| o.cost * v))
        .sum();
    let mut model = vars.minimise(objective).using(microlp);
    if let Some(limit) = time_limit_s {
        model = model.with_time_limit(limit);
    }
    for xs in &x {
        model = model.with(xs.iter().copied().sum::<Expression>().eq(1.0));
    }
    // resource `r` requested by the workers `on` selects
    let requested = |r: usize, on: &dyn Fn(&Worker) -> bool| -> Expression {
        problem
            .workers
            .iter()
            .zip(&x)
            .filter(|(w, _)| on(w))
            .flat_map(|(w, xs)| w.options.iter().zip(xs).map(|(o, &v)| o.request[r] * v))
            .sum()
    };
    for (node, capacity) in problem.capacity.iter().enumerate() {
        for (r, &cap) in capacity.iter().enumerate().take(RESOURCES) {
            model = model.with(requested(r, &|w| w.node == node).leq(cap));
        }
    }
    if let Some(budget) = problem.budget {
        for (r, &cap) in budget.iter().enumerate() {
            model = model.with(requested(r, &|_| true).leq(cap));
        }
    }
    let solution = model.solve().map_err(|e| match e {
        good_lp::ResolutionError::Infeasible => ExactError::Infeasible,
        good_lp::ResolutionError::Other(m) if m.starts_with("Time limit") => {
            ExactError::TimeLimit(time_limit_s.unwrap_or(f64::INFINITY))
        }
        other => ExactError::Solver(other.to_string()),
    })?;
    if !matches!(solution.status(), SolutionStatus::Optimal) {
        return Err(ExactError::TimeLimit(time_limit_s.unwrap_or(f64::INFINITY)));
    }
    let choice = x
        .iter()
        .map(|xs| {
            (0..xs.len())
                .max_by(|&a, &b| solution.value(xs[a]).total_cmp(&solution.value(xs[b])))
                .expect("every worker has an option")
        })
        .collect();
    Ok(problem.allocation(choice))
}
