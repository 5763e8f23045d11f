//! The command line's top level: global options and the subcommands, each naming its
//! command's arguments in this folder.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "A research workbench for learning and evaluating cluster schedulers for distributed ML training"
)]
pub struct Cli {
    /// Worker threads for gradient computation and parallel envs (default: all cores).
    /// Results are identical whatever the count. `bench train` takes a list (`1,2,4`) and
    /// times each.
    #[arg(long, global = true, value_delimiter = ',')]
    pub threads: Vec<usize>,
    /// Where learned agents' networks train and act: flex (pure Rust CPU), ndarray, with the
    /// `cuda` cargo feature cuda[:N] (an NVIDIA GPU), or with the `tch` cargo feature libtorch
    /// and libtorch-cuda[:N].
    #[arg(long, global = true, default_value = "flex")]
    pub device: String,
    /// The memory a run may be estimated to need before it is refused, in GB (default: half
    /// of the machine's, or of its memory cgroup's limit; docs/workload-files.md, "Limits").
    #[arg(long, global = true, value_parser = positive_gb)]
    pub memory_limit_gb: Option<f64>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Workload files: check them.
    #[command(subcommand)]
    Workload(WorkloadCommand),
    /// Run episodes of a policy on a workload and print their metrics.
    Run(super::run::RunArgs),
    /// List every scheduler per kind of workload, with its options.
    Policies,
    /// Train PPO briefly on small-4node, compare it with the baselines, show where the curves are.
    Quickstart(super::quickstart::QuickstartArgs),
    /// Train a learned scheduler (TensorBoard curves and checkpoints in a run folder).
    Train(super::train::TrainArgs),
    /// Evaluate a policy on saved workloads over seeds, one row per episode.
    Eval(super::eval::EvalArgs),
    /// Compare policies on a workload: mean ± std of every metric, best marked.
    Compare(super::compare::CompareArgs),
    /// Demand predictors: fit them on usage series, score them on held-out tails.
    #[command(subcommand)]
    Predictors(super::predictors::PredictorsCommand),
    /// Model templates for the jobs cluster's surrogate: fit them from real runs.
    #[command(subcommand)]
    Templates(super::templates::TemplatesCommand),
    /// Run a grid of policies × workloads × override sets × seeds (resumable, shardable), or
    /// merge shards.
    Sweep(super::sweep::SweepArgs),
    /// Mean, std, 95% CI, and paired Wilcoxon and Welch p against a baseline, per policy, from sweep results.
    Summarize(super::summarize::SummarizeArgs),
    /// PNG charts: training curves, bars and CDFs of sweep results, per-job JCT CDFs.
    #[command(subcommand)]
    Plot(super::plot::PlotCommand),
    /// Regenerate the reference paper's figure and tables on the shipped workloads into
    /// EXPERIMENTS.md.
    Reproduce(super::reproduce::ReproduceArgs),
    /// Measure speed.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Versioned benchmark suites: score an entry, validate a result by replaying it.
    #[command(subcommand)]
    Suite(super::suite::SuiteCommand),
    /// Play policies in the simulator and on real processes under cgroup limits: the
    /// simulator's error, calibrated and not, and whether the policies rank alike.
    Fidelity(super::fidelity::FidelityArgs),
    /// Fit the simulator's speed and overhead constants to real runs and write them into a
    /// copy of the workload file.
    Calibrate(super::calibrate::CalibrateArgs),
    /// A process of a real run (started by the run itself).
    #[command(hide = true)]
    RealProcess(super::real_process::RealProcessArgs),
}

#[derive(Subcommand)]
pub enum WorkloadCommand {
    /// Load and validate a workload (data, trace and all); print a one-line summary.
    Validate { path: PathBuf },
    /// Turn a real trace into a jobs workload (TOML + Parquet job table).
    Import(Box<super::import::ImportArgs>),
}

#[derive(Subcommand)]
pub enum BenchCommand {
    /// Env throughput against a bare gradient loop on the same data.
    Env(super::bench::env::BenchEnvArgs),
    /// RAES's allocation solvers: exact (MIP) and heuristic, times and optimality gap.
    Solvers(super::bench::solvers::BenchSolversArgs),
    /// The jobs cluster's simulation speed on a trace (jobs per second, peak memory).
    Cluster(super::bench::cluster::BenchClusterArgs),
    /// The learned agents' training speed (env steps and gradient steps per second).
    Train(super::bench::train::BenchTrainArgs),
    /// The DAG schedulers on large instances: list schedulers' times, decoder plans per second.
    Dag(super::bench::dag::BenchDagArgs),
    /// The network allocation dynamics: iterations per second on many centres.
    Network(super::bench::network::BenchNetworkArgs),
    /// Raw env steps per second through the gym contract, one env and a vectorised batch.
    Steps(super::bench::steps::BenchStepsArgs),
    /// Scoring an entry on a benchmark suite's test split (seconds).
    Suite(super::bench::suite::BenchSuiteArgs),
}

fn positive_gb(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(gb) if gb > 0.0 && gb.is_finite() => Ok(gb),
        _ => Err(format!("{text:?} is not a positive number of GB")),
    }
}
