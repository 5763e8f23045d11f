//! `schedlab summarize`: a sweep's results summarised against a baseline policy
//! (`schedlab_experiments::summary`), printed and written as summary.md and summary.csv.

use std::path::{Path, PathBuf};

use clap::Args;

use schedlab_experiments::summary::{chosen_metrics, summarize_results, tables, write_summary};
use schedlab_experiments::sweep::table::read_results;

#[derive(Args)]
pub struct SummarizeArgs {
    /// A sweep folder, or a results file (.parquet or .csv) with the sweep's columns.
    results: PathBuf,
    /// The policy every other is tested against (default: the first in the results).
    #[arg(long)]
    baseline: Option<String>,
    /// Metrics to show, comma-separated, or `all` (default: the headline ones present).
    #[arg(long)]
    metrics: Option<String>,
    /// Where summary.md and summary.csv go (default: the sweep folder, or beside the file).
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(args: SummarizeArgs) -> anyhow::Result<()> {
    let results = read_results(&args.results)?;
    let metrics = chosen_metrics(&results, args.metrics.as_deref())?;
    let groups = summarize_results(&results, args.baseline.as_deref(), &metrics)?;
    print!("{}", tables(&groups));
    let dir = match args.out {
        Some(dir) => dir,
        None if args.results.is_dir() => args.results.clone(),
        None => args
            .results
            .parent()
            .map(Path::to_owned)
            .unwrap_or_default(),
    };
    std::fs::create_dir_all(&dir)?;
    write_summary(&dir, &groups)?;
    println!("wrote {0}/summary.md and {0}/summary.csv", dir.display());
    Ok(())
}
