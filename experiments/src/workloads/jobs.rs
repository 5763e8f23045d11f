//! Jobs workloads: many jobs arriving at a cluster of machines, with their Parquet job
//! tables and, for the `real` fidelity, the single-job workloads of their templates.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schedlab_env::Step;
use schedlab_env::jobs::{JobsEnv, JobsInfo, JobsMetrics, JobsSetup, JobsWorkload};

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
    /// Per tenant, over the episodes: its jobs, mean JCT and mean finish-time fairness.
    fn breakdown(&self, episodes: &[JobsMetrics]) -> Option<String> {
        tenant_table(episodes)
    }
    fn executes_for_real(&self) -> bool {
        self.workload.execution.is_real()
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

/// Each tenant's jobs, mean JCT and mean ρ, averaged over `episodes` (a tenant absent from an
/// episode is averaged over the episodes it is in); `None` where no job names a tenant.
pub fn tenant_table(episodes: &[JobsMetrics]) -> Option<String> {
    let mut by_tenant: std::collections::BTreeMap<&str, Vec<[f64; 3]>> = Default::default();
    for tenant in episodes.iter().flat_map(|m| &m.tenants) {
        let row = [tenant.jobs as f64, tenant.jct_avg_s, tenant.rho_avg];
        by_tenant.entry(&tenant.tenant).or_default().push(row);
    }
    if by_tenant.is_empty() {
        return None;
    }
    let mut table = format!(
        "{:<16} {:>8} {:>14} {:>8}\n",
        "tenant", "jobs", "mean JCT (s)", "mean ρ"
    );
    for (tenant, rows) in by_tenant {
        let mean = |k: usize| rows.iter().map(|r| r[k]).sum::<f64>() / rows.len() as f64;
        let name = if tenant.is_empty() { "(none)" } else { tenant };
        table += &format!(
            "{name:<16} {:>8.1} {:>14.1} {:>8.3}\n",
            mean(0),
            mean(1),
            mean(2)
        );
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use schedlab_env::jobs::TenantMetrics;

    use super::*;

    #[test]
    fn the_tenant_table_averages_each_tenant_over_the_episodes_it_is_in() {
        let tenant = |name: &str, jobs, jct_avg_s, rho_avg| TenantMetrics {
            tenant: name.into(),
            jobs,
            jct_avg_s,
            rho_avg,
        };
        let episode = |tenants| JobsMetrics {
            tenants,
            ..JobsMetrics::default()
        };
        assert_eq!(tenant_table(&[episode(vec![])]), None);
        let table = tenant_table(&[
            episode(vec![tenant("a", 2, 100.0, 1.0), tenant("", 1, 10.0, 2.0)]),
            episode(vec![tenant("a", 4, 300.0, 3.0)]),
        ])
        .unwrap();
        let rows: Vec<Vec<&str>> = table
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().collect())
            .collect();
        assert_eq!(rows[0], ["(none)", "1.0", "10.0", "2.000"]);
        assert_eq!(rows[1], ["a", "3.0", "200.0", "2.000"]);
    }
}
