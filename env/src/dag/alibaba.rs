//! The Alibaba v2018 DAG reader: the batch trace's tasks grouped into DAG jobs, their
//! dependencies read from the task names (`crate::cluster::parse_task_name`).

use std::path::Path;

use crate::cluster::{load_v2018_tasks, parse_task_name};
use crate::error::Result;

/// One DAG job of the trace: name, arrival and its tasks with parents as indices.
#[derive(Debug, Clone)]
pub struct TraceJob {
    pub name: String,
    pub arrival_s: f64,
    /// `(task name, kind, duration_s, plan_mem)`.
    pub tasks: Vec<(String, String, f64, f64)>,
    pub edges: Vec<(usize, usize)>,
}

/// The trace's DAG jobs in arrival order (a job arrives when its first task started), with
/// notes on what was left out: tasks that never ran, duplicate task ids, dependencies on
/// tasks the table lacks.
pub(super) fn read_trace_jobs(path: &Path) -> Result<(Vec<TraceJob>, Vec<String>)> {
    let (rows, stats) = load_v2018_tasks(path)?;
    let mut notes = vec![stats.to_string()];
    let mut by_job: std::collections::BTreeMap<&str, Vec<&crate::cluster::TraceTask>> =
        Default::default();
    for row in &rows {
        by_job.entry(&row.job).or_default().push(row);
    }
    let (mut duplicates, mut dangling, mut cut, mut self_loops, mut repeated) = (0, 0, 0, 0, 0);
    let mut jobs = Vec::new();
    for (name, rows) in by_job {
        let parsed: Vec<_> = rows
            .iter()
            .map(|r| (parse_task_name(&r.name), *r))
            .collect();
        let mut ids: Vec<&str> = Vec::new();
        let mut tasks = Vec::new();
        for (task_name, row) in &parsed {
            if ids.contains(&task_name.id.as_str()) {
                duplicates += 1;
                continue;
            }
            ids.push(&task_name.id);
            let kind = if task_name.id == row.name {
                "task".to_owned()
            } else {
                row.name
                    .chars()
                    .take_while(char::is_ascii_alphabetic)
                    .collect()
            };
            tasks.push((
                row.name.clone(),
                kind,
                (row.end - row.start).max(1.0),
                row.plan_mem,
            ));
        }
        let mut edges = Vec::new();
        let mut seen = vec![false; ids.len()];
        for (task_name, _) in &parsed {
            let to = ids
                .iter()
                .position(|&i| i == task_name.id)
                .expect("kept above");
            if std::mem::replace(&mut seen[to], true) {
                continue;
            }
            cut += usize::from(task_name.truncated);
            for p in &task_name.parents {
                match ids.iter().position(|&i| i == p) {
                    Some(from) if from == to => self_loops += 1,
                    Some(from) if !edges.contains(&(from, to)) => edges.push((from, to)),
                    Some(_) => repeated += 1,
                    None => dangling += 1,
                }
            }
        }
        let arrival_s = rows.iter().map(|r| r.start).fold(f64::INFINITY, f64::min);
        jobs.push(TraceJob {
            name: name.to_owned(),
            arrival_s,
            tasks,
            edges,
        });
    }
    jobs.sort_by(|a, b| {
        a.arrival_s
            .total_cmp(&b.arrival_s)
            .then(a.name.cmp(&b.name))
    });
    notes.push(format!(
        "{} DAG jobs; {duplicates} duplicate task ids kept once; {dangling} dependencies on tasks not in the table removed; {cut} names cut at 50 characters lost their last dependency; {self_loops} dependencies of a task on itself and {repeated} repeated ones removed",
        jobs.len()
    ));
    Ok((jobs, notes))
}
