//! Reading a jobs workload file: the TOML with its overrides, read once
//! (`crate::workload_file`), its job table beside it, the checks (`checks.rs`), and the
//! workload made ready for envs (`JobsSetup`: the job table read and, for the `trained`
//! fidelity and real execution, its templates' single-job workloads), the one place that
//! chooses between the surrogate env and the one with templates, for the command line and
//! the Python binding.

use std::path::Path;
use std::sync::Arc;

use super::env::JobsEnv;
use super::schema::{Fidelity, JobsWorkload};
use super::throughputs::Throughputs;
use super::trained::load_templates;
use crate::Scenario;
use crate::error::{EnvError, Result};
use crate::execution::Execution;
use crate::limits;
use crate::workload_file::{WorkloadFile, resolve};

impl JobsWorkload {
    /// Reads a workload and its Parquet `jobs_table` when it has one, and sets `key.path=value`
    /// overrides (TOML values; a bare word is a string) before validating.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<JobsWorkload> {
        Self::load_file(&WorkloadFile::read(path)?, overrides)
    }

    /// [`Self::load`] of a file already read.
    pub fn load_file(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<JobsWorkload> {
        let path = &file.path;
        let mut workload: JobsWorkload = file.load_as(overrides)?;
        if let Some(table) = &workload.jobs_table {
            if !workload.jobs.is_empty() {
                return Err(EnvError::config(
                    path,
                    "jobs_table",
                    "give jobs inline or in a table, not both",
                ));
            }
            let table_path = resolve(path, table);
            // a Parquet table unpacks to some ten times its size as job records
            limits::check_file_size(&table_path, limits::memory_limit() / 16, "job table")?;
            workload.jobs = schedlab_artifacts::read_job_table(&table_path)
                .map_err(|e| EnvError::config(&table_path, "(table)", e.to_string()))?;
        }
        if let Some(h) = workload.heterogeneity.as_mut() {
            let matrix_path = resolve(path, &h.throughputs);
            h.matrix = Some(Arc::new(Throughputs::read(&matrix_path)?));
        }
        let machines = workload.machine_count() as f64;
        limits::check_total(
            path,
            "machines",
            "machines",
            machines,
            limits::TOTAL_MACHINES,
        )?;
        // a job's record and its episode state, measured at about half a kilobyte
        let jobs = workload.jobs.len() as u64;
        let key = if workload.jobs_table.is_some() {
            "jobs_table"
        } else {
            "jobs"
        };
        limits::check_memory(path, key, format!("{jobs} jobs"), jobs * 512)?;
        workload.validate(path)?;
        Ok(workload)
    }
}

/// A loaded jobs workload and what its envs need.
#[derive(Clone)]
pub struct JobsSetup {
    pub workload: Arc<JobsWorkload>,
    /// The templates' single-job workloads, for the `trained` fidelity and real execution.
    templates: Option<Vec<Arc<Scenario>>>,
}

impl JobsSetup {
    /// Loads the jobs workload `file` with `overrides`.
    pub fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self> {
        let workload = JobsWorkload::load_file(file, overrides)?;
        let templates = match (workload.fidelity, workload.execution) {
            (Fidelity::Surrogate, Execution::Sim) => None,
            _ => Some(load_templates(&file.path, &workload)?),
        };
        Ok(JobsSetup {
            workload: Arc::new(workload),
            templates,
        })
    }

    /// A fresh env with no episode started: with its templates where the workload trains its
    /// jobs or runs them for real.
    pub fn env(&self) -> JobsEnv {
        match &self.templates {
            Some(templates) => {
                JobsEnv::with_templates(Arc::clone(&self.workload), templates.clone())
            }
            None => JobsEnv::new(Arc::clone(&self.workload)),
        }
    }
}

impl crate::gym::Workload for JobsSetup {
    type Env = JobsEnv;

    fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self> {
        JobsSetup::load(file, overrides)
    }

    fn env(&self) -> JobsEnv {
        JobsSetup::env(self)
    }
}
