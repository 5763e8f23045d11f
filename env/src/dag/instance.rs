//! A loaded DAG workload and the instance each episode's seed draws from it: a new generated
//! DAG, or a run of consecutive trace DAG jobs from a seeded place in the trace, with edge
//! data by the CCR rule.
//!
//! The loaded form lives here rather than in `load.rs`: the env (`env.rs`) reads it, and
//! `load.rs` names the env in its `gym::Workload`, so this keeps the files in layers
//! (tests/tests/architecture.rs).

use std::path::PathBuf;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::alibaba::TraceJob;
use super::generate::{fork_join, layered, set_edge_data};
use super::platform::Platform;
use super::problem::{Dag, Edge, Problem, Task};
use super::schema::{Arrivals, DagSource, DagWorkloadSpec};

/// A loaded, validated DAG workload.
#[derive(Debug, Clone)]
pub struct DagWorkload {
    pub spec: DagWorkloadSpec,
    pub path: PathBuf,
    pub platform: Platform,
    /// The trace's DAG jobs in arrival order (Alibaba sources).
    pub trace_jobs: Vec<TraceJob>,
    /// What loading left out and why.
    pub notes: Vec<String>,
}

impl DagWorkload {
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The source that reads a trace, and its key (`dags` or `mix.dags`).
    pub(super) fn trace_source(&self) -> Option<(&'static str, &DagSource)> {
        std::iter::once(("dags", &self.spec.dags))
            .chain(self.spec.mix.iter().map(|mix| ("mix.dags", &mix.dags)))
            .find(|(_, source)| matches!(source, DagSource::Alibaba { .. }))
    }

    /// The most tasks an episode can hold.
    pub fn max_tasks(&self) -> usize {
        let of = |source: &DagSource| match source {
            DagSource::Layered { tasks, .. } | DagSource::ForkJoin { tasks, .. } => *tasks,
            DagSource::Alibaba { tasks, .. } => {
                let largest = self
                    .trace_jobs
                    .iter()
                    .map(|j| j.tasks.len())
                    .max()
                    .unwrap_or(0);
                tasks + largest
            }
        };
        let mixed = self.spec.mix.as_ref().map_or(0, |mix| of(&mix.dags));
        of(&self.spec.dags).max(mixed)
    }

    /// The instance of episode `seed`: the same seed, the same DAGs and data.
    pub fn instance(&self, seed: u64) -> Problem {
        Problem::new(self.draw(seed), &self.platform).expect("draws are checked at load")
    }

    pub(super) fn draw(&self, seed: u64) -> Dag {
        let mut rng = StdRng::seed_from_u64(seed ^ 0xda9_da9);
        // a workload without a mix draws exactly as before mixes existed
        let source = match &self.spec.mix {
            Some(mix) if rng.random::<f64>() < mix.share => &mix.dags,
            _ => &self.spec.dags,
        };
        let structure_seed = rng.random();
        let (mut dag, ccr) = match source {
            DagSource::Layered {
                tasks,
                ccr,
                shape,
                max_parents,
                task,
            } => (
                layered(*tasks, *shape, *max_parents, task, structure_seed),
                *ccr,
            ),
            DagSource::ForkJoin {
                tasks,
                width,
                ccr,
                task,
            } => (fork_join(*tasks, *width, task, structure_seed), *ccr),
            DagSource::Alibaba {
                tasks,
                ccr,
                arrivals,
                ..
            } => (self.draw_trace(*tasks, *arrivals, &mut rng), *ccr),
        };
        set_edge_data(&mut dag, &self.platform, ccr, &mut rng);
        dag
    }

    fn draw_trace(&self, tasks: usize, arrivals: Arrivals, rng: &mut StdRng) -> Dag {
        let jobs = &self.trace_jobs;
        let mut at = rng.random_range(0..jobs.len());
        let first_arrival = jobs[at].arrival_s;
        let mut dag = Dag::default();
        while dag.tasks.len() < tasks {
            let job = &jobs[at % jobs.len()];
            // past the trace's end, wrap around one trace length later
            let lap = (at / jobs.len()) as f64
                * (jobs[jobs.len() - 1].arrival_s - jobs[0].arrival_s + 1.0);
            let release = match arrivals {
                Arrivals::Batch => 0.0,
                Arrivals::Trace => job.arrival_s + lap - first_arrival,
            };
            append(&mut dag, self.job_dag(job, release));
            at += 1;
        }
        dag
    }

    /// One trace job as a DAG of its own (edge data still zero; checked against the platform
    /// once, at load).
    pub(super) fn job_dag(&self, job: &TraceJob, release_s: f64) -> Dag {
        let Some((
            _,
            DagSource::Alibaba {
                machine_memory_gb, ..
            },
        )) = self.trace_source()
        else {
            unreachable!("trace jobs come from Alibaba sources")
        };
        Dag {
            jobs: vec![job.name.clone()],
            tasks: job
                .tasks
                .iter()
                .map(|(name, kind, duration, plan_mem)| Task {
                    name: format!("{}/{name}", job.name),
                    job: 0,
                    kind: kind.clone(),
                    work_s: *duration,
                    memory_gb: plan_mem / 100.0 * machine_memory_gb,
                    release_s,
                    times_s: None,
                })
                .collect(),
            edges: job
                .edges
                .iter()
                .map(|&(from, to)| Edge {
                    from,
                    to,
                    data_mb: 0.0,
                })
                .collect(),
        }
    }
}

/// Appends `part`'s tasks, edges and jobs to `dag`.
fn append(dag: &mut Dag, part: Dag) {
    let (offset, job_offset) = (dag.tasks.len(), dag.jobs.len());
    dag.jobs.extend(part.jobs);
    dag.tasks.extend(part.tasks.into_iter().map(|mut t| {
        t.job += job_offset;
        t
    }));
    dag.edges.extend(part.edges.into_iter().map(|e| Edge {
        from: e.from + offset,
        to: e.to + offset,
        data_mb: e.data_mb,
    }));
}
