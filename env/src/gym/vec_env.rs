//! Many copies of one environment stepped in parallel.
//!
//! Auto-reset rule (the "same-step" convention of Stable-Baselines3 and Gymnasium's
//! `SAME_STEP` mode): when copy `i`'s episode ends in `step`, that step reports its reward,
//! `terminated`/`truncated`, `info.metrics`, and its last observation in
//! `final_observations[i]`; the copy is then reset at once and `observations[i]` is the first
//! observation of its next episode. Copy `i`'s `k`-th episode uses
//! `episode_seed(base_seed, i, k)`, so a run is reproducible from `base_seed` alone.

use rayon::prelude::*;

use super::environment::{Environment, StepInfo};
use super::spaces::Observation;
use crate::error::Result;

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

pub struct VecEnv<E> {
    envs: Vec<E>,
    episodes: Vec<u64>,
    /// Each copy's virtual clock after its last reset or step.
    clocks: Vec<f64>,
    base_seed: u64,
}

impl<E: Environment> VecEnv<E> {
    /// `copies` fresh copies of `prototype`'s workload.
    pub fn new(prototype: &E, copies: usize, base_seed: u64) -> Self {
        VecEnv {
            envs: (0..copies).map(|_| prototype.fresh_copy()).collect(),
            episodes: vec![0; copies],
            clocks: vec![0.0; copies],
            base_seed,
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

    pub fn reset(&mut self) -> Result<Vec<Observation>> {
        self.episodes.fill(0);
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

    /// Steps every copy with its action, in parallel, resetting finished copies.
    pub fn step(&mut self, actions: &[Vec<usize>]) -> Result<VecStep<E::Info>> {
        assert_eq!(actions.len(), self.envs.len(), "one action per copy");
        let base = self.base_seed;
        let results: Vec<Result<_>> = self
            .envs
            .par_iter_mut()
            .zip(self.episodes.par_iter_mut())
            .zip(self.clocks.par_iter_mut())
            .zip(actions.par_iter())
            .enumerate()
            .map(|(i, (((env, episode), clock), action))| {
                let step = env.step(action)?;
                let elapsed = step.info.time_s() - *clock;
                *clock = step.info.time_s();
                if step.terminated || step.truncated {
                    *episode += 1;
                    let (next, info) = env.reset(episode_seed(base, i as u64, *episode))?;
                    *clock = info.time_s();
                    Ok((
                        next,
                        Some(step.observation),
                        step.reward,
                        step.terminated,
                        step.truncated,
                        step.info,
                        elapsed,
                    ))
                } else {
                    let (observation, reward, info) = (step.observation, step.reward, step.info);
                    Ok((observation, None, reward, false, false, info, elapsed))
                }
            })
            .collect();
        let mut out = VecStep {
            observations: Vec::new(),
            rewards: Vec::new(),
            terminated: Vec::new(),
            truncated: Vec::new(),
            infos: Vec::new(),
            final_observations: Vec::new(),
            elapsed_s: Vec::new(),
        };
        for r in results {
            let (obs, fin, reward, term, trunc, info, elapsed) = r?;
            out.elapsed_s.push(elapsed);
            out.observations.push(obs);
            out.final_observations.push(fin);
            out.rewards.push(reward);
            out.terminated.push(term);
            out.truncated.push(trunc);
            out.infos.push(info);
        }
        Ok(out)
    }
}
