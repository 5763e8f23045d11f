//! Loading jobs workloads with their Parquet job tables and, for the `real` fidelity, the
//! single-job workloads of their templates.

use std::path::Path;
use std::sync::Arc;

use schedlab_env::Scenario;
use schedlab_env::jobs::{Fidelity, JobsEnv, JobsWorkload, real};

/// A jobs workload ready to make envs from.
pub struct Jobs {
    pub workload: Arc<JobsWorkload>,
    templates: Option<Vec<Arc<Scenario>>>,
}

impl Jobs {
    pub fn env(&self) -> JobsEnv {
        match &self.templates {
            Some(t) => JobsEnv::new_real(self.workload.clone(), t.clone()),
            None => JobsEnv::new(self.workload.clone()),
        }
    }
}

pub fn load(path: &Path) -> anyhow::Result<Jobs> {
    let workload = JobsWorkload::load(path, &crate::traces::table::read_jobs_parquet)?;
    let templates = match workload.fidelity {
        Fidelity::Real => Some(real::load_templates(path, &workload)?),
        Fidelity::Surrogate => None,
    };
    Ok(Jobs {
        workload: Arc::new(workload),
        templates,
    })
}
