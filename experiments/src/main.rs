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

use schedlab_experiments::device;

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "A research workbench for learning and evaluating cluster schedulers for distributed ML training"
)]
struct Cli {
    /// Worker threads for gradient computation and parallel envs (default: all cores).
    /// Results are identical whatever the count. `bench train` takes a list (`1,2,4`) and
    /// times each.
    #[arg(long, global = true, value_delimiter = ',')]
    threads: Vec<usize>,
    /// Where learned agents' networks train and act: flex (pure Rust CPU), ndarray, with the
    /// `cuda` cargo feature cuda[:N] (an NVIDIA GPU), or with the `tch` cargo feature libtorch
    /// and libtorch-cuda[:N].
    #[arg(long, global = true, default_value = "flex")]
    device: String,
    /// The memory a run may be estimated to need before it is refused, in GB (default: half
    /// of the machine's, or of its memory cgroup's limit; docs/workload-files.md, "Limits").
    #[arg(long, global = true, value_parser = positive_gb)]
    memory_limit_gb: Option<f64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Workload files: check them.
    #[command(subcommand)]
    Workload(WorkloadCommand),
    /// Run episodes of a policy on a workload and print their metrics.
    Run(commands::run::RunArgs),
    /// List every scheduler per kind of workload, with its options.
    Policies,
    /// Train PPO briefly on small-4node, compare it with the baselines, show where the curves are.
    Quickstart(commands::quickstart::QuickstartArgs),
    /// Train a learned scheduler (TensorBoard curves and checkpoints in a run folder).
    Train(commands::train::TrainArgs),
    /// Evaluate a policy on saved workloads over seeds, one row per episode.
    Eval(commands::eval::EvalArgs),
    /// Compare policies on a workload: mean ± std of every metric, best marked.
    Compare(commands::compare::CompareArgs),
    /// Demand predictors: fit them on usage series, score them on held-out tails.
    #[command(subcommand)]
    Predictors(commands::predictors::PredictorsCommand),
    /// Model templates for the jobs cluster's surrogate: fit them from real runs.
    #[command(subcommand)]
    Templates(commands::templates::TemplatesCommand),
    /// Run a grid of policies × workloads × override sets × seeds (resumable, shardable), or
    /// merge shards.
    Sweep(commands::sweep::SweepArgs),
    /// Mean, std, 95% CI, and paired Wilcoxon and Welch p against a baseline, per policy, from sweep results.
    Summarize(commands::summarize::SummarizeArgs),
    /// PNG charts: training curves, bars and CDFs of sweep results, per-job JCT CDFs.
    #[command(subcommand)]
    Plot(commands::plot::PlotCommand),
    /// Regenerate the reference paper's figure and tables on the shipped workloads into
    /// EXPERIMENTS.md.
    Reproduce(commands::reproduce::ReproduceArgs),
    /// Measure speed.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Play policies in the simulator and on real processes under cgroup limits: the
    /// simulator's error, calibrated and not, and whether the policies rank alike.
    Fidelity(commands::fidelity::FidelityArgs),
    /// Fit the simulator's speed and overhead constants to real runs and write them into a
    /// copy of the workload file.
    Calibrate(commands::calibrate::CalibrateArgs),
    /// A process of a real run (started by the run itself).
    #[command(hide = true)]
    RealProcess(commands::real_process::RealProcessArgs),
}

#[derive(Subcommand)]
enum WorkloadCommand {
    /// Load and validate a workload (data, trace and all); print a one-line summary.
    Validate { path: PathBuf },
    /// Turn a real trace into a jobs workload (TOML + Parquet job table).
    Import(commands::import::ImportArgs),
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Env throughput against a bare gradient loop on the same data.
    Env(commands::bench::env::BenchEnvArgs),
    /// RAES's allocation solvers: exact (MIP) and heuristic, times and optimality gap.
    Solvers(commands::bench::solvers::BenchSolversArgs),
    /// The jobs cluster's simulation speed on a trace (jobs per second, peak memory).
    Cluster(commands::bench::cluster::BenchClusterArgs),
    /// The learned agents' training speed (env steps and gradient steps per second).
    Train(commands::bench::train::BenchTrainArgs),
    /// The DAG schedulers on large instances: list schedulers' times, decoder plans per second.
    Dag(commands::bench::dag::BenchDagArgs),
    /// The network allocation dynamics: iterations per second on many centres.
    Network(commands::bench::network::BenchNetworkArgs),
    /// Raw env steps per second through the gym contract, one env and a vectorised batch.
    Steps(commands::bench::steps::BenchStepsArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    // a real run's worker: no thread pool, nothing but its loop
    if let Command::RealProcess(args) = cli.command {
        return commands::real_process::run(args);
    }
    // The command runs on a worker of the pool rather than beside it: a matrix product that
    // splits over the pool then takes the command's own thread as one of its workers, and no
    // more threads than `--threads` compete for the cores between products (beside the pool,
    // its spinning workers slowed PPO at hidden 64 by an eighth on 2 cores).
    let threads = match (&cli.command, cli.threads.as_slice()) {
        (Command::Bench(BenchCommand::Train(_)), counts) => counts.iter().copied().max(),
        (_, [] | [_]) => cli.threads.first().copied(),
        (_, counts) => {
            anyhow::bail!("--threads {counts:?}: one count here; only `bench train` times a list")
        }
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .stack_size(MAIN_STACK_BYTES)
        .build()?;
    pool.install(|| dispatch(cli))
}

/// A worker's stack: the 8 MiB a main thread gets on Linux, rather than rayon's default 2.
const MAIN_STACK_BYTES: usize = 8 << 20;

fn positive_gb(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(gb) if gb > 0.0 && gb.is_finite() => Ok(gb),
        _ => Err(format!("{text:?} is not a positive number of GB")),
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    device::choose(&cli.device)?;
    if let Some(gb) = cli.memory_limit_gb {
        schedlab_env::limits::set_memory_limit((gb * 1e9) as u64);
    }
    match cli.command {
        Command::Workload(WorkloadCommand::Validate { path }) => commands::validate::run(&path),
        Command::Workload(WorkloadCommand::Import(args)) => commands::import::run(args),
        Command::Run(args) => commands::run::run(args),
        Command::Policies => commands::policies::run(),
        Command::Eval(args) => commands::eval::run(args),
        Command::Train(args) => commands::train::run(args),
        Command::Quickstart(args) => commands::quickstart::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::Predictors(command) => commands::predictors::run(command),
        Command::Templates(command) => commands::templates::run(command),
        Command::Sweep(args) => commands::sweep::run(args),
        Command::Plot(command) => commands::plot::run(command),
        Command::Reproduce(args) => commands::reproduce::run(args),
        Command::Summarize(args) => commands::summarize::run(args),
        Command::Bench(BenchCommand::Env(args)) => commands::bench::env::run(args),
        Command::Bench(BenchCommand::Solvers(args)) => commands::bench::solvers::run(args),
        Command::Bench(BenchCommand::Cluster(args)) => commands::bench::cluster::run(args),
        Command::Bench(BenchCommand::Train(args)) => {
            commands::bench::train::run(args, &cli.threads)
        }
        Command::Bench(BenchCommand::Dag(args)) => commands::bench::dag::run(args),
        Command::Bench(BenchCommand::Network(args)) => commands::bench::network::run(args),
        Command::Bench(BenchCommand::Steps(args)) => commands::bench::steps::run(args),
        Command::Fidelity(args) => commands::fidelity::run(args),
        Command::Calibrate(args) => commands::calibrate::run(args),
        Command::RealProcess(_) => unreachable!("run before the pool starts"),
    }
}
