//! Bandit workloads: a masked contextual bandit with a known optimum, for checking learners.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schedlab_env::Step;
use schedlab_env::bandit::{BanditEnv, BanditInfo, BanditWorkload};

use super::Kind;

/// A bandit workload ready to make envs from.
pub struct Bandit {
    pub workload: Arc<BanditWorkload>,
    path: PathBuf,
}

impl From<(Arc<BanditWorkload>, &Path)> for Bandit {
    fn from((workload, path): (Arc<BanditWorkload>, &Path)) -> Bandit {
        Bandit {
            workload,
            path: path.to_owned(),
        }
    }
}

impl Kind for Bandit {
    fn name(&self) -> &str {
        self.workload.name()
    }
    fn env(&self) -> BanditEnv {
        BanditEnv::new(self.workload.clone())
    }
    fn describe(&self) -> String {
        let b = &self.workload.spec.bandit;
        format!(
            "{} ({}, {} states x {} dimensions x {} levels, {} steps)",
            self.workload.name(),
            self.path.display(),
            b.states,
            b.dims,
            b.levels,
            b.steps
        )
    }
    fn summary(&self) -> anyhow::Result<String> {
        let b = &self.workload.spec.bandit;
        Ok(format!(
            "ok {}: masked bandit of {} states, {} dimensions of {} levels, {} steps an episode, noise {}",
            self.workload.name(),
            b.states,
            b.dims,
            b.levels,
            b.steps,
            b.noise
        ))
    }
    fn step_columns(&self) -> &'static str {
        "step,state,regret,reward"
    }
    fn step_row(&self, step: &Step<BanditInfo>) -> String {
        let i = &step.info;
        format!("{},{},{},{}", i.step, i.state, i.regret, step.reward)
    }
}
