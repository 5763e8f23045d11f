//! RAES's per-round allocation problem and its two solvers, shared by the RAES schedulers of
//! both kinds of env (`single_job::raes`, `jobs::raes`).

pub mod exact;
pub mod heuristic;
pub mod problem;

#[cfg(test)]
mod tests;
