//! Single-job workloads: one real training job on a cluster of nodes.

use std::path::Path;
use std::sync::Arc;

use schedlab_env::{Scenario, SingleJobEnv, SingleJobInfo, Step};

use super::Kind;

/// A single-job workload with its data, model and trace loaded.
pub struct SingleJob {
    pub scenario: Arc<Scenario>,
    /// The sum of the nodes' cores, for the per-step background share.
    total_cores: f64,
}

impl From<(Arc<Scenario>, &Path)> for SingleJob {
    fn from((scenario, _): (Arc<Scenario>, &Path)) -> SingleJob {
        SingleJob::new(scenario)
    }
}

impl SingleJob {
    pub fn new(scenario: Arc<Scenario>) -> Self {
        let total_cores = scenario.nodes.iter().map(|n| n.cpu_cores).sum();
        SingleJob {
            scenario,
            total_cores,
        }
    }
}

impl Kind for SingleJob {
    fn name(&self) -> &str {
        &self.scenario.workload.name
    }
    fn env(&self) -> SingleJobEnv {
        SingleJobEnv::new(self.scenario.clone())
    }
    fn executes_for_real(&self) -> bool {
        self.scenario.workload.execution.is_real()
    }
    fn describe(&self) -> String {
        format!(
            "{} ({})",
            self.scenario.workload.name,
            self.scenario.path.display()
        )
    }
    fn summary(&self) -> anyhow::Result<String> {
        let mut line = format!("ok {}", self.scenario.summary());
        if self.scenario.trace.is_some() {
            // what the trace mapping clips depends on the episode; seed 0 shows the scale
            let (_, info) = self.env().reset(0)?;
            let [cores, gb] = info.background_clipped;
            line += &format!(
                ", trace load clipped at max_share (seed 0): {cores:.0} core-s, {gb:.0} GB-s"
            );
        }
        Ok(line)
    }
    fn step_columns(&self) -> &'static str {
        "round,time_s,iterations,val_loss,train_loss,lr_factor,reward,background_cpu_peak"
    }
    fn step_row(&self, step: &Step<SingleJobInfo>) -> String {
        let i = &step.info;
        let background: f64 = i.background_peak.iter().map(|p| p[0]).sum();
        format!(
            "{},{},{},{},{},{},{},{}",
            i.round,
            i.time_s,
            i.iterations,
            i.val_loss,
            i.train_loss,
            i.lr_factor,
            step.reward,
            background / self.total_cores
        )
    }
}
