//! The markov env: one two-level choice per step, the position shown one-hot. On the chain a
//! step is one second of virtual time; on the semi-Markov chain the choices take none and
//! the `advance` step after them takes `step_s`, so a learner that discounts by time sees a
//! decision point as the jobs cluster's.

use std::sync::Arc;

use super::metrics::MarkovMetrics;
use super::schema::MarkovSpec;
use super::workload::MarkovWorkload;
use crate::error::{EnvError, Result};
use crate::gym::{ActionSpace, Environment, Field, Observation, ObservationSpace, Step, StepInfo};

/// The chain's move on (the other, 0, is back).
const FORWARD: usize = 1;
/// The semi-Markov chain's good level; the bad one, 0, is `advance` at the timed step.
const GOOD: usize = 1;

/// What a step reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct MarkovInfo {
    pub step: usize,
    /// The virtual time after the step.
    pub time_s: f64,
    pub metrics: Option<MarkovMetrics>,
}

impl StepInfo<MarkovMetrics> for MarkovInfo {
    fn metrics(&self) -> Option<&MarkovMetrics> {
        self.metrics.as_ref()
    }
    fn time_s(&self) -> f64 {
        self.time_s
    }
}

#[derive(Default)]
struct Episode {
    /// The chain's state, or the index within the decision point (`choices`: the timed step).
    position: usize,
    points_done: usize,
    bad_at_point: usize,
    step: usize,
    time_s: f64,
    choices: usize,
    optimal: usize,
    episode_return: f64,
    over: bool,
}

pub struct MarkovEnv {
    workload: Arc<MarkovWorkload>,
    action_space: ActionSpace,
    observation_space: ObservationSpace,
    episode: Option<Episode>,
}

impl MarkovEnv {
    pub fn new(workload: Arc<MarkovWorkload>) -> Self {
        let positions = match workload.task() {
            MarkovSpec::Chain { length, .. } => *length,
            MarkovSpec::SemiMarkov { choices, .. } => choices + 1,
        };
        MarkovEnv {
            action_space: ActionSpace::grid("chain", 1, vec![Field::new("level", 2)]),
            observation_space: ObservationSpace::new(&[("position", 1, positions)]),
            workload,
            episode: None,
        }
    }

    pub fn workload(&self) -> &Arc<MarkovWorkload> {
        &self.workload
    }

    /// Only `advance` at the semi-Markov chain's timed step; both levels elsewhere.
    fn mask(&self, position: usize) -> Vec<bool> {
        match self.workload.task() {
            MarkovSpec::SemiMarkov { choices, .. } if position == *choices => vec![true, false],
            _ => vec![true, true],
        }
    }

    fn observe(&self, position: usize) -> Observation {
        Observation::one_hot(self.observation_space.len(), position, self.mask(position))
    }
}

impl Environment for MarkovEnv {
    type Metrics = MarkovMetrics;
    type Info = MarkovInfo;

    fn workload_name(&self) -> &str {
        self.workload.name()
    }
    fn action_space(&self) -> &ActionSpace {
        &self.action_space
    }
    fn observation_space(&self) -> &ObservationSpace {
        &self.observation_space
    }
    fn step_limit(&self) -> usize {
        match self.workload.task() {
            MarkovSpec::Chain { max_steps, .. } => *max_steps,
            MarkovSpec::SemiMarkov {
                choices, points, ..
            } => (choices + 1) * points,
        }
    }

    /// Both chains are deterministic: the seed draws nothing.
    fn draws_from_seed(&self) -> bool {
        false
    }

    fn reset(&mut self, _seed: u64) -> Result<(Observation, MarkovInfo)> {
        self.episode = Some(Episode::default());
        let info = MarkovInfo {
            step: 0,
            time_s: 0.0,
            metrics: None,
        };
        Ok((self.observe(0), info))
    }

    fn step(&mut self, action: &[usize]) -> Result<Step<MarkovInfo>> {
        let position = match &self.episode {
            Some(e) if !e.over => e.position,
            _ => return Err(EnvError::EpisodeOver),
        };
        self.action_space
            .check(action, &self.mask(position))
            .map_err(|err| EnvError::BadAction(err.to_string()))?;
        let level = action[0];
        let e = self.episode.as_mut().expect("checked above");
        e.step += 1;
        let (reward, terminated, truncated) = match *self.workload.task() {
            MarkovSpec::Chain {
                length,
                back_reward,
                max_steps,
            } => {
                e.choices += 1;
                e.time_s += 1.0;
                let (reward, terminated) = if level == FORWARD {
                    e.optimal += 1;
                    e.position += 1;
                    let reached = e.position == length - 1;
                    (if reached { 1.0 } else { 0.0 }, reached)
                } else {
                    e.position = 0;
                    (back_reward, false)
                };
                (reward, terminated, !terminated && e.step >= max_steps)
            }
            MarkovSpec::SemiMarkov {
                choices,
                points,
                step_s,
            } if position == choices => {
                let reward = -(e.bad_at_point as f64) / choices as f64;
                e.time_s += step_s;
                e.points_done += 1;
                e.position = 0;
                e.bad_at_point = 0;
                (reward, e.points_done == points, false)
            }
            MarkovSpec::SemiMarkov { .. } => {
                e.choices += 1;
                e.position += 1;
                match level {
                    GOOD => e.optimal += 1,
                    _ => e.bad_at_point += 1,
                }
                (0.0, false, false)
            }
        };
        e.episode_return += reward;
        e.over = terminated || truncated;
        let info = MarkovInfo {
            step: e.step,
            time_s: e.time_s,
            metrics: e.over.then(|| MarkovMetrics {
                optimal_share: e.optimal as f64 / e.choices.max(1) as f64,
                steps: e.step,
                time_s: e.time_s,
                episode_return: e.episode_return,
            }),
        };
        let next = e.position;
        Ok(Step {
            observation: self.observe(next),
            reward,
            terminated,
            truncated,
            info,
        })
    }

    fn fresh_copy(&self) -> Self {
        MarkovEnv::new(Arc::clone(&self.workload))
    }
}
