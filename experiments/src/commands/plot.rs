//! `schedlab plot`: PNG charts from what the other commands leave behind: training curves
//! from TensorBoard run folders or per-round CSV files, bars and CDFs of a metric from sweep
//! results, and per-job completion-time CDFs on a jobs workload.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use schedlab_experiments::curves::{csv_curve, metric_groups, source_label, tensorboard_curve};
use schedlab_experiments::play::completion_hours;
use schedlab_experiments::plots::{self, XScale};
use schedlab_experiments::stats::summarize;
use schedlab_experiments::workloads::{Jobs, Kind};

#[derive(Subcommand)]
pub enum PlotCommand {
    /// Curves of one tag from TensorBoard run folders (x: the step), or of one column against
    /// another from CSV files (`run --rounds-csv`), one line per source.
    Curves(CurvesArgs),
    /// A metric's mean per policy with 95% confidence whiskers, from sweep results.
    Bars(ResultsArgs),
    /// The empirical CDF of a metric's per-episode values per policy, from sweep results.
    Cdf(ResultsArgs),
    /// The CDF of every job's completion time on a jobs workload, one episode per policy.
    JctCdf(JctCdfArgs),
}

#[derive(Args)]
pub struct CurvesArgs {
    /// Run folders (their event files) or CSV files.
    #[arg(required = true)]
    sources: Vec<PathBuf>,
    /// The TensorBoard tag (`charts/episodic_return`) or the CSV column on the y axis.
    #[arg(long)]
    y: String,
    /// The CSV column on the x axis (TensorBoard curves use the step).
    #[arg(long, default_value = "round")]
    x: String,
    /// Moving average over this many points (1: raw).
    #[arg(long, default_value_t = 1)]
    smooth: usize,
    #[arg(long, value_enum, default_value = "linear")]
    x_scale: XScale,
    #[arg(long)]
    out: PathBuf,
    #[arg(long)]
    title: Option<String>,
}

#[derive(Args)]
pub struct ResultsArgs {
    /// A sweep folder, or a results file (.parquet or .csv).
    results: PathBuf,
    #[arg(long)]
    metric: String,
    #[arg(long)]
    out: PathBuf,
    /// The x axis of `cdf` (bars have none).
    #[arg(long, value_enum, default_value = "linear")]
    x_scale: XScale,
    #[arg(long)]
    title: Option<String>,
}

#[derive(Args)]
pub struct JctCdfArgs {
    /// A jobs workload (`kind = "jobs"`).
    #[arg(long)]
    workload: PathBuf,
    /// Comma-separated policies (names with inline options, or trained run folders).
    #[arg(
        long = "policy",
        alias = "policies",
        value_delimiter = ',',
        required = true
    )]
    policies: Vec<String>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long)]
    out: PathBuf,
    /// Completion times span hours to months: log by default.
    #[arg(long, value_enum, default_value = "log")]
    x_scale: XScale,
}

pub fn run(command: PlotCommand) -> anyhow::Result<()> {
    let out = match command {
        PlotCommand::Curves(args) => curves(&args)?,
        PlotCommand::Bars(args) => {
            let groups = metric_groups(&args.results, &args.metric)?;
            let bars: Vec<_> = groups
                .into_iter()
                .map(|(label, v)| {
                    let s = summarize(&v);
                    (label, s.mean, s.ci95)
                })
                .collect();
            let title = args.title.clone().unwrap_or_else(|| args.metric.clone());
            plots::bars(&args.out, &title, &args.metric, &bars)?;
            args.out
        }
        PlotCommand::Cdf(args) => {
            let groups = metric_groups(&args.results, &args.metric)?;
            let title = args
                .title
                .clone()
                .unwrap_or_else(|| format!("{} over episodes", args.metric));
            plots::cdfs(
                &args.out,
                &title,
                (&args.metric, "share of episodes"),
                &groups,
                args.x_scale,
            )?;
            args.out
        }
        PlotCommand::JctCdf(args) => {
            let loaded = schedlab_experiments::workloads::load(&args.workload, &[])?;
            let jobs: &Jobs = loaded.expect("plot jct-cdf", &args.workload)?;
            let samples = args
                .policies
                .iter()
                .map(|p| Ok((p.clone(), completion_hours(jobs, p, args.seed)?)))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let title = format!("Job completion times, {} (seed {})", jobs.name(), args.seed);
            plots::cdfs(
                &args.out,
                &title,
                ("JCT (hours)", "share of jobs"),
                &samples,
                args.x_scale,
            )?;
            args.out
        }
    };
    println!("wrote {}", out.display());
    Ok(())
}

fn curves(args: &CurvesArgs) -> anyhow::Result<PathBuf> {
    anyhow::ensure!(args.smooth >= 1, "--smooth must be at least 1");
    let mut series = Vec::new();
    for source in &args.sources {
        let points = if source.is_dir() {
            tensorboard_curve(source, &args.y)?
        } else {
            csv_curve(source, &args.x, &args.y)?
        };
        series.push((
            source_label(source),
            plots::moving_average(&points, args.smooth),
        ));
    }
    let x_label = if args.sources.iter().all(|s| s.is_dir()) {
        "step"
    } else {
        args.x.as_str()
    };
    let title = args.title.clone().unwrap_or_else(|| args.y.clone());
    plots::lines(&args.out, &title, (x_label, &args.y), &series, args.x_scale)?;
    Ok(args.out.clone())
}
