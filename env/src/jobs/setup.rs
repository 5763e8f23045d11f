//! A jobs workload file made ready for envs: the workload with its job table read and, for
//! the `trained` fidelity and real execution, its templates' single-job workloads. The one
//! place that chooses between the surrogate env and the one with templates, for the command
//! line and the Python binding.

use std::path::Path;
use std::sync::Arc;

use super::env::JobsEnv;
use super::spec::{Fidelity, JobsWorkload};
use super::trained::load_templates;
use crate::Scenario;
use crate::error::Result;
use crate::real::Execution;

/// A loaded jobs workload and what its envs need.
#[derive(Clone)]
pub struct JobsSetup {
    pub workload: Arc<JobsWorkload>,
    /// The templates' single-job workloads, for the `trained` fidelity and real execution.
    templates: Option<Vec<Arc<Scenario>>>,
}

impl JobsSetup {
    /// Loads the jobs workload at `path` with `overrides`.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<Self> {
        let workload = JobsWorkload::load(path, overrides)?;
        let templates = match (workload.fidelity, workload.execution) {
            (Fidelity::Trained, _) | (_, Execution::Real) => Some(load_templates(path, &workload)?),
            (Fidelity::Surrogate, Execution::Sim) => None,
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

    fn load(path: &Path, overrides: &[(String, String)]) -> Result<Self> {
        JobsSetup::load(path, overrides)
    }

    fn env(&self) -> JobsEnv {
        JobsSetup::env(self)
    }
}
