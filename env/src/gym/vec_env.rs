//! Many copies of one environment stepped together, in parallel where that pays.
//!
//! Auto-reset rule (the "same-step" convention of Stable-Baselines3 and Gymnasium's
//! `SAME_STEP` mode): when copy `i`'s episode ends in `step`, that step reports its reward,
//! `terminated`/`truncated`, `info.metrics`, and its last observation in
//! `final_observations[i]`; the copy is then reset at once and `observations[i]` is the first
//! observation of its next episode. Copy `i`'s `k`-th episode uses
//! `episode_seed(base_seed, i, k)`, so a run is reproducible from `base_seed` alone.
//!
//! A batch's state is therefore its [`VecEnvHistory`]: each copy's episode number and the
//! actions it took since its last reset. A checkpoint keeps that instead of the envs
//! themselves, and [`VecEnv::replay`] rebuilds the same copies from it (the envs are
//! deterministic functions of their seed and actions), so a resumed training run steps the
//! very episodes an uninterrupted one would.

use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::environment::{Environment, StepInfo};
use super::spaces::Observation;
use crate::error::{EnvError, Result};

/// The seed of copy `env`'s `episode`-th episode (SplitMix64 mixing of the three).
pub fn episode_seed(base_seed: u64, env: u64, episode: u64) -> u64 {
    fn mix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    mix(base_seed ^ mix(env.wrapping_add(mix(episode))))
}

#[derive(Debug, Clone)]
pub struct VecStep<I> {
    pub observations: Vec<Observation>,
    pub rewards: Vec<f64>,
    pub terminated: Vec<bool>,
    pub truncated: Vec<bool>,
    pub infos: Vec<I>,
    pub final_observations: Vec<Option<Observation>>,
    /// Virtual seconds each copy's step took (0 for same-time decisions).
    pub elapsed_s: Vec<f64>,
}

/// What made each copy's current state: its episode number and the actions of that episode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VecEnvHistory {
    pub episodes: Vec<u64>,
    pub actions: Vec<Vec<Vec<usize>>>,
}

pub struct VecEnv<E> {
    envs: Vec<E>,
    episodes: Vec<u64>,
    /// Each copy's actions since its last reset (the copy's [`VecEnvHistory`]).
    actions: Vec<Vec<Vec<usize>>>,
    /// Each copy's virtual clock after its last reset or step.
    clocks: Vec<f64>,
    base_seed: u64,
    /// Wall-clock seconds of all copy steps so far, and their number: whether stepping in
    /// parallel pays.
    stepped_s: f64,
    copy_steps: u64,
}

impl<E: Environment> VecEnv<E> {
    /// `copies` fresh copies of `prototype`'s workload.
    pub fn new(prototype: &E, copies: usize, base_seed: u64) -> Self {
        VecEnv {
            envs: (0..copies).map(|_| prototype.fresh_copy()).collect(),
            episodes: vec![0; copies],
            actions: vec![Vec::new(); copies],
            clocks: vec![0.0; copies],
            base_seed,
            stepped_s: 0.0,
            copy_steps: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.envs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.envs.is_empty()
    }
    pub fn envs(&self) -> &[E] {
        &self.envs
    }
    /// The copies themselves, for settings that take effect at their next reset.
    pub fn envs_mut(&mut self) -> &mut [E] {
        &mut self.envs
    }

    pub fn reset(&mut self) -> Result<Vec<Observation>> {
        self.episodes.fill(0);
        self.actions.iter_mut().for_each(Vec::clear);
        let base = self.base_seed;
        let started: Vec<(Observation, f64)> = self
            .envs
            .par_iter_mut()
            .enumerate()
            .map(|(i, env)| {
                env.reset(episode_seed(base, i as u64, 0))
                    .map(|(obs, info)| (obs, info.time_s()))
            })
            .collect::<Result<_>>()?;
        let (observations, clocks) = started.into_iter().unzip();
        self.clocks = clocks;
        Ok(observations)
    }

    /// Steps every copy with its action, resetting finished copies. Copies run in parallel
    /// once their steps are costly enough to repay rayon's fork-join and thread wake-ups;
    /// cheaper steps run one after another on the calling thread. Either way each copy sees
    /// only its own action and seed, so the results are the same.
    pub fn step(&mut self, actions: &[Vec<usize>]) -> Result<VecStep<E::Info>> {
        assert_eq!(actions.len(), self.envs.len(), "one action per copy");
        let base = self.base_seed;
        let results: Vec<Result<CopyStep<E::Info>>> = if self.parallel_pays() {
            self.envs
                .par_iter_mut()
                .zip(self.episodes.par_iter_mut())
                .zip(self.clocks.par_iter_mut())
                .zip(self.actions.par_iter_mut())
                .zip(actions.par_iter())
                .enumerate()
                .map(|(i, ((((env, episode), clock), taken), action))| {
                    step_copy(env, action, base, i, (episode, clock, taken))
                })
                .collect()
        } else {
            self.envs
                .iter_mut()
                .zip(self.episodes.iter_mut())
                .zip(self.clocks.iter_mut())
                .zip(self.actions.iter_mut())
                .zip(actions)
                .enumerate()
                .map(|(i, ((((env, episode), clock), taken), action))| {
                    step_copy(env, action, base, i, (episode, clock, taken))
                })
                .collect()
        };
        let mut out = VecStep {
            observations: Vec::new(),
            rewards: Vec::new(),
            terminated: Vec::new(),
            truncated: Vec::new(),
            infos: Vec::new(),
            final_observations: Vec::new(),
            elapsed_s: Vec::new(),
        };
        for result in results {
            let copy = result?;
            self.stepped_s += copy.wall_s;
            out.elapsed_s.push(copy.elapsed_s);
            out.observations.push(copy.observation);
            out.final_observations.push(copy.final_observation);
            out.rewards.push(copy.reward);
            out.terminated.push(copy.terminated);
            out.truncated.push(copy.truncated);
            out.infos.push(copy.info);
        }
        self.copy_steps += self.envs.len() as u64;
        Ok(out)
    }

    /// Each copy's episode number and the actions of its current episode.
    pub fn history(&self) -> VecEnvHistory {
        VecEnvHistory {
            episodes: self.episodes.clone(),
            actions: self.actions.clone(),
        }
    }

    /// Puts every copy where `history` left it: the copy's episode reset from its seed and
    /// its actions stepped again. Returns the copies' current observations. Refused where the
    /// history has another number of copies, or an episode ends or an action is refused
    /// before its actions are spent (a history from another workload or seed).
    pub fn replay(&mut self, history: &VecEnvHistory) -> Result<Vec<Observation>> {
        let copies = self.envs.len();
        if history.episodes.len() != copies || history.actions.len() != copies {
            return Err(EnvError::BadAction(format!(
                "a history of {} copies replayed on {copies}",
                history.episodes.len()
            )));
        }
        let base = self.base_seed;
        let replayed: Vec<(Observation, f64)> = self
            .envs
            .par_iter_mut()
            .enumerate()
            .map(|(i, env)| {
                let (mut observation, info) =
                    env.reset(episode_seed(base, i as u64, history.episodes[i]))?;
                let mut clock = info.time_s();
                for (k, action) in history.actions[i].iter().enumerate() {
                    let step = env.step(action)?;
                    if step.terminated || step.truncated {
                        return Err(EnvError::BadAction(format!(
                            "copy {i}'s history ends its episode at action {k} of {}",
                            history.actions[i].len()
                        )));
                    }
                    (observation, clock) = (step.observation, step.info.time_s());
                }
                Ok((observation, clock))
            })
            .collect::<Result<_>>()?;
        self.episodes = history.episodes.clone();
        self.actions = history.actions.clone();
        let (observations, clocks) = replayed.into_iter().unzip();
        self.clocks = clocks;
        Ok(observations)
    }

    /// Whether the copies' mean step so far, split over the pool's threads, saves more than
    /// one fork-join costs.
    fn parallel_pays(&self) -> bool {
        let threads = rayon::current_num_threads() as f64;
        if threads < 2.0 || self.copy_steps == 0 {
            return false;
        }
        let serial_s = self.stepped_s / self.copy_steps as f64 * self.envs.len() as f64;
        serial_s * (1.0 - 1.0 / threads) > FORK_JOIN_S
    }
}

/// What stepping a batch in parallel costs beyond the steps (rayon's fork-join and thread
/// wake-ups), seconds: `bench steps` on 2 cores took 50 µs for 8 jobs-env copies of 3 µs each
/// in parallel against 23 µs one after another, and gained with network copies of 10 µs.
const FORK_JOIN_S: f64 = 25e-6;

/// One copy's step, after any reset it needed.
struct CopyStep<I> {
    observation: Observation,
    final_observation: Option<Observation>,
    reward: f64,
    terminated: bool,
    truncated: bool,
    info: I,
    elapsed_s: f64,
    /// Wall-clock seconds the step (and reset) took.
    wall_s: f64,
}

/// Steps one copy; `(episode, clock, taken)` are its episode number, clock and actions since
/// its last reset.
fn step_copy<E: Environment>(
    env: &mut E,
    action: &[usize],
    base_seed: u64,
    copy: usize,
    (episode, clock, taken): (&mut u64, &mut f64, &mut Vec<Vec<usize>>),
) -> Result<CopyStep<E::Info>> {
    let start = Instant::now();
    let step = env.step(action)?;
    taken.push(action.to_vec());
    let elapsed_s = step.info.time_s() - *clock;
    *clock = step.info.time_s();
    let ended = step.terminated || step.truncated;
    let (observation, final_observation) = if ended {
        *episode += 1;
        taken.clear();
        let (next, info) = env.reset(episode_seed(base_seed, copy as u64, *episode))?;
        *clock = info.time_s();
        (next, Some(step.observation))
    } else {
        (step.observation, None)
    };
    Ok(CopyStep {
        observation,
        final_observation,
        reward: step.reward,
        terminated: step.terminated,
        truncated: step.truncated,
        info: step.info,
        elapsed_s,
        wall_s: start.elapsed().as_secs_f64(),
    })
}
