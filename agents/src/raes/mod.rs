//! RAES: the per-round allocation problem, its two solvers and the scheduler that predicts
//! demand and solves it each round.

pub mod exact;
pub mod heuristic;
pub mod problem;
pub mod scheduler;

#[cfg(test)]
mod tests;
