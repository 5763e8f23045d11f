//! A real trace into a jobs workload (TOML, plus a Parquet job table when it has many jobs),
//! a family of windows, or consecutive held-out windows; `schedlab workload import` parses
//! its arguments into an [`ImportRequest`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use schedlab_env::jobs::throughputs::Throughputs;
use schedlab_env::jobs::{
    FamilySpec, Heterogeneity, JobRecord, JobsEpisode, JobsWorkload, MachineSpec, Scaling,
    TraceSource, Window,
};

use super::bound::Bound;
use super::format::Format;
use super::machines::MachinesFile;
use super::reader::ReadOptions;
use super::templates;
use crate::output::write_atomic;
use crate::traces;

/// Above this many jobs the workload keeps them in a Parquet table beside the TOML.
const INLINE_JOBS: usize = 200;

/// Multipliers of the trace: `time` of arrival times and durations, `arrival` of arrival
/// times only, `nodes` of each machine type's count.
pub struct Scale {
    pub time: f64,
    pub arrival: f64,
    pub nodes: f64,
}

/// What to import and where to write it.
pub struct ImportRequest {
    pub format: Format,
    /// The trace's job (pod, task) file.
    pub jobs: Option<PathBuf>,
    /// The machines: a node list, a machine spec, or a machines TOML.
    pub nodes: Option<PathBuf>,
    /// Jobs arriving in `[from, to)`, shifted so `from` is time 0.
    pub from: Option<Bound>,
    pub to: Option<Bound>,
    pub scale: Scale,
    /// Only the first N jobs by arrival (ties by id).
    pub first: Option<usize>,
    /// Durations compressed as d' = 3600 s (d / 3600 s)^P.
    pub compress_durations: Option<f64>,
    /// Drop rows that fail validation (saying how many and why) instead of stopping.
    pub lenient: bool,
    /// Seed of the job-to-template rule.
    pub seed: u64,
    /// Folder of fitted templates (default: the shipped data/templates).
    pub templates: Option<PathBuf>,
    /// A folder of job types: every GPU job gets one by the seeded rule (templates.rs).
    pub job_types: Option<PathBuf>,
    /// A file with a `[heterogeneity]` table for the workload.
    pub heterogeneity: Option<PathBuf>,
    /// A workload family instead of one workload (`period_s` filled in here).
    pub family: Option<FamilySpec>,
    /// Cut `[from, to)` into this many consecutive windows, each its own workload.
    pub windows: Option<usize>,
    /// The workload file to write.
    pub out: PathBuf,
}

/// Writes the workload (or the family, or the windows) `request` asks for.
pub fn import(request: &ImportRequest) -> anyhow::Result<()> {
    let (from, to) = (request.from, request.to);
    let Some(count) = request.windows else {
        return import_one(request, from, to, &request.out, request.family.clone());
    };
    anyhow::ensure!(count >= 1, "--windows must be at least 1");
    let step = span_s(from, to)? / count as f64;
    let stem = file_stem_or(&request.out, "window");
    let bar = crate::play::count_bar(count as u64, "import".into(), "windows")?;
    for k in 0..count {
        let out = request
            .out
            .with_file_name(window_file_name(&stem, k, count));
        let bounds = [k, k + 1].map(|i| from.map(|b| b.plus_s(step * i as f64)));
        bar.suspend(|| import_one(request, bounds[0], bounds[1], &out, None))?;
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(())
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

/// Window `k` of `count`: numbered to the width of the last (at least 2), so that name order
/// is time order.
fn window_file_name(stem: &str, k: usize, count: usize) -> String {
    let width = (count - 1).to_string().len().max(2);
    format!("{stem}-{k:0width$}.toml")
}

fn show(bound: Option<Bound>) -> String {
    bound.map_or_else(|| "-".into(), |b| b.to_string())
}

fn import_one(
    request: &ImportRequest,
    from: Option<Bound>,
    to: Option<Bound>,
    out: &std::path::Path,
    mut family: Option<FamilySpec>,
) -> anyhow::Result<()> {
    let scale = &request.scale;
    let nodes = required_nodes(request)?;
    let (machines, dropped_machines) = scaled_machines(request, nodes)?;
    if request.format == Format::AlibabaPaiMachines {
        return write_machines(request, machines, dropped_machines);
    }
    let jobs_path = (request.jobs.as_ref())
        .ok_or_else(|| anyhow::anyhow!("--jobs is required for {}", request.format.name()))?;
    let mut template_list = rule_templates(request, out)?;
    let options = ReadOptions {
        machines: &machines,
        from,
        to,
        lenient: request.lenient,
        seed: request.seed,
    };
    let mut read = read_scaled_jobs(request, jobs_path, &options)?;
    if let Some(dir) = &request.job_types {
        template_list.extend(assign_job_types(dir, &mut read.jobs, request.seed)?);
    }
    let longest = read.jobs.iter().map(|j| j.duration_s).fold(0.0, f64::max);
    let arrivals_end = arrivals_end(family.as_mut(), (from, to), scale, &read.jobs)?;
    let name = file_stem_or(out, "imported");
    let (dropped, warnings) = what_was_left_out(&read, dropped_machines);
    let heterogeneity = (request.heterogeneity.as_deref())
        .map(|file| read_heterogeneity(file, out))
        .transpose()?;
    let workload = JobsWorkload {
        kind: "jobs".into(),
        name: name.clone(),
        description: format!(
            "{} jobs of {} on {} machines (imported)",
            read.jobs.len(),
            request.format.name(),
            machines.iter().map(|m| m.count).sum::<usize>()
        ),
        source: Some(trace_source(
            request,
            (jobs_path, nodes),
            (from, to),
            &read,
            (&dropped, &warnings),
        )),
        episode: imported_episode(scale, arrivals_end + 4.0 * longest + 1.0),
        fidelity: Default::default(),
        execution: Default::default(),
        real: Default::default(),
        window: Window::default(),
        scaling: Scaling::default(),
        reward: Default::default(),
        prices: Default::default(),
        machines,
        heterogeneity,
        tenant_shares: Default::default(),
        templates: template_list,
        jobs: std::mem::take(&mut read.jobs),
        jobs_table: None,
        family,
    };
    workload.validate(out)?;
    let jobs = workload.jobs.len();
    write_workload(workload, out, &name)?;
    report_import(out, jobs, &read, dropped.iter().chain(&warnings));
    Ok(())
}

/// What an import wrote and what it left out.
fn report_import<'a>(
    out: &std::path::Path,
    jobs: usize,
    read: &traces::ReadJobs,
    left_out: impl Iterator<Item = &'a String>,
) {
    println!(
        "wrote {}: {jobs} jobs from {} rows ({} outside --from/--to, {} dropped)",
        out.display(),
        read.rows_read,
        read.outside_window,
        read.dropped_total()
    );
    for line in left_out {
        println!("  {line}");
    }
}

/// The machines of `nodes`, scaled, and how many machine rows were dropped.
fn scaled_machines(
    request: &ImportRequest,
    nodes: &Path,
) -> anyhow::Result<(Vec<MachineSpec>, usize)> {
    let (mut machines, dropped) = traces::read_machines(nodes, request.lenient)?;
    traces::machines::scale_machines(&mut machines, request.scale.nodes);
    Ok((machines, dropped))
}

/// The templates the rule names, from `--templates` or the shipped folder.
fn rule_templates(
    request: &ImportRequest,
    out: &Path,
) -> anyhow::Result<Vec<schedlab_env::jobs::Template>> {
    let shipped = crate::paths::shipped_templates();
    let source = request.templates.as_deref().unwrap_or(&shipped);
    templates::load(source, &templates::output_dir(out)?)
}

/// Gives every GPU job one of the job types in `dir` by the seeded rule; returns the types.
fn assign_job_types(
    dir: &Path,
    jobs: &mut [JobRecord],
    seed: u64,
) -> anyhow::Result<Vec<schedlab_env::jobs::Template>> {
    let types = templates::load_job_types(dir)?;
    for job in jobs.iter_mut().filter(|j| j.gpu_milli > 0) {
        job.template = types[templates::assign_job_type(types.len(), &job.id, seed)]
            .name
            .clone();
    }
    Ok(types)
}

/// The `[heterogeneity]` table of `file`, its matrix read and its path made relative to the
/// folder `out` is written in.
fn read_heterogeneity(file: &Path, out: &Path) -> anyhow::Result<Heterogeneity> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct HeterogeneityFile {
        heterogeneity: Heterogeneity,
    }
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut h = toml::from_str::<HeterogeneityFile>(&text)
        .with_context(|| format!("{}: expected a [heterogeneity] table", file.display()))?
        .heterogeneity;
    let matrix = file.parent().unwrap_or(Path::new(".")).join(&h.throughputs);
    h.matrix = Some(Arc::new(Throughputs::read(&matrix)?));
    let relative = templates::relative_path(&templates::output_dir(out)?, &matrix)?;
    h.throughputs = relative.to_string_lossy().replace('\\', "/");
    Ok(h)
}

/// A written workload's name: its file's stem, or `default` where it has none.
fn file_stem_or(out: &std::path::Path, default: &str) -> String {
    out.file_stem()
        .map_or_else(|| default.into(), |s| s.to_string_lossy().into_owned())
}

fn required_nodes(request: &ImportRequest) -> anyhow::Result<&PathBuf> {
    request.nodes.as_ref().ok_or_else(|| {
        anyhow::anyhow!(
            "--nodes is required: {} has no machine list of its own; pass the openb node list, the PAI machine spec or a machines TOML",
            request.format.name()
        )
    })
}

/// When the episodes' arrivals end: the last job's arrival, or for a family (its period and
/// window lengths scaled here) its longest, slowest-arriving window.
fn arrivals_end(
    family: Option<&mut FamilySpec>,
    (from, to): (Option<Bound>, Option<Bound>),
    scale: &Scale,
    jobs: &[JobRecord],
) -> anyhow::Result<f64> {
    Ok(match family {
        Some(f) => {
            f.period_s = span_s(from, to)? * scale.time * scale.arrival;
            f.length_s = f.length_s.map(|l| l * scale.time * scale.arrival);
            f.length_s[1] / f.arrival_factor[0]
        }
        None => jobs.iter().map(|j| j.arrival_s).fold(0.0, f64::max),
    })
}

/// The trace's jobs within the options' window, their times scaled as the request asks; a
/// window with no job left is refused with the counts of what was left out.
fn read_scaled_jobs(
    request: &ImportRequest,
    jobs_path: &std::path::Path,
    options: &ReadOptions,
) -> anyhow::Result<traces::ReadJobs> {
    let mut read = traces::read_jobs(request.format, jobs_path, options)?;
    anyhow::ensure!(
        !read.jobs.is_empty(),
        "{}: no job left ({} rows, {} outside --from/--to, {} dropped)",
        jobs_path.display(),
        read.rows_read,
        read.outside_window,
        read.dropped_total()
    );
    let scale = &request.scale;
    for j in &mut read.jobs {
        j.arrival_s *= scale.time * scale.arrival;
        j.duration_s *= scale.time;
    }
    if let Some(n) = request.first {
        read.jobs
            .sort_by(|a, b| a.arrival_s.total_cmp(&b.arrival_s).then(a.id.cmp(&b.id)));
        read.jobs.truncate(n);
    }
    if let Some(p) = request.compress_durations {
        anyhow::ensure!(
            p > 0.0 && p <= 1.0,
            "--compress-durations {p}: expected 0 < P <= 1"
        );
        for j in &mut read.jobs {
            j.duration_s = COMPRESSION_UNIT_S * (j.duration_s / COMPRESSION_UNIT_S).powf(p);
        }
    }
    Ok(read)
}

/// The duration `--compress-durations` leaves unchanged: an hour.
const COMPRESSION_UNIT_S: f64 = 3600.0;

/// An imported workload's episodes: decisions every half hour (scaled), ending at
/// `max_time_s`.
fn imported_episode(scale: &Scale, max_time_s: f64) -> JobsEpisode {
    JobsEpisode {
        decision_interval_s: 1800.0 * scale.time,
        max_time_s,
        restart_s: 30.0,
        max_steps_per_decision: 64,
        speed_sigma: 0.1,
        start_s: 0.0,
        speed_factor: 1.0,
    }
}

/// Where the workload's jobs came from and by what rule, as its `[source]` section says.
fn trace_source(
    request: &ImportRequest,
    (jobs_path, nodes): (&std::path::Path, &std::path::Path),
    (from, to): (Option<Bound>, Option<Bound>),
    read: &traces::ReadJobs,
    (dropped, warnings): (&[String], &[String]),
) -> TraceSource {
    let scale = &request.scale;
    TraceSource {
        format: request.format.name().into(),
        jobs: jobs_path.display().to_string(),
        nodes: nodes.display().to_string(),
        rows_read: read.rows_read,
        rows_kept: read.jobs.len(),
        from: show(from),
        to: show(to),
        dropped: dropped.to_vec(),
        rule: format!(
            "seed {}; from {} to {}; scale time {} arrival {} nodes {}; {}{}{}{}",
            request.seed,
            show(from),
            show(to),
            scale.time,
            scale.arrival,
            scale.nodes,
            (request.first).map_or_else(String::new, |n| format!(
                "the first {n} jobs by arrival (ties by id); "
            )),
            (request.compress_durations).map_or_else(String::new, |p| format!(
                "durations d -> 3600 (d / 3600)^{p}; "
            )),
            request
                .job_types
                .as_ref()
                .map_or_else(String::new, |d| format!(
                    "job types drawn from {}; ",
                    d.display()
                )),
            warnings.join("; ")
        ),
    }
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
    request: &ImportRequest,
    machines: Vec<MachineSpec>,
    dropped: usize,
) -> anyhow::Result<()> {
    let file = MachinesFile { machines };
    write_atomic(&request.out, toml::to_string(&file)?.as_bytes())?;
    println!(
        "wrote {}: {} machines in {} types ({dropped} rows dropped); use it as --nodes",
        request.out.display(),
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
