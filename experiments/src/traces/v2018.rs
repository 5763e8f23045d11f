//! Alibaba v2018 batch tasks: one job per task, the DAG read from `task_name`.

use std::collections::{BTreeMap, HashSet};

use schedlab_env::cluster::V2018_COLUMNS;
use schedlab_env::jobs::JobRecord;

use super::table::{RowError, TextTable};
use super::{ReadJobs, ReadOptions, check_fits, templates};

/// The trace cuts task names at this many characters.
const NAME_LIMIT: usize = 50;

/// A task name parsed: its id and the ids it depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskName {
    pub id: String,
    pub parents: Vec<String>,
    /// The name was cut at the trace's limit; its last, possibly partial, parent was dropped.
    pub truncated: bool,
}

/// `M1`, `R2_1`, `J4_2_3`: a type letter, the task id, then the ids it depends on. A name
/// of the trace's full 50 characters was cut there, so its last parent is unreliable and is
/// dropped. Names without this shape (independent tasks) are their own id.
pub fn parse_task_name(name: &str) -> TaskName {
    let letters = name.bytes().take_while(u8::is_ascii_alphabetic).count();
    let mut parts = name[letters..].split('_');
    let own = parts.next().unwrap_or_default();
    let is_dag = letters > 0
        && !own.is_empty()
        && own.bytes().all(|b| b.is_ascii_digit())
        && name[letters..]
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'_');
    if !is_dag {
        return TaskName {
            id: name.to_owned(),
            parents: Vec::new(),
            truncated: false,
        };
    }
    let mut parents: Vec<String> = parts.map(str::to_owned).collect();
    let truncated = name.len() >= NAME_LIMIT;
    if truncated {
        parents.pop();
    }
    parents.retain(|p| !p.is_empty());
    TaskName {
        id: own.to_owned(),
        parents,
        truncated,
    }
}

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
        let task = (|| -> Result<Task, RowError> {
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
        })();
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
        });
    }
    window.rebase(&mut out.jobs);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dag_names_give_id_and_parents() {
        let n = parse_task_name("J4_2_3");
        assert_eq!(
            (n.id.as_str(), n.parents.clone(), n.truncated),
            ("4", vec!["2".to_owned(), "3".to_owned()], false)
        );
        assert_eq!(parse_task_name("M1").parents, Vec::<String>::new());
        let independent = parse_task_name("task_Nzg3ODAw");
        assert_eq!(
            (independent.id.as_str(), independent.parents.len()),
            ("task_Nzg3ODAw", 0)
        );
    }

    #[test]
    fn names_cut_at_fifty_characters_lose_their_last_parent() {
        // real names from the shipped slice
        let cut = parse_task_name("J53_1_2_3_4_6_8_10_12_13_14_15_16_18_20_22_24_25_2");
        assert!(cut.truncated);
        assert_eq!(cut.id, "53");
        assert_eq!(cut.parents.last().map(String::as_str), Some("25"));
        let trailing = parse_task_name("J30_4_5_6_8_9_10_12_13_14_16_17_18_19_21_22_24_25_");
        assert!(trailing.truncated);
        assert_eq!(trailing.parents.last().map(String::as_str), Some("25"));
    }
}
