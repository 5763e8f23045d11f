//! `schedlab workload import`: its arguments, parsed into an import request
//! (`schedlab_experiments::traces::import`).

use std::path::PathBuf;

use clap::Args;
use schedlab_env::jobs::FamilySpec;
use schedlab_experiments::traces::import::{ImportRequest, Scale, import};
use schedlab_experiments::traces::{Bound, Format};

#[derive(Args)]
pub struct ImportArgs {
    #[arg(long, value_enum)]
    format: Format,
    /// The trace's job (pod, task) file, CSV or CSV.gz.
    #[arg(long)]
    jobs: Option<PathBuf>,
    /// The machines: an Alibaba GPU v2023 node list, a PAI v2020 machine spec, or a TOML file
    /// of `[[machines]]` (as `--format alibaba-pai-machines` writes).
    #[arg(long)]
    nodes: Option<PathBuf>,
    /// Keep jobs arriving at or after this time: seconds on the trace's clock, or for Philly a
    /// date-time `YYYY-MM-DD[ HH:MM:SS]`. Arrivals are shifted so this is time 0.
    #[arg(long)]
    from: Option<String>,
    /// Keep jobs arriving before this time (same forms as --from).
    #[arg(long)]
    to: Option<String>,
    /// `time=F` multiplies arrival times and durations; `arrival=F` multiplies arrival times
    /// only (F < 1 raises the load by 1/F); `nodes=F` keeps round(F x count) of each machine
    /// type. Repeatable.
    #[arg(long = "scale", value_name = "KEY=F")]
    scale: Vec<String>,
    /// Keep only the first N jobs by arrival (ties by id), after the window and the scaling.
    #[arg(long, value_name = "N")]
    first: Option<usize>,
    /// Compress every duration as d' = 3600 s (d / 3600 s)^P (0 < P <= 1), after the scaling:
    /// long jobs shrink most, so a window can run for real in minutes (docs/real-execution.md).
    #[arg(long, value_name = "P")]
    compress_durations: Option<f64>,
    /// Drop rows that fail validation (printing how many and why) instead of stopping.
    #[arg(long)]
    lenient: bool,
    /// Seed of the job-to-template rule.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Folder of fitted templates (default: the shipped data/templates).
    #[arg(long)]
    templates: Option<PathBuf>,
    /// A folder of job-type templates (`schedlab templates gavel` writes them): every GPU job
    /// gets one, uniformly by a hash of --seed and its id.
    #[arg(long)]
    job_types: Option<PathBuf>,
    /// A TOML file holding a `[heterogeneity]` table (its `throughputs` relative to that
    /// file): the workload gets it, the path rewritten for where it is written, and its
    /// mapping is checked against the machines (docs/heterogeneity.md).
    #[arg(long)]
    heterogeneity: Option<PathBuf>,
    /// Write a workload family instead: the jobs of `[--from, --to)` are its training period
    /// and each episode plays a window drawn from ranges `KEY=LOW..HIGH`, KEY each of
    /// `length_s` (trace seconds), `machine_share` (of the machines after `--scale nodes`) and
    /// `arrival_factor` (see env/src/jobs/family.rs).
    #[arg(
        long = "family",
        value_name = "KEY=LOW..HIGH",
        conflicts_with = "windows"
    )]
    family: Vec<String>,
    /// Cut `[--from, --to)` into this many consecutive windows of equal length, each its own
    /// workload `OUT-00.toml`, `OUT-01.toml`, ... (`OUT-000.toml` from 101 windows on;
    /// held-out evaluation windows).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    windows: Option<u32>,
    /// The workload file to write (TOML).
    #[arg(short, long)]
    out: PathBuf,
}

fn parse_scale(raw: &[String]) -> anyhow::Result<Scale> {
    let mut scale = Scale {
        time: 1.0,
        arrival: 1.0,
        nodes: 1.0,
    };
    for (key, value) in schedlab_experiments::settings::parse_overrides(raw)? {
        let v: f64 = value
            .parse()
            .ok()
            .filter(|v: &f64| *v > 0.0 && v.is_finite())
            .ok_or_else(|| {
                anyhow::anyhow!("`--scale {key}={value}`: expected a positive number")
            })?;
        match key.as_str() {
            "time" => scale.time = v,
            "arrival" => scale.arrival = v,
            "nodes" => scale.nodes = v,
            _ => anyhow::bail!("`--scale {key}`: unknown key; use time=F, arrival=F or nodes=F"),
        }
    }
    Ok(scale)
}

/// `KEY=LOW..HIGH` ranges into a family section; `period_s` is filled in once the
/// period's length is known.
fn parse_family(raw: &[String]) -> anyhow::Result<Option<FamilySpec>> {
    if raw.is_empty() {
        return Ok(None);
    }
    let mut ranges: [Option<[f64; 2]>; 3] = [None; 3];
    const KEYS: [&str; 3] = ["length_s", "machine_share", "arrival_factor"];
    for (key, value) in schedlab_experiments::settings::parse_overrides(raw)? {
        let k = KEYS.iter().position(|k| *k == key).ok_or_else(|| {
            anyhow::anyhow!("`--family {key}`: unknown key; use {}", KEYS.join(", "))
        })?;
        let range = value
            .split_once("..")
            .and_then(|(lo, hi)| Some([lo.trim().parse().ok()?, hi.trim().parse().ok()?]))
            .ok_or_else(|| {
                anyhow::anyhow!("`--family {key}={value}`: expected LOW..HIGH, two numbers")
            })?;
        ranges[k] = Some(range);
    }
    let [Some(length_s), Some(machine_share), Some(arrival_factor)] = ranges else {
        anyhow::bail!("--family needs all of {}", KEYS.join(", "));
    };
    Ok(Some(FamilySpec {
        period_s: 0.0,
        length_s,
        machine_share,
        arrival_factor,
    }))
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    import(&ImportRequest {
        format: args.format,
        from: args.from.as_deref().map(Bound::parse).transpose()?,
        to: args.to.as_deref().map(Bound::parse).transpose()?,
        scale: parse_scale(&args.scale)?,
        first: args.first,
        compress_durations: args.compress_durations,
        family: parse_family(&args.family)?,
        jobs: args.jobs,
        nodes: args.nodes,
        lenient: args.lenient,
        seed: args.seed,
        templates: args.templates,
        job_types: args.job_types,
        heterogeneity: args.heterogeneity,
        windows: args.windows.map(|n| n as usize),
        out: args.out,
    })
}
