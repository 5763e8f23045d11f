//! Alibaba v2018 batch tasks: one job per task, the DAG read from `task_name`.

use std::collections::{BTreeMap, HashSet};

use schedlab_env::cluster::{TaskName, V2018_COLUMNS, parse_task_name};
use schedlab_env::jobs::JobRecord;

use super::reader::{ReadJobs, ReadOptions, check_fits};
use super::table::{RowError, TextTable};
use super::templates;

struct Task {
    row: usize,
    job: String,
    name: TaskName,
    start: f64,
    duration: f64,
    request: [u32; 3],
    workers: u32,
}

/// A task runs `end_time - start_time` seconds (at least 1: the trace counts whole seconds)
/// on `instance_num` containers of `plan_cpu / 100` cores and `plan_mem` percent of the
/// largest machine's memory. All tasks of a job arrive when its first task started; DAG
/// parents must finish first.
pub fn read(table: &TextTable, options: &ReadOptions) -> anyhow::Result<ReadJobs> {
    table.require(&V2018_COLUMNS)?;
    let window = options.window(None)?;
    let mut out = ReadJobs {
        rows_read: table.rows(),
        ..ReadJobs::default()
    };
    let largest_mem = options
        .machines
        .iter()
        .map(|m| m.mem_mib())
        .max()
        .unwrap_or(0) as f64;
    let mut tasks = Vec::new();
    for row in 0..table.rows() {
        let task = read_task(table, row, options, largest_mem);
        if let Some(task) = out.keep(options.lenient, task)? {
            tasks.push(task);
        }
    }
    let mut arrival: BTreeMap<&str, f64> = BTreeMap::new();
    for t in &tasks {
        let a = arrival.entry(&t.job).or_insert(t.start);
        *a = a.min(t.start);
    }
    let id_of = |job: &str, task: &str| format!("{job}/{task}");
    let kept: Vec<&Task> = tasks
        .iter()
        .filter(|t| window.contains(arrival[t.job.as_str()]))
        .collect();
    out.outside_window = tasks.len() - kept.len();
    let ids: HashSet<String> = kept.iter().map(|t| id_of(&t.job, &t.name.id)).collect();
    let mut seen = HashSet::new();
    for t in kept {
        let id = id_of(&t.job, &t.name.id);
        if !seen.insert(id.clone()) {
            let e = table.invalid(
                t.row,
                "task_name",
                "duplicate task",
                format!("{id} appears twice"),
            );
            out.keep::<()>(options.lenient, Err(e))?;
            continue;
        }
        if t.name.truncated {
            out.warn("task names cut at 50 characters: last dependency dropped");
        }
        let mut after = Vec::new();
        for p in &t.name.parents {
            let parent = id_of(&t.job, p);
            if ids.contains(&parent) {
                after.push(parent);
            } else {
                out.warn("dependencies on tasks not in the table (or dropped): edge removed");
            }
        }
        out.jobs.push(JobRecord {
            template: templates::assign(false, t.duration, &id, options.seed).to_owned(),
            id,
            arrival_s: arrival[t.job.as_str()],
            duration_s: t.duration,
            workers: t.workers,
            cpu_milli: t.request[0],
            mem_mib: t.request[1],
            gpu_milli: 0,
            after,
            tenant: None,
            gpu_models: Vec::new(),
        });
    }
    window.rebase(&mut out.jobs);
    Ok(out)
}

/// One row as a task: named, started and ended in order, with a request some machine fits
/// (`plan_mem` is a percentage of the largest machine's memory).
fn read_task(
    table: &TextTable,
    row: usize,
    options: &ReadOptions,
    largest_mem: f64,
) -> Result<Task, RowError> {
    let name = table
        .text(row, "task_name")
        .ok_or_else(|| table.invalid(row, "task_name", "empty", "a task needs a name"))?;
    let job = table
        .text(row, "job_name")
        .ok_or_else(|| table.invalid(row, "job_name", "empty", "a task needs a job"))?
        .to_owned();
    let start = table.number(row, "start_time")?;
    if start <= 0.0 {
        return Err(table.invalid(
            row,
            "start_time",
            "never started",
            format!(
                "start_time {start} (status {})",
                table.text(row, "status").unwrap_or("")
            ),
        ));
    }
    let end = table.number(row, "end_time")?;
    if end < start {
        return Err(table.invalid(
            row,
            "end_time",
            "ends before it starts",
            format!("end_time {end} < start_time {start}"),
        ));
    }
    let workers = table.count(row, "instance_num")?;
    let cpu = table.number(row, "plan_cpu")?;
    let mem = table.number(row, "plan_mem")?;
    if workers == 0 || cpu <= 0.0 || !(0.0..=100.0).contains(&mem) {
        return Err(table.invalid(
            row,
            "instance_num/plan_cpu/plan_mem",
            "out of range",
            format!("{workers} instances, plan_cpu {cpu}, plan_mem {mem}"),
        ));
    }
    let request = [
        (cpu * 10.0).round() as u32,
        ((mem / 100.0 * largest_mem).round() as u32).max(1),
        0,
    ];
    check_fits(table, row, "plan_cpu/plan_mem", options.machines, request)?;
    Ok(Task {
        row,
        job,
        name: parse_task_name(name),
        start,
        duration: (end - start).max(1.0),
        request,
        workers,
    })
}
