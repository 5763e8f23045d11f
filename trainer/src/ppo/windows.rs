//! The whole-episode collector: one episode per copy and update, in groups on one drawn window
//! (`same_window`) or beside a baseline heuristic on the copy's seed (`baseline_heuristic`).

use rayon::prelude::*;
use schedlab_agents::SchedulingEnv;
use schedlab_env::episode_seed;

use super::collector::Collector;
use super::same_window;
use super::trainer::PpoTrainer;
use crate::learner::EpisodeTally;

/// Where `same_window`'s episodes draw their seeds (mixed with the run's seed, the group and
/// the round): not the evaluation seeds `0..K`.
pub(super) const WINDOW_SEEDS: u64 = 0x5a3e_0000_0000;

/// An update's episodes, their tally and the baseline heuristic's rollouts on their seeds.
pub(super) type PlayedWindows<M> = (
    Vec<same_window::Played>,
    EpisodeTally<M>,
    Option<Vec<same_window::HeuristicRollout>>,
);

impl<E: SchedulingEnv> PpoTrainer<E> {
    /// One whole episode per copy, each group of `same_window` copies on one seed (each copy
    /// on its own with a baseline heuristic, whose rollouts on the same seeds come third);
    /// rewards scaled as in [`Self::rollout`], the heuristic's by the same unit.
    pub(super) fn play_windows(&mut self) -> schedlab_env::Result<PlayedWindows<E::Metrics>> {
        let Collector::Windows {
            copies,
            heuristic,
            rounds,
        } = &mut self.collector
        else {
            unreachable!("update plays windows only with the window collector");
        };
        let group = self.config.baseline.same_window.max(1);
        let seeds: Vec<u64> = (0..copies.len())
            .map(|c| episode_seed(self.seed ^ WINDOW_SEEDS, (c / group) as u64, *rounds))
            .collect();
        *rounds += 1;
        let mut tally = EpisodeTally::default();
        let mut played = same_window::play(
            copies,
            &seeds,
            &mut self.agent,
            (self.config.gamma, self.config.discount_time_s),
            &mut tally,
        )?;
        self.env_steps += played.iter().map(|e| e.records.len() as u64).sum::<u64>();
        let discount = (self.config.gamma, self.config.discount_time_s);
        let mut baseline = (!heuristic.is_empty())
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
        if self.config.normalize_rewards {
            same_window::scale_rewards(&mut self.scale, &mut played);
            if let Some(rollouts) = &mut baseline {
                same_window::scale_heuristic(&self.scale, rollouts);
            }
        }
        Ok((played, tally, baseline))
    }
}
