//! Reads Alibaba cluster-trace v2018 `batch_task` rows (the DAG slice in `data/traces/`),
//! the background load of the paper workload.

use std::path::Path;

use super::super::data::open_csv;
use crate::error::{EnvError, Result};

/// The columns of `batch_task` rows, in file order.
pub const V2018_COLUMNS: [&str; 9] = [
    "task_name",
    "instance_num",
    "job_name",
    "task_type",
    "status",
    "start_time",
    "end_time",
    "plan_cpu",
    "plan_mem",
];

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

/// One task asking `plan_cpu` (100 = one core) and `plan_mem` (percent of a machine) per
/// instance from `start` to `end` (trace seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct TraceTask {
    pub job: String,
    pub name: String,
    pub start: f64,
    pub end: f64,
    pub plan_cpu: f64,
    pub plan_mem: f64,
}

/// What was read and what was left out, and why: nothing is dropped silently.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceStats {
    pub rows: usize,
    pub used: usize,
    /// Waiting tasks: `start_time` 0, never ran.
    pub never_started: usize,
    /// Rows whose `end_time` precedes `start_time` (tasks still running when the trace ended).
    pub end_before_start: usize,
    /// Rows without `plan_cpu`/`plan_mem` (no request to place).
    pub no_request: usize,
}

impl std::fmt::Display for TraceStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} of {} trace rows used ({} never started, {} end before start, {} without a request)",
            self.used, self.rows, self.never_started, self.end_before_start, self.no_request
        )
    }
}

pub fn load_v2018_tasks(path: &Path) -> Result<(Vec<TraceTask>, TraceStats)> {
    let (mut reader, header) = open_csv(path)?;
    let col = |name: &str| {
        header.iter().position(|h| h == name).ok_or_else(|| {
            EnvError::parse(
                path,
                1,
                name,
                format!("missing column; expected {V2018_COLUMNS:?}"),
            )
        })
    };
    let idx: Vec<usize> = V2018_COLUMNS
        .iter()
        .map(|c| col(c))
        .collect::<Result<_>>()?;
    let mut stats = TraceStats::default();
    let mut tasks = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let record = record.map_err(|e| EnvError::parse(path, line, "record", e.to_string()))?;
        stats.rows += 1;
        let field = |k: usize| record.get(idx[k]).unwrap_or("").trim();
        let number = |k: usize| -> Result<Option<f64>> {
            let v = field(k);
            if v.is_empty() {
                return Ok(None);
            }
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .map(Some)
                .ok_or_else(|| {
                    EnvError::parse(
                        path,
                        line,
                        V2018_COLUMNS[k],
                        format!("`{v}` is not a non-negative number"),
                    )
                })
        };
        let (start, end) = (number(5)?.unwrap_or(0.0), number(6)?.unwrap_or(0.0));
        // instance counts are checked but not used (see `BackgroundSpec::Trace`)
        let (_, cpu, mem) = (number(1)?, number(7)?, number(8)?);
        if start == 0.0 {
            stats.never_started += 1;
        } else if end < start {
            stats.end_before_start += 1;
        } else if let (Some(cpu), Some(mem)) = (cpu, mem) {
            stats.used += 1;
            tasks.push(TraceTask {
                job: field(2).to_owned(),
                name: field(0).to_owned(),
                start,
                end,
                plan_cpu: cpu,
                plan_mem: mem,
            });
        } else {
            stats.no_request += 1;
        }
    }
    if tasks.is_empty() {
        return Err(EnvError::parse(path, 2, "record", "no usable task rows"));
    }
    Ok((tasks, stats))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn shipped_trace_slice_is_read_whole_with_every_skip_counted() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../data/traces/alibaba_v2018_batch_dag/batch_task_dags_arrival_day0-4.csv.gz");
        let (tasks, stats) = load_v2018_tasks(&path).unwrap();
        assert_eq!(stats.rows, 37_724, "SOURCES.md gives 37,724 rows");
        assert_eq!(
            stats.never_started, 149,
            "SOURCES.md counts 149 waiting tasks"
        );
        assert_eq!(
            stats.used + stats.never_started + stats.end_before_start + stats.no_request,
            stats.rows
        );
        assert_eq!(tasks.len(), stats.used);
        assert!(tasks.iter().all(|t| t.end >= t.start && t.plan_cpu >= 0.0));
    }

    #[test]
    fn a_renamed_column_is_named_in_the_error() {
        let dir = std::env::temp_dir().join(format!("schedlab-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.csv");
        std::fs::write(
            &path,
            "task_name,instance_num,job_name,task_type,status,start,end_time,plan_cpu,plan_mem\n",
        )
        .unwrap();
        let err = load_v2018_tasks(&path).unwrap_err().to_string();
        assert!(
            err.contains("start_time") && err.contains("t.csv:1"),
            "{err}"
        );
        std::fs::write(&path, "task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem\nM1,1,j,1,Terminated,5,9,abc,1\n").unwrap();
        let err = load_v2018_tasks(&path).unwrap_err().to_string();
        assert!(err.contains("t.csv:2") && err.contains("plan_cpu"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
