//! # schedlab (the command-line workbench)
//!
//! The `schedlab` binary: workload validation and import, running, training and comparing
//! policies, sweeps with statistics and plots, reproduction of the paper's results, benchmarks.
//! It owns the command line: clap arguments and one thin function per command in `commands/`.
//! What the commands do (playing, sweeps, statistics, reproduce) is the `schedlab_experiments`
//! library (`lib.rs`), which fuzz targets and other tools link too.

// see mimalloc's entry in the root Cargo.toml
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod commands;

use std::process::ExitCode;

use clap::Parser;

/// A user error prints its message and its causes as anyhow does, but never the backtrace
/// anyhow captures where `RUST_BACKTRACE` is set: that names our frames, not the user's
/// mistake. A panic keeps its backtrace.
fn main() -> ExitCode {
    let Err(error) = commands::dispatch::run(commands::cli::Cli::parse()) else {
        return ExitCode::SUCCESS;
    };
    eprintln!("Error: {error}");
    let causes: Vec<String> = error.chain().skip(1).map(ToString::to_string).collect();
    if !causes.is_empty() {
        eprintln!("\nCaused by:");
    }
    for (k, cause) in causes.iter().enumerate() {
        match causes.len() {
            1 => eprintln!("    {cause}"),
            _ => eprintln!("    {k}: {cause}"),
        }
    }
    ExitCode::FAILURE
}
