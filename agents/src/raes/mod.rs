//! RAES's allocator: the per-round allocation problem and its two solvers.

pub mod exact;
pub mod heuristic;
pub mod problem;

#[cfg(test)]
mod tests;
