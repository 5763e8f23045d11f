//! Jobs workloads: many jobs arriving at a cluster of machines, with their Parquet job
//! tables and, for the `real` fidelity, the single-job workloads of their templates.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schedlab_env::Step;
use schedlab_env::jobs::{JobsEnv, JobsInfo, JobsSetup, JobsWorkload};

use super::Kind;

/// A jobs workload ready to make envs from.
pub struct Jobs {
    pub workload: Arc<JobsWorkload>,
    path: PathBuf,
    setup: JobsSetup,
}

impl From<(JobsSetup, &Path)> for Jobs {
    fn from((setup, path): (JobsSetup, &Path)) -> Jobs {
        Jobs {
            workload: Arc::clone(&setup.workload),
            path: path.to_owned(),
            setup,
        }
    }
}

impl Kind for Jobs {
    fn name(&self) -> &str {
        &self.workload.name
    }
    fn env(&self) -> JobsEnv {
        self.setup.env()
    }
    /// The window and scaling levels, which set the network's shape.
    fn play_settings(&self) -> Vec<(String, String)> {
        self.workload.interface_settings()
    }
    fn executes_for_real(&self) -> bool {
        self.workload.execution == schedlab_env::execution::Execution::Real
    }
    fn describe(&self) -> String {
        format!(
            "{} ({}, {} jobs on {} machines)",
            self.workload.name,
            self.path.display(),
            self.workload.jobs.len(),
            self.workload.machine_count()
        )
    }
    fn summary(&self) -> anyhow::Result<String> {
        let w = &self.workload;
        let gpus: u32 = w.machines.iter().map(|m| m.gpus * m.count as u32).sum();
        Ok(format!(
            "ok {}: {} jobs on {} machines ({} GPUs), {} templates, {:?} fidelity, window {} queued + {} running",
            w.name,
            w.jobs.len(),
            w.machine_count(),
            gpus,
            w.templates.len(),
            w.fidelity,
            w.window.queued,
            w.window.running
        ))
    }
    fn step_columns(&self) -> &'static str {
        "decision_point,time_s,waiting,queued,running,finished,rejected,reward"
    }
    fn step_row(&self, step: &Step<JobsInfo>) -> String {
        let i = &step.info;
        format!(
            "{},{},{},{},{},{},{},{}",
            i.decision_points,
            i.time_s,
            i.waiting,
            i.queued,
            i.running,
            i.finished,
            i.rejected.len(),
            step.reward
        )
    }
    fn completion_times(&self, env: &JobsEnv) -> Option<Vec<f64>> {
        Some(env.completion_times())
    }
}
