//! `schedlab plot`: PNG charts from what the other commands leave behind: training curves
//! from TensorBoard run folders or per-round CSV files, bars and CDFs of a metric from sweep
//! results, and per-job completion-time CDFs on a jobs workload.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};
use schedlab_trainer::tensorboard::read_scalars;

use schedlab_experiments::play::completion_hours;
use schedlab_experiments::plots::{self, XScale};
use schedlab_experiments::stats::summarize;
use schedlab_experiments::sweep::table::read_results;
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
            let groups = metric_groups(&args)?;
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
            let groups = metric_groups(&args)?;
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

/// A run folder's or file's own name, as the legend shows it.
fn source_label(source: &Path) -> String {
    let name = if source.is_dir() {
        source.file_name()
    } else {
        source.file_stem()
    };
    name.map_or_else(
        || source.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn tensorboard_curve(run: &Path, tag: &str) -> anyhow::Result<Vec<(f64, f64)>> {
    let scalars = read_scalars(run)?;
    for torn in &scalars.torn_files {
        eprintln!(
            "warning: {} ends inside a record (a killed writer); its whole records are used",
            torn.display()
        );
    }
    let points = scalars.by_tag.get(tag).with_context(|| {
        format!(
            "{}: no scalar tag `{tag}`; it has {}",
            run.display(),
            scalars
                .by_tag
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    Ok(points.iter().map(|&(s, v)| (s as f64, v)).collect())
}

fn csv_curve(file: &Path, x: &str, y: &str) -> anyhow::Result<Vec<(f64, f64)>> {
    let mut reader =
        csv::Reader::from_path(file).with_context(|| format!("opening {}", file.display()))?;
    let headers = reader
        .headers()
        .with_context(|| format!("{}: reading the header", file.display()))?
        .clone();
    let column = |name: &str| {
        headers.iter().position(|h| h == name).with_context(|| {
            format!(
                "{}: no column `{name}`; it has {}",
                file.display(),
                headers.iter().collect::<Vec<_>>().join(", ")
            )
        })
    };
    let (xi, yi) = (column(x)?, column(y)?);
    let mut points = Vec::new();
    for (k, record) in reader.records().enumerate() {
        let line = k + 2;
        let record = record.with_context(|| format!("{} line {line}", file.display()))?;
        let number = |i: usize, name: &str| -> anyhow::Result<f64> {
            let text = record.get(i).unwrap_or_default();
            text.parse().with_context(|| {
                format!(
                    "{} line {line}, column `{name}`: `{text}` is not a number",
                    file.display()
                )
            })
        };
        points.push((number(xi, x)?, number(yi, y)?));
    }
    Ok(points)
}

/// The metric's per-episode values per group, labelled by policy, plus the override set and
/// workload when the results hold more than one.
fn metric_groups(args: &ResultsArgs) -> anyhow::Result<Vec<(String, Vec<f64>)>> {
    let results = read_results(&args.results)?;
    let column = results
        .column(&args.metric)
        .with_context(|| args.results.display().to_string())?;
    let several = |field: fn(&schedlab_experiments::sweep::spec::CellKey) -> &str| {
        results
            .keys
            .iter()
            .any(|k| field(k) != field(&results.keys[0]))
    };
    let (by_overrides, by_workload) = (several(|k| &k.overrides), several(|k| &k.workload));
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    for (key, value) in results.keys.iter().zip(column) {
        let mut label = key.policy.clone();
        if by_overrides {
            label += &format!(" [{}]", key.overrides);
        }
        if by_workload {
            label += &format!(" @{}", key.workload);
        }
        let Some(value) = value else { continue };
        match groups.iter_mut().find(|g| g.0 == label) {
            Some(group) => group.1.push(*value),
            None => groups.push((label, vec![*value])),
        }
    }
    anyhow::ensure!(
        !groups.is_empty(),
        "{}: `{}` has no values",
        args.results.display(),
        args.metric
    );
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_curve_names_the_bad_cell() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("rounds.csv");
        std::fs::write(&file, "round,val_loss\n0,2.5\n1,oops\n").unwrap();
        let err = format!("{:#}", csv_curve(&file, "round", "val_loss").unwrap_err());
        assert!(err.contains("line 3") && err.contains("`oops`"), "{err}");
        let err = format!("{:#}", csv_curve(&file, "round", "loss").unwrap_err());
        assert!(
            err.contains("no column `loss`") && err.contains("val_loss"),
            "{err}"
        );
    }
}
