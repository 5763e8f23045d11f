//! `schedlab reproduce`'s command line; the sections are in `crate::reproduce`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    Fig2,
    Table1,
    Table2,
    Dag,
    Network,
    Communication,
    Conserving,
    Learned,
    Heterogeneity,
    Fidelity,
    Learners,
    Leaderboard,
    All,
}

#[derive(Args)]
pub struct ReproduceArgs {
    target: Target,
    /// Seeds 0..N per cell.
    #[arg(long, default_value_t = 5)]
    seeds: u64,
    /// Rounds of PPO and DQN training for table1 (each round trains the real model for two
    /// virtual seconds: about 55 rounds per second on 2 cores).
    #[arg(long, default_value_t = 20_000)]
    steps: u64,
    /// Sweep folders (resumable: a rerun skips finished episodes).
    #[arg(long, default_value = "results/reproduce")]
    out: PathBuf,
    /// The document to (re)write from every section reproduced so far.
    #[arg(long, default_value = "EXPERIMENTS.md")]
    doc: PathBuf,
    /// Where the figures go (linked from the document by relative path).
    #[arg(long, default_value = "docs/figures")]
    figures: PathBuf,
    /// A protocol file of one's own (the shipped one's layout: `data/experiments/reproduce.toml`);
    /// the workloads it names are still looked up in `data/workloads/`.
    #[arg(long)]
    protocol: Option<PathBuf>,
    /// Play the finished training runs already in `--out` even where a build of other env,
    /// agents or trainer sources trained them (by default they are trained again); the
    /// document names their sources' fingerprint.
    #[arg(long)]
    reuse_runs: bool,
}

pub fn run(args: ReproduceArgs) -> anyhow::Result<()> {
    let targets: Vec<&str> = match args.target {
        Target::Fig2 => vec!["fig2"],
        Target::Table1 => vec!["table1"],
        Target::Table2 => vec!["table2"],
        Target::Dag => vec!["dag"],
        Target::Network => vec!["network"],
        Target::Communication => vec!["communication"],
        Target::Conserving => vec!["conserving"],
        Target::Learned => vec!["learned"],
        Target::Heterogeneity => vec!["heterogeneity"],
        Target::Fidelity => vec!["fidelity"],
        Target::Learners => vec!["learners"],
        Target::Leaderboard => vec!["leaderboard"],
        Target::All => schedlab_experiments::reproduce::targets().to_vec(),
    };
    let settings = schedlab_experiments::reproduce::Settings {
        seeds: args.seeds,
        steps: args.steps,
        out: args.out,
        doc: args.doc,
        figures: args.figures,
        protocol: args.protocol,
        reuse_runs: args.reuse_runs,
    };
    schedlab_experiments::reproduce::run(&settings, &targets)
}
