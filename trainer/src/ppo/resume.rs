//! What a PPO (and A2C) checkpoint keeps beyond its records, so that a resumed run continues
//! exactly as an uninterrupted one: the update count (each update reseeds the action sampling
//! and minibatch shuffling from it), the env copies' histories with the plan each copy's
//! episode was reset under, the same-window rounds, and each copy's running discounted return.

use schedlab_agents::SchedulingEnv;
use schedlab_env::VecEnvHistory;
use serde::{Deserialize, Serialize};

use super::collector::Collector;
use super::trainer::PpoTrainer;
use crate::errors::CheckpointError;
use crate::training_env::EpisodePlan;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PpoResume {
    updates: u64,
    collector: CollectorState,
    /// The reward scale's running return per copy.
    returns: Vec<f64>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum CollectorState {
    Rollouts {
        history: VecEnvHistory,
        plans: Vec<CopyPlan>,
    },
    Windows {
        rounds: u64,
    },
}

/// The plan a copy's episode was reset under; its windows are the run's kept ones, which the
/// trainer draws again from the run's seed.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CopyPlan {
    cut_mean_s: Option<f64>,
    filtered: bool,
}

impl<E: SchedulingEnv> PpoTrainer<E> {
    pub(super) fn resume(&self) -> PpoResume {
        let collector = match &self.collector {
            Collector::Rollouts { envs, .. } => CollectorState::Rollouts {
                history: envs.history(),
                plans: envs
                    .envs()
                    .iter()
                    .map(|env| {
                        let plan = env.episode_plan();
                        CopyPlan {
                            cut_mean_s: plan.cut_mean_s,
                            filtered: plan.windows.is_some(),
                        }
                    })
                    .collect(),
            },
            Collector::Windows { rounds, .. } => CollectorState::Windows { rounds: *rounds },
        };
        PpoResume {
            updates: self.updates,
            collector,
            returns: self.scale.returns().to_vec(),
        }
    }

    /// Puts the copies back where [`Self::resume`] found them.
    pub(super) fn restore_resume(&mut self, state: PpoResume) -> Result<(), CheckpointError> {
        self.scale.restore_returns(state.returns)?;
        self.updates = state.updates;
        match (&mut self.collector, state.collector) {
            (
                Collector::Rollouts { envs, observations },
                CollectorState::Rollouts { history, plans },
            ) => {
                if plans.len() != envs.len() {
                    return Err(CheckpointError::State(format!(
                        "plans for {} copies, not {}",
                        plans.len(),
                        envs.len()
                    )));
                }
                for (env, plan) in envs.envs_mut().iter_mut().zip(plans) {
                    let windows = match (plan.filtered, &self.kept_windows) {
                        (false, _) => None,
                        (true, Some(kept)) => Some(kept.clone()),
                        (true, None) => {
                            return Err(CheckpointError::State(
                                "a filtered episode in a run without the filter".into(),
                            ));
                        }
                    };
                    env.set_plan(EpisodePlan {
                        cut_mean_s: plan.cut_mean_s,
                        windows,
                    });
                }
                *observations = envs
                    .replay(&history)
                    .map_err(|e| CheckpointError::State(e.to_string()))?;
                Ok(())
            }
            (Collector::Windows { rounds, .. }, CollectorState::Windows { rounds: saved }) => {
                *rounds = saved;
                Ok(())
            }
            _ => Err(CheckpointError::State(
                "the checkpoint's collector is not this configuration's".into(),
            )),
        }
    }
}
