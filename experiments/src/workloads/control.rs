//! Control workloads: CartPole-v1 and Acrobot-v1 with Gymnasium's dynamics, for calibrating
//! learners.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schedlab_env::Step;
use schedlab_env::control::{ControlEnv, ControlInfo, ControlWorkload};

use super::Kind;

/// A control workload ready to make envs from.
pub struct Control {
    pub workload: Arc<ControlWorkload>,
    path: PathBuf,
}

impl From<(Arc<ControlWorkload>, &Path)> for Control {
    fn from((workload, path): (Arc<ControlWorkload>, &Path)) -> Control {
        Control {
            workload,
            path: path.to_owned(),
        }
    }
}

impl Kind for Control {
    fn name(&self) -> &str {
        self.workload.name()
    }
    fn env(&self) -> ControlEnv {
        ControlEnv::new(self.workload.clone())
    }
    fn describe(&self) -> String {
        let c = &self.workload.spec.control;
        format!(
            "{} ({}, {:?}, {} steps at most)",
            self.workload.name(),
            self.path.display(),
            c.task,
            c.max_steps
        )
    }
    fn summary(&self) -> anyhow::Result<String> {
        let c = &self.workload.spec.control;
        Ok(format!(
            "ok {}: {:?} with Gymnasium's dynamics, truncated at {} steps",
            self.workload.name(),
            c.task,
            c.max_steps
        ))
    }
    fn step_columns(&self) -> &'static str {
        "step,reward"
    }
    fn step_row(&self, step: &Step<ControlInfo>) -> String {
        format!("{},{}", step.info.step, step.reward)
    }
}
