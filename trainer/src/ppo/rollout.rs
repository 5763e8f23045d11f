//! CleanRL's first phase, the rollout: an update's experience, as the env gave it. Either
//! `rollout_steps` rounds of every copy of a vectorised env, episodes carried across updates,
//! or one whole episode per copy (trainer/src/ppo/windows.rs). It owns the env copies, where
//! they stand, and the env steps taken; the rewards stay raw (scaling is the advantages'
//! phase, trainer/src/ppo/advantages.rs).

use std::sync::Arc;

use schedlab_agents::learned::gae::step_discount;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{SchedulingEnv, registry};
use schedlab_env::{Environment, Observation, VecEnv, VecEnvHistory};
use serde::{Deserialize, Serialize};

use super::config::PpoConfig;
use super::record::Record;
use super::same_window::{HeuristicRollout, Played};
use super::windows::{HeuristicCopy, play_windows};
use crate::errors::{CheckpointError, PlayError};
use crate::learner::{EpisodeTally, LearnerError};
use crate::training_env::{EpisodePlan, TrainingEnv};

/// The rollout phase's state: the copies, the env steps taken over the run, and the run's
/// seed (whole episodes draw their seeds from it).
pub(super) struct Rollout<E> {
    collector: Collector<E>,
    env_steps: u64,
    seed: u64,
}

/// Where an update's experience comes from.
enum Collector<E> {
    /// `rollout_steps` rounds of every copy, episodes carried across updates (GAE).
    Steps {
        envs: VecEnv<E>,
        observations: Vec<Observation>,
    },
    /// One whole episode per copy and update, in groups of `same_window` on one seed (each
    /// copy on its own beside `heuristic`'s copy and policy, when it plays); `rounds` played
    /// so far (for their seeds).
    Windows {
        copies: Vec<E>,
        heuristic: Vec<HeuristicCopy<E>>,
        rounds: u64,
    },
}

/// One update's experience, raw rewards.
pub(super) enum Experience {
    /// `records[copy][t]`, and `V` of each copy's observation after the rollout.
    Steps {
        records: Vec<Vec<Record>>,
        last_values: Vec<f32>,
    },
    /// Every copy's episode, and the baseline heuristic's on each copy's seed where one plays.
    Episodes {
        played: Vec<Played>,
        heuristic: Option<Vec<HeuristicRollout>>,
    },
}

/// What a checkpoint keeps of the rollout phase: the copies' histories with the plan each
/// copy's episode was reset under, or the whole-episode rounds played.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(super) enum RolloutState {
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
pub(super) struct CopyPlan {
    cut_mean_s: Option<f64>,
    filtered: bool,
}

impl<E: SchedulingEnv> Rollout<TrainingEnv<E>> {
    /// The collector `config`'s baseline asks for, its copies made from `training` (the
    /// heuristic's from `prototype`); a vectorised env's copies reset from `seed`.
    pub(super) fn new(
        prototype: &E,
        training: &TrainingEnv<E>,
        config: &PpoConfig,
        seed: u64,
    ) -> Result<Self, LearnerError> {
        let collector = if config.baseline.same_window >= 2 || !config.baseline.heuristic.is_empty()
        {
            Collector::Windows {
                copies: (0..config.envs).map(|_| training.fresh_copy()).collect(),
                heuristic: heuristic_copies(prototype, config).map_err(|e| {
                    LearnerError::setting("baseline_heuristic", &config.baseline.heuristic, e)
                })?,
                rounds: 0,
            }
        } else {
            let mut envs = VecEnv::new(training, config.envs, seed);
            let observations = envs.reset()?;
            Collector::Steps { envs, observations }
        };
        Ok(Rollout {
            collector,
            env_steps: 0,
            seed,
        })
    }

    pub(super) fn env_steps(&self) -> u64 {
        self.env_steps
    }

    /// Continues from a checkpoint taken after `env_steps`.
    pub(super) fn set_env_steps(&mut self, env_steps: u64) {
        self.env_steps = env_steps;
    }

    /// Every copy's next episodes, the heuristic's too, reset under `plan`.
    pub(super) fn set_plan(&mut self, plan: &EpisodePlan) {
        match &mut self.collector {
            Collector::Steps { envs, .. } => envs
                .envs_mut()
                .iter_mut()
                .for_each(|env| env.set_plan(plan.clone())),
            Collector::Windows {
                copies, heuristic, ..
            } => copies
                .iter_mut()
                .chain(heuristic.iter_mut().map(|(env, _)| env))
                .for_each(|env| env.set_plan(plan.clone())),
        };
    }

    /// One update's experience of `agent` and the episodes that ended in it.
    pub(super) fn collect(
        &mut self,
        agent: &mut PpoAgent,
        config: &PpoConfig,
    ) -> schedlab_env::Result<(Experience, EpisodeTally<E::Metrics>)> {
        match &mut self.collector {
            Collector::Steps { envs, observations } => {
                let (records, last_values, tally) =
                    roll_out(envs, observations, agent, config, &mut self.env_steps)?;
                Ok((
                    Experience::Steps {
                        records,
                        last_values,
                    },
                    tally,
                ))
            }
            Collector::Windows {
                copies,
                heuristic,
                rounds,
            } => {
                let (played, tally, heuristic) =
                    play_windows(copies, heuristic, rounds, agent, config, self.seed)?;
                self.env_steps += played.iter().map(|e| e.records.len() as u64).sum::<u64>();
                Ok((Experience::Episodes { played, heuristic }, tally))
            }
        }
    }

    /// What a checkpoint keeps to put the copies back where they are.
    pub(super) fn state(&self) -> RolloutState {
        match &self.collector {
            Collector::Steps { envs, .. } => RolloutState::Rollouts {
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
            Collector::Windows { rounds, .. } => RolloutState::Windows { rounds: *rounds },
        }
    }

    /// Puts the copies back where [`Self::state`] found them; `kept_windows` are the run's
    /// filtered windows, which a filtered episode was drawn from.
    pub(super) fn restore(
        &mut self,
        state: RolloutState,
        kept_windows: &Option<Arc<Vec<u64>>>,
    ) -> Result<(), CheckpointError> {
        match (&mut self.collector, state) {
            (
                Collector::Steps { envs, observations },
                RolloutState::Rollouts { history, plans },
            ) => {
                if plans.len() != envs.len() {
                    return Err(CheckpointError::State(format!(
                        "plans for {} copies, not {}",
                        plans.len(),
                        envs.len()
                    )));
                }
                for (env, plan) in envs.envs_mut().iter_mut().zip(plans) {
                    let windows = match (plan.filtered, kept_windows) {
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
            (Collector::Windows { rounds, .. }, RolloutState::Windows { rounds: saved }) => {
                *rounds = saved;
                Ok(())
            }
            _ => Err(CheckpointError::State(
                "the checkpoint's collector is not this configuration's".into(),
            )),
        }
    }
}

/// One records list per copy of `rollout_steps` rounds, `V` of each copy's observation after
/// them, and the episodes that ended.
type Rounds<M> = (Vec<Vec<Record>>, Vec<f32>, EpisodeTally<M>);

/// `rollout_steps` rounds of every copy of `envs` from `observations`, which it leaves at the
/// copies' next ones; a truncated round keeps `V` of its episode's final observation.
fn roll_out<E: SchedulingEnv>(
    envs: &mut VecEnv<E>,
    observations: &mut [Observation],
    agent: &mut PpoAgent,
    config: &PpoConfig,
    env_steps: &mut u64,
) -> schedlab_env::Result<Rounds<E::Metrics>> {
    let copies = envs.len();
    let mut records: Vec<Vec<Record>> = (0..copies).map(|_| Vec::new()).collect();
    let mut tally = EpisodeTally::default();
    for _ in 0..config.rollout_steps {
        let acted = agent.act_batch(&observations.iter().collect::<Vec<_>>());
        let step = envs.step(&acted.actions)?;
        *env_steps += copies as u64;
        let truncated_finals: Vec<&Observation> = step
            .final_observations
            .iter()
            .zip(&step.truncated)
            .filter_map(|(o, &t)| o.as_ref().filter(|_| t))
            .collect();
        let mut final_values = if truncated_finals.is_empty() {
            Vec::new()
        } else {
            agent.values(&truncated_finals)
        }
        .into_iter();
        for (i, trajectory) in records.iter_mut().enumerate() {
            trajectory.push(Record {
                observation: std::mem::replace(&mut observations[i], step.observations[i].clone()),
                action: acted.actions[i].clone(),
                log_prob: acted.log_probs[i],
                value: acted.values[i],
                reward: step.rewards[i] as f32,
                elapsed_s: step.elapsed_s[i],
                discount: step_discount(config.gamma, config.discount_time_s, step.elapsed_s[i]),
                lambda: config.step_lambda(step.elapsed_s[i]),
                terminated: step.terminated[i],
                truncated: step.truncated[i],
                final_value: if step.truncated[i] {
                    final_values.next()
                } else {
                    None
                },
            });
        }
        tally.record(&step);
    }
    let last_values = agent.values(&observations.iter().collect::<Vec<_>>());
    Ok((records, last_values, tally))
}

/// One env copy and one built `baseline_heuristic` per training copy (none without one). The
/// heuristic plays every decision itself (no forced ones skipped: its plan spans them), under
/// the copies' plan, so it plays the same window cut at the same time.
fn heuristic_copies<E: SchedulingEnv>(
    prototype: &E,
    config: &PpoConfig,
) -> Result<Vec<HeuristicCopy<TrainingEnv<E>>>, PlayError> {
    let heuristic = &config.baseline.heuristic;
    if heuristic.is_empty() {
        return Ok(Vec::new());
    }
    (0..config.envs)
        .map(|_| {
            let env = TrainingEnv::new(prototype.fresh_copy(), EpisodePlan::default());
            let policy = registry::build(heuristic, &env.context(), &[]).map_err(|source| {
                PlayError::Build {
                    what: format!("baseline heuristic `{heuristic}`"),
                    source,
                }
            })?;
            Ok((env, policy))
        })
        .collect()
}
