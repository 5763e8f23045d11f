//! `schedlab workload import`: a real trace into a jobs workload (TOML, plus a Parquet job
//! table when it has many jobs).

use std::path::PathBuf;

use clap::Args;
use schedlab_env::jobs::{
    FamilySpec, JobsEpisode, JobsWorkload, MachineSpec, Scaling, TraceSource, Window,
};

use schedlab_experiments::output::write_atomic;
use schedlab_experiments::traces::machines::MachinesFile;
use schedlab_experiments::traces::{self, Bound, Format, ReadOptions, templates};

/// Above this many jobs the workload keeps them in a Parquet table beside the TOML.
const INLINE_JOBS: usize = 200;

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
    /// Drop rows that fail validation (printing how many and why) instead of stopping.
    #[arg(long)]
    lenient: bool,
    /// Seed of the job-to-template rule.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Folder of fitted templates (default: the shipped data/templates).
    #[arg(long)]
    templates: Option<PathBuf>,
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
    #[arg(long)]
    windows: Option<usize>,
    /// The workload file to write (TOML).
    #[arg(short, long)]
    out: PathBuf,
}

struct Scale {
    time: f64,
    arrival: f64,
    nodes: f64,
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

/// Seconds from `from` to `to` when both are given on the same clock.
fn span_s(from: Option<Bound>, to: Option<Bound>) -> anyhow::Result<f64> {
    match (from, to) {
        (Some(Bound::Seconds(a)), Some(Bound::Seconds(b))) => Ok(b - a),
        (Some(Bound::Epoch(a)), Some(Bound::Epoch(b))) => Ok((b - a) as f64),
        _ => anyhow::bail!(
            "--family and --windows need --from and --to, both in seconds or both date-times"
        ),
    }
    .and_then(|s| {
        anyhow::ensure!(s > 0.0, "--to must be after --from");
        Ok(s)
    })
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    let from = args.from.as_deref().map(Bound::parse).transpose()?;
    let to = args.to.as_deref().map(Bound::parse).transpose()?;
    let family = parse_family(&args.family)?;
    let Some(count) = args.windows else {
        return import(&args, from, to, &args.out, family);
    };
    anyhow::ensure!(count >= 1, "--windows must be at least 1");
    let step = span_s(from, to)? / count as f64;
    let stem = args
        .out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "window".into());
    for k in 0..count {
        let out = args.out.with_file_name(window_file_name(&stem, k, count));
        let bounds = [k, k + 1].map(|i| from.map(|b| b.plus_s(step * i as f64)));
        import(&args, bounds[0], bounds[1], &out, None)?;
    }
    Ok(())
}

/// Window `k` of `count`: numbered to the width of the last (at least 2), so that name order
/// is time order.
fn window_file_name(stem: &str, k: usize, count: usize) -> String {
    let width = (count - 1).to_string().len().max(2);
    format!("{stem}-{k:0width$}.toml")
}

fn show(bound: Option<Bound>) -> String {
    bound.map_or_else(|| "-".into(), |b| b.to_string())
}

fn import(
    args: &ImportArgs,
    from: Option<Bound>,
    to: Option<Bound>,
    out: &std::path::Path,
    mut family: Option<FamilySpec>,
) -> anyhow::Result<()> {
    let scale = parse_scale(&args.scale)?;
    let nodes = args.nodes.as_ref().ok_or_else(|| {
        anyhow::anyhow!(
            "--nodes is required: {} has no machine list of its own; pass the openb node list, the PAI machine spec or a machines TOML",
            args.format.name()
        )
    })?;
    let (mut machines, dropped_machines) = traces::read_machines(nodes, args.lenient)?;
    traces::machines::scale_machines(&mut machines, scale.nodes);
    if args.format == Format::AlibabaPaiMachines {
        return write_machines(args, machines, dropped_machines);
    }
    let jobs_path = args
        .jobs
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("--jobs is required for {}", args.format.name()))?;
    let out_dir = schedlab_experiments::traces::templates::output_dir(out)?;
    let template_list = templates::load(
        args.templates
            .as_deref()
            .unwrap_or(templates::default_dir()),
        &out_dir,
    )?;
    let options = ReadOptions {
        machines: &machines,
        from,
        to,
        lenient: args.lenient,
        seed: args.seed,
    };
    let mut read = traces::read_jobs(args.format, jobs_path, &options)?;
    anyhow::ensure!(
        !read.jobs.is_empty(),
        "{}: no job left ({} rows, {} outside --from/--to, {} dropped)",
        jobs_path.display(),
        read.rows_read,
        read.outside_window,
        read.dropped_total()
    );
    for j in &mut read.jobs {
        j.arrival_s *= scale.time * scale.arrival;
        j.duration_s *= scale.time;
    }
    let last_arrival = read.jobs.iter().map(|j| j.arrival_s).fold(0.0, f64::max);
    let longest = read.jobs.iter().map(|j| j.duration_s).fold(0.0, f64::max);
    // a family's episodes last as long as its longest, slowest-arriving window
    let arrivals_end = match &mut family {
        Some(f) => {
            f.period_s = span_s(from, to)? * scale.time * scale.arrival;
            f.length_s = f.length_s.map(|l| l * scale.time * scale.arrival);
            f.length_s[1] / f.arrival_factor[0]
        }
        None => last_arrival,
    };
    let name = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "imported".into());
    let (dropped, warnings) = what_was_left_out(&read, dropped_machines);
    let mut workload = JobsWorkload {
        kind: "jobs".into(),
        name: name.clone(),
        description: format!(
            "{} jobs of {} on {} machines (imported)",
            read.jobs.len(),
            args.format.name(),
            machines.iter().map(|m| m.count).sum::<usize>()
        ),
        source: Some(TraceSource {
            format: args.format.name().into(),
            jobs: jobs_path.display().to_string(),
            nodes: nodes.display().to_string(),
            rows_read: read.rows_read,
            rows_kept: read.jobs.len(),
            from: show(from),
            to: show(to),
            dropped: dropped.clone(),
            rule: format!(
                "seed {}; from {} to {}; scale time {} arrival {} nodes {}; {}",
                args.seed,
                show(from),
                show(to),
                scale.time,
                scale.arrival,
                scale.nodes,
                warnings.join("; ")
            ),
        }),
        episode: JobsEpisode {
            decision_interval_s: 1800.0 * scale.time,
            max_time_s: arrivals_end + 4.0 * longest + 1.0,
            restart_s: 30.0,
            max_steps_per_decision: 64,
            speed_sigma: 0.1,
        },
        fidelity: Default::default(),
        window: Window::default(),
        scaling: Scaling::default(),
        reward: Default::default(),
        prices: Default::default(),
        machines,
        templates: template_list,
        jobs: Vec::new(),
        jobs_table: None,
        family,
    };
    workload.jobs = std::mem::take(&mut read.jobs);
    workload.validate(out)?;
    let jobs = workload.jobs.len();
    write_workload(workload, out, &name)?;
    println!(
        "wrote {}: {} jobs from {} rows ({} outside --from/--to, {} dropped)",
        out.display(),
        jobs,
        read.rows_read,
        read.outside_window,
        read.dropped_total()
    );
    for line in dropped.iter().chain(&warnings) {
        println!("  {line}");
    }
    Ok(())
}

/// The lines that say what the import left out: rows dropped (with why) and machine rows,
/// and the warnings, each with its count.
fn what_was_left_out(
    read: &traces::ReadJobs,
    dropped_machines: usize,
) -> (Vec<String>, Vec<String>) {
    let mut dropped: Vec<String> = read
        .dropped
        .iter()
        .map(|(why, n)| format!("{n} rows: {why}"))
        .collect();
    if dropped_machines > 0 {
        dropped.push(format!("{dropped_machines} machine rows"));
    }
    let warnings = read
        .warnings
        .iter()
        .map(|(w, n)| format!("{n} x {w}"))
        .collect();
    (dropped, warnings)
}

/// Writes the workload file, its jobs in a Parquet table beside it when there are more than
/// [`INLINE_JOBS`] (both atomically).
fn write_workload(
    mut workload: JobsWorkload,
    out: &std::path::Path,
    name: &str,
) -> anyhow::Result<()> {
    if workload.jobs.len() > INLINE_JOBS {
        let table_name = format!("{name}.jobs.parquet");
        let table_path = out.with_file_name(&table_name);
        write_atomic(
            &table_path,
            &traces::table::write_jobs_parquet(&workload.jobs)?,
        )?;
        workload.jobs.clear();
        workload.jobs_table = Some(table_name);
        println!("wrote {}", table_path.display());
    }
    write_atomic(out, toml::to_string(&workload)?.as_bytes())?;
    Ok(())
}

fn write_machines(
    args: &ImportArgs,
    machines: Vec<MachineSpec>,
    dropped: usize,
) -> anyhow::Result<()> {
    let file = MachinesFile { machines };
    write_atomic(&args.out, toml::to_string(&file)?.as_bytes())?;
    println!(
        "wrote {}: {} machines in {} types ({dropped} rows dropped); use it as --nodes",
        args.out.display(),
        file.machines.iter().map(|m| m.count).sum::<usize>(),
        file.machines.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::window_file_name;

    #[test]
    fn window_names_sort_in_time_order_at_any_count() {
        assert_eq!(window_file_name("w", 3, 12), "w-03.toml");
        for count in [12, 100, 101, 144, 1000, 1001] {
            let names: Vec<String> = (0..count)
                .map(|k| window_file_name("w", k, count))
                .collect();
            let mut sorted = names.clone();
            sorted.sort();
            assert_eq!(names, sorted, "{count} windows");
        }
        assert_eq!(window_file_name("w", 7, 144), "w-007.toml");
    }
}
