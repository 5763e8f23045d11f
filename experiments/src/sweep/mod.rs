//! Sweeps: a TOML grid of policies × workloads × override sets × seeds, run in parallel and
//! resumably into a folder of result rows (Parquet and CSV), sharded across machines and
//! merged back.

pub mod journal;
pub mod merge;
pub mod run;
pub mod spec;
pub mod table;
pub mod weights;

#[cfg(test)]
mod tests;
