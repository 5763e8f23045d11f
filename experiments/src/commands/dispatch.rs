//! Where a command runs (a pool of `--threads` workers, on the device and under the memory
//! limit the global options name) and the function each subcommand calls.

use schedlab_experiments::device;

use super::cli::{BenchCommand, Cli, Command, WorkloadCommand};

/// Runs `cli`'s command on a pool of `--threads` workers; a real run's worker runs alone.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    // a real run's worker: no thread pool, nothing but its loop
    if let Command::RealProcess(args) = cli.command {
        return super::real_process::run(args);
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

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    device::choose(&cli.device)?;
    if let Some(gb) = cli.memory_limit_gb {
        schedlab_env::limits::set_memory_limit((gb * 1e9) as u64);
    }
    match cli.command {
        Command::Workload(WorkloadCommand::Validate { path }) => super::validate::run(&path),
        Command::Workload(WorkloadCommand::Import(args)) => super::import::run(*args),
        Command::Run(args) => super::run::run(args),
        Command::Policies => super::policies::run(),
        Command::Eval(args) => super::eval::run(args),
        Command::Train(args) => super::train::run(args),
        Command::Quickstart(args) => super::quickstart::run(args),
        Command::Compare(args) => super::compare::run(args),
        Command::Predictors(command) => super::predictors::run(command),
        Command::Templates(command) => super::templates::run(command),
        Command::Sweep(args) => super::sweep::run(args),
        Command::Plot(command) => super::plot::run(command),
        Command::Reproduce(args) => super::reproduce::run(args),
        Command::Summarize(args) => super::summarize::run(args),
        Command::Bench(BenchCommand::Env(args)) => super::bench::env::run(args),
        Command::Bench(BenchCommand::Solvers(args)) => super::bench::solvers::run(args),
        Command::Bench(BenchCommand::Cluster(args)) => super::bench::cluster::run(args),
        Command::Bench(BenchCommand::Train(args)) => super::bench::train::run(args, &cli.threads),
        Command::Bench(BenchCommand::Dag(args)) => super::bench::dag::run(args),
        Command::Bench(BenchCommand::Network(args)) => super::bench::network::run(args),
        Command::Bench(BenchCommand::Steps(args)) => super::bench::steps::run(args),
        Command::Bench(BenchCommand::Suite(args)) => super::bench::suite::run(args),
        Command::Suite(command) => super::suite::run(command),
        Command::Fidelity(args) => super::fidelity::run(args),
        Command::Calibrate(args) => super::calibrate::run(args),
        Command::RealProcess(_) => unreachable!("run before the pool starts"),
    }
}
