//! # schedlab-experiments (what the `schedlab` commands do)
//!
//! Loading workloads of any kind, playing policies on them, sweeps, statistics, plots, trace
//! importers and the `reproduce` protocol. The `schedlab` binary (`main.rs`, `commands/`) is a
//! thin command line over this library; fuzz targets link it to reach the importers and the
//! spec readers. It wires the other crates together; simulation, scheduling and training logic
//! live in those crates, never here. Command-line arguments (clap's `Args`) are `commands/`'s.

pub mod curves;
pub mod fidelity;
pub mod output;
pub mod paths;
pub mod play;
pub mod plots;
pub mod reproduce;
pub mod settings;
pub mod sources;
pub mod stats;
pub mod suite;
pub mod summary;
pub mod sweep;
pub mod traces;
pub mod training;
pub mod workloads;

// `--device` lives with the learners it places (trainer/src/device.rs)
pub use schedlab_trainer::device;
