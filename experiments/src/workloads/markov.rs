//! Markov workloads: the chain and the semi-Markov chain, tasks with known answers for
//! checking the learners' credit assignment.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use schedlab_env::Step;
use schedlab_env::markov::{MarkovEnv, MarkovInfo, MarkovSpec, MarkovWorkload};

use super::Kind;

/// A markov workload ready to make envs from.
pub struct Markov {
    pub workload: Arc<MarkovWorkload>,
    path: PathBuf,
}

impl From<(Arc<MarkovWorkload>, &Path)> for Markov {
    fn from((workload, path): (Arc<MarkovWorkload>, &Path)) -> Markov {
        Markov {
            workload,
            path: path.to_owned(),
        }
    }
}

impl Markov {
    fn shape(&self) -> String {
        match self.workload.task() {
            MarkovSpec::Chain {
                length,
                back_reward,
                max_steps,
            } => format!(
                "chain of {length} states, {back_reward} for going back, {max_steps} steps at most"
            ),
            MarkovSpec::SemiMarkov {
                choices,
                points,
                step_s,
            } => format!(
                "semi-Markov chain of {points} points of {choices} same-time choices, {step_s} s each"
            ),
        }
    }
}

impl Kind for Markov {
    fn name(&self) -> &str {
        self.workload.name()
    }
    fn env(&self) -> MarkovEnv {
        MarkovEnv::new(self.workload.clone())
    }
    fn describe(&self) -> String {
        format!(
            "{} ({}, {})",
            self.workload.name(),
            self.path.display(),
            self.shape()
        )
    }
    fn summary(&self) -> anyhow::Result<String> {
        Ok(format!("ok {}: {}", self.workload.name(), self.shape()))
    }
    fn step_columns(&self) -> &'static str {
        "step,time_s,reward"
    }
    fn step_row(&self, step: &Step<MarkovInfo>) -> String {
        let i = &step.info;
        format!("{},{},{}", i.step, i.time_s, step.reward)
    }
}
