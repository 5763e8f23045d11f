//! `schedlab sweep`: run a grid spec (resumably, optionally one shard of it) or merge shards.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use schedlab_experiments::sweep::merge::merge;
use schedlab_experiments::sweep::run::{SweepOptions, run as run_sweep, train_all};
use schedlab_experiments::sweep::spec::{Shard, SweepSpec};

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    command: Option<SweepCommand>,
    /// The sweep spec (TOML: name, policies, workloads, seeds, optional [overrides.NAME] and
    /// [train]).
    spec: Option<PathBuf>,
    /// Episodes played at once (default: one per core).
    #[arg(long)]
    jobs: Option<usize>,
    /// Run only the cells whose grid index is i modulo n (0 <= i < n), for a batch array.
    #[arg(long, default_value = "0/1")]
    shard: String,
    /// The sweep folder (default: sweeps/NAME, or sweeps/NAME-shard-i-of-n).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Where `train:AGENT` run folders live (default: OUT/runs). Shards of one sweep share
    /// one, filled beforehand by `--train-only`, so that nothing is trained once per shard.
    #[arg(long)]
    runs: Option<PathBuf>,
    /// Train every `train:AGENT` policy of the whole grid into --runs, play nothing.
    #[arg(long, requires = "runs")]
    train_only: bool,
    /// Play again the rows of the folder that a build of other env, predictors, agents or
    /// trainer sources played (by default such a folder is refused: its episodes may differ).
    #[arg(long)]
    replay_other_sources: bool,
}

#[derive(Subcommand)]
enum SweepCommand {
    /// Join shard folders into one; refuses overlapping shards and missing cells.
    Merge {
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
}

pub fn run(args: SweepArgs) -> anyhow::Result<()> {
    if let Some(SweepCommand::Merge { dirs, out }) = args.command {
        let rows = merge(&dirs, &out)?;
        println!(
            "merged {} rows from {} folders into {}",
            rows.len(),
            dirs.len(),
            out.display()
        );
        return Ok(());
    }
    let path = args
        .spec
        .ok_or_else(|| anyhow::anyhow!("name a sweep spec: schedlab sweep SPEC.toml"))?;
    let spec = SweepSpec::load(&path)?;
    let shard = Shard::parse(&args.shard)?;
    if args.train_only {
        let runs = args.runs.expect("clap requires --runs with --train-only");
        let trained = train_all(&spec, &runs)?;
        println!(
            "{trained} trained runs of {} in {}",
            spec.name,
            runs.display()
        );
        return Ok(());
    }
    let out = args.out.unwrap_or_else(|| {
        let name = if shard == Shard::WHOLE {
            spec.name.clone()
        } else {
            format!("{}-shard-{}-of-{}", spec.name, shard.index, shard.count)
        };
        PathBuf::from("sweeps").join(name)
    });
    let cells = spec.grid().len();
    let rows = run_sweep(
        &spec,
        &SweepOptions {
            out: out.clone(),
            shard,
            runs: args.runs.unwrap_or_else(|| out.join("runs")),
            jobs: args.jobs,
            replay_other_sources: args.replay_other_sources,
        },
    )?;
    println!(
        "{} rows of {} cells (shard {}/{}) in {}: results.parquet, results.csv",
        rows.len(),
        cells,
        shard.index,
        shard.count,
        out.display()
    );
    println!("summarize: schedlab summarize {}", out.display());
    Ok(())
}
