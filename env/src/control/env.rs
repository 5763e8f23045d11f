//! The control env: one task (CartPole or Acrobot) behind the gym contract, one discrete
//! choice per step with every level allowed, the observation Gymnasium's, terminated by the
//! task and truncated at the time limit as Gymnasium's `TimeLimit` does. One step is one
//! second of virtual time, so discounting by time is discounting per step.

use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::acrobot::Acrobot;
use super::cartpole::CartPole;
use super::metrics::ControlMetrics;
use super::schema::Task;
use super::workload::ControlWorkload;
use crate::error::{EnvError, Result};
use crate::gym::{ActionSpace, Environment, Field, Observation, ObservationSpace, Step, StepInfo};

/// What a step reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ControlInfo {
    pub step: usize,
    pub metrics: Option<ControlMetrics>,
}

impl StepInfo<ControlMetrics> for ControlInfo {
    fn metrics(&self) -> Option<&ControlMetrics> {
        self.metrics.as_ref()
    }
    fn time_s(&self) -> f64 {
        self.step as f64
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum State {
    CartPole(CartPole),
    Acrobot(Acrobot),
}

impl State {
    fn observe(&self) -> Vec<f32> {
        match self {
            State::CartPole(s) => s.observe(),
            State::Acrobot(s) => s.observe(),
        }
    }

    fn step(&mut self, action: usize) -> (f64, bool) {
        match self {
            State::CartPole(s) => s.step(action),
            State::Acrobot(s) => s.step(action),
        }
    }
}

struct Episode {
    state: State,
    step: usize,
    episode_return: f64,
    over: bool,
}

pub struct ControlEnv {
    workload: Arc<ControlWorkload>,
    action_space: ActionSpace,
    observation_space: ObservationSpace,
    episode: Option<Episode>,
}

impl ControlEnv {
    pub fn new(workload: Arc<ControlWorkload>) -> Self {
        let (actions, observed) = match workload.spec.control.task {
            Task::Cartpole => (CartPole::ACTIONS, CartPole::OBSERVED),
            Task::Acrobot => (Acrobot::ACTIONS, Acrobot::OBSERVED),
        };
        ControlEnv {
            action_space: ActionSpace::grid("task", 1, vec![Field::new("action", actions)]),
            observation_space: ObservationSpace::new(&[("state", 1, observed)]),
            workload,
            episode: None,
        }
    }

    pub fn workload(&self) -> &Arc<ControlWorkload> {
        &self.workload
    }

    fn observation(&self, state: &State) -> Observation {
        Observation {
            features: state.observe(),
            action_mask: vec![true; self.action_space.mask_len()],
        }
    }

    /// Starts an episode from `state` (the recorded trajectories' start, in tests).
    pub(super) fn reset_to(&mut self, state: State) -> Observation {
        self.episode = Some(Episode {
            state,
            step: 0,
            episode_return: 0.0,
            over: false,
        });
        self.observation(&state)
    }
}

impl Environment for ControlEnv {
    type Metrics = ControlMetrics;
    type Info = ControlInfo;

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
        self.workload.spec.control.max_steps
    }

    fn reset(&mut self, seed: u64) -> Result<(Observation, ControlInfo)> {
        let mut rng = StdRng::seed_from_u64(seed);
        let state = match self.workload.spec.control.task {
            Task::Cartpole => State::CartPole(CartPole::start(&mut rng)),
            Task::Acrobot => State::Acrobot(Acrobot::start(&mut rng)),
        };
        let observation = self.reset_to(state);
        Ok((
            observation,
            ControlInfo {
                step: 0,
                metrics: None,
            },
        ))
    }

    fn step(&mut self, action: &[usize]) -> Result<Step<ControlInfo>> {
        let max_steps = self.workload.spec.control.max_steps;
        let mask = vec![true; self.action_space.mask_len()];
        let e = self.episode.as_mut().ok_or(EnvError::EpisodeOver)?;
        if e.over {
            return Err(EnvError::EpisodeOver);
        }
        self.action_space
            .check(action, &mask)
            .map_err(|err| EnvError::BadAction(err.to_string()))?;
        let (reward, terminated) = e.state.step(action[0]);
        e.step += 1;
        e.episode_return += reward;
        // Gymnasium's TimeLimit: truncated at the limit unless the task ended there itself
        let truncated = !terminated && e.step >= max_steps;
        e.over = terminated || truncated;
        let info = ControlInfo {
            step: e.step,
            metrics: e.over.then_some(ControlMetrics {
                steps: e.step,
                terminated,
                episode_return: e.episode_return,
            }),
        };
        let state = e.state;
        Ok(Step {
            observation: self.observation(&state),
            reward,
            terminated,
            truncated,
            info,
        })
    }

    fn fresh_copy(&self) -> Self {
        ControlEnv::new(Arc::clone(&self.workload))
    }
}
