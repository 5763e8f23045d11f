//! The rollout's whole-episode form: one episode per copy and update, in groups on one drawn
//! window (`same_window`) or beside a baseline heuristic on the copy's seed
//! (`baseline_heuristic`).

use rayon::prelude::*;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{Policy, SchedulingEnv};
use schedlab_env::episode_seed;

use super::config::PpoConfig;
use super::same_window::{self, HeuristicRollout, Played};
use crate::learner::EpisodeTally;

/// Where `same_window`'s episodes draw their seeds (mixed with the run's seed, the group and
/// the round): not the evaluation seeds `0..K`.
pub(super) const WINDOW_SEEDS: u64 = 0x5a3e_0000_0000;

/// An env copy and the baseline heuristic that plays on it.
pub(super) type HeuristicCopy<E> = (E, Box<dyn Policy>);

/// An update's episodes, their tally and the baseline heuristic's rollouts on their seeds.
pub(super) type PlayedWindows<M> = (Vec<Played>, EpisodeTally<M>, Option<Vec<HeuristicRollout>>);

/// One whole episode per copy, each group of `same_window` copies on one seed (each copy on
/// its own with a baseline heuristic, whose rollouts on the same seeds come third), round
/// `rounds` of the run of `seed`; raw rewards.
pub(super) fn play_windows<E: SchedulingEnv>(
    copies: &mut [E],
    heuristic: &mut [HeuristicCopy<E>],
    rounds: &mut u64,
    agent: &mut PpoAgent,
    config: &PpoConfig,
    seed: u64,
) -> schedlab_env::Result<PlayedWindows<E::Metrics>> {
    let group = config.baseline.same_window.max(1);
    let seeds: Vec<u64> = (0..copies.len())
        .map(|c| episode_seed(seed ^ WINDOW_SEEDS, (c / group) as u64, *rounds))
        .collect();
    *rounds += 1;
    let discount = (config.gamma, config.discount_time_s);
    let mut tally = EpisodeTally::default();
    let played = same_window::play(copies, &seeds, agent, discount, &mut tally)?;
    let baseline = (!heuristic.is_empty())
        .then(|| {
            heuristic
                .par_iter_mut()
                .zip(&seeds)
                .map(|((env, policy), &seed)| {
                    same_window::play_heuristic(env, policy.as_mut(), seed, discount)
                })
                .collect::<schedlab_env::Result<Vec<_>>>()
        })
        .transpose()?;
    Ok((played, tally, baseline))
}
