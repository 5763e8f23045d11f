//! The bandit env: each step shows a state drawn from the episode's seed (one-hot), masks
//! the odd states' best levels and pays each dimension's mean reward of the level chosen plus
//! Gaussian noise; the episode terminates after the workload's steps. One step is one second
//! of virtual time.

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};

use super::instance::BanditWorkload;
use super::metrics::BanditMetrics;
use crate::error::{EnvError, Result};
use crate::gym::{ActionSpace, Environment, Field, Observation, ObservationSpace, Step, StepInfo};

/// What a step reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BanditInfo {
    pub step: usize,
    /// The state the step's action answered (at `reset`, the one shown).
    pub state: usize,
    /// The step's mean reward forgone against the optimum.
    pub regret: f64,
    pub metrics: Option<BanditMetrics>,
}

impl StepInfo<BanditMetrics> for BanditInfo {
    fn metrics(&self) -> Option<&BanditMetrics> {
        self.metrics.as_ref()
    }
    fn time_s(&self) -> f64 {
        self.step as f64
    }
}

struct Episode {
    rng: StdRng,
    state: usize,
    step: usize,
    regret: f64,
    optimal: usize,
    episode_return: f64,
}

pub struct BanditEnv {
    workload: Arc<BanditWorkload>,
    action_space: ActionSpace,
    observation_space: ObservationSpace,
    episode: Option<Episode>,
}

impl BanditEnv {
    pub fn new(workload: Arc<BanditWorkload>) -> Self {
        let b = &workload.spec.bandit;
        BanditEnv {
            action_space: ActionSpace::grid("dim", b.dims, vec![Field::new("level", b.levels)]),
            observation_space: ObservationSpace::new(&[("state", 1, b.states)]),
            workload,
            episode: None,
        }
    }

    pub fn workload(&self) -> &Arc<BanditWorkload> {
        &self.workload
    }

    /// The state the current observation shows (none before the first `reset`).
    pub fn state(&self) -> Option<usize> {
        self.episode.as_ref().map(|e| e.state)
    }

    /// The levels `state` allows, every dimension's in turn.
    fn mask(&self, state: usize) -> Vec<bool> {
        (0..self.workload.spec.bandit.dims)
            .flat_map(|dim| self.workload.allowed(state, dim))
            .collect()
    }

    fn observe(&self, state: usize) -> Observation {
        Observation::one_hot(self.workload.spec.bandit.states, state, self.mask(state))
    }
}

impl Environment for BanditEnv {
    type Metrics = BanditMetrics;
    type Info = BanditInfo;

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
        self.workload.spec.bandit.steps
    }

    fn reset(&mut self, seed: u64) -> Result<(Observation, BanditInfo)> {
        let mut rng = StdRng::seed_from_u64(seed);
        let state = rng.random_range(0..self.workload.spec.bandit.states);
        self.episode = Some(Episode {
            rng,
            state,
            step: 0,
            regret: 0.0,
            optimal: 0,
            episode_return: 0.0,
        });
        let info = BanditInfo {
            step: 0,
            state,
            regret: 0.0,
            metrics: None,
        };
        Ok((self.observe(state), info))
    }

    fn step(&mut self, action: &[usize]) -> Result<Step<BanditInfo>> {
        let w = Arc::clone(&self.workload);
        let b = &w.spec.bandit;
        let shown = match &self.episode {
            Some(e) if e.step < b.steps => e.state,
            _ => return Err(EnvError::EpisodeOver),
        };
        self.action_space
            .check(action, &self.mask(shown))
            .map_err(|err| EnvError::BadAction(err.to_string()))?;
        let e = self.episode.as_mut().expect("checked above");
        let optimum = w.optimum(e.state);
        let mut reward = 0.0;
        for (dim, &level) in action.iter().enumerate() {
            let noise: f64 = StandardNormal.sample(&mut e.rng);
            reward += w.mean(e.state, dim, level) + b.noise * noise;
        }
        let regret = w.regret(e.state, action);
        e.optimal += action.iter().zip(&optimum).filter(|(a, o)| a == o).count();
        e.regret += regret;
        e.episode_return += reward;
        e.step += 1;
        e.state = e.rng.random_range(0..b.states);
        let terminated = e.step == b.steps;
        let info = BanditInfo {
            step: e.step,
            state: shown,
            regret,
            metrics: terminated.then(|| BanditMetrics {
                regret: e.regret,
                optimal_share: e.optimal as f64 / (e.step * b.dims) as f64,
                steps: e.step,
                episode_return: e.episode_return,
            }),
        };
        let next = e.state;
        let observation = self.observe(next);
        Ok(Step {
            observation,
            reward,
            terminated,
            truncated: false,
            info,
        })
    }

    fn fresh_copy(&self) -> Self {
        BanditEnv::new(Arc::clone(&self.workload))
    }
}
