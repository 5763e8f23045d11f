//! Reading a DAG workload file: the TOML with its overrides, read once
//! (`crate::workload_file`), checked (`checks.rs`), its platform compiled and, for an Alibaba
//! source, the trace's DAG jobs of its arrival period read (`alibaba.rs`); every drawn job
//! and a first draw compiled on the platform; the kind's loaded form (`gym::Workload`).

use std::path::Path;
use std::sync::Arc;

use super::alibaba::{TraceJob, read_trace_jobs};
use super::checks::{check_kind, check_sources};
use super::env::DagEnv;
use super::instance::DagWorkload;
use super::problem::Problem;
use super::schema::{DagSource, DagWorkloadSpec};
use crate::error::{EnvError, Result};
use crate::workload_file::{WorkloadFile, resolve};

impl DagWorkload {
    /// Reads a DAG workload with `key.path=value` overrides and checks it whole.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<DagWorkload> {
        Self::load_file(&WorkloadFile::read(path)?, overrides)
    }

    /// [`Self::load`] of a file already read.
    pub fn load_file(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<DagWorkload> {
        let path = &file.path;
        let spec: DagWorkloadSpec = file.load_as(overrides)?;
        check_kind(path, &spec)?;
        let platform = spec.platform.compile(path)?;
        check_sources(path, &spec, platform.gpus())?;
        let mut workload = DagWorkload {
            spec,
            path: path.to_owned(),
            platform,
            trace_jobs: Vec::new(),
            notes: Vec::new(),
        };
        workload.read_trace()?;
        // a draw must compile: the generators' memory against the platform
        Problem::new(workload.draw(0), &workload.platform)
            .map_err(|e| EnvError::config(path, "dags", e.to_string()))?;
        Ok(workload)
    }

    /// For a source that reads a trace, the trace's DAG jobs arriving in its period, each
    /// checked to compile on the platform.
    fn read_trace(&mut self) -> Result<()> {
        let Some((
            key,
            DagSource::Alibaba {
                trace,
                arrival_from_s,
                arrival_until_s,
                ..
            },
        )) = self.trace_source()
        else {
            return Ok(());
        };
        let trace = resolve(&self.path, trace);
        let (jobs, mut notes) = read_trace_jobs(&trace)?;
        let (from, until) = (
            arrival_from_s.unwrap_or(f64::NEG_INFINITY),
            arrival_until_s.unwrap_or(f64::INFINITY),
        );
        let all = jobs.len();
        let jobs: Vec<TraceJob> = jobs
            .into_iter()
            .filter(|j| (from..until).contains(&j.arrival_s))
            .collect();
        if jobs.is_empty() {
            return Err(EnvError::config(
                &self.path,
                format!("{key}.alibaba.arrival_from_s"),
                format!(
                    "no job of {} arrives in [{from}, {until}) s",
                    trace.display()
                ),
            ));
        }
        if jobs.len() < all {
            notes.push(format!(
                "{} of {all} DAG jobs arrive in [{from}, {until}) s and are drawn",
                jobs.len()
            ));
        }
        self.trace_jobs = jobs;
        self.notes = notes;
        // every drawn job must be schedulable on this platform
        for job in &self.trace_jobs {
            Problem::new(self.job_dag(job, 0.0), &self.platform).map_err(|e| {
                EnvError::config(&trace, format!("job {}", job.name), e.to_string())
            })?;
        }
        Ok(())
    }
}

impl crate::gym::Workload for Arc<DagWorkload> {
    type Env = DagEnv;

    fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self> {
        DagWorkload::load_file(file, overrides).map(Arc::new)
    }

    fn env(&self) -> DagEnv {
        DagEnv::new(Arc::clone(self))
    }
}
