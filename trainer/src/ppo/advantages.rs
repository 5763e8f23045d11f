//! CleanRL's second phase, the advantages: an update's rewards put in the unit the critic
//! learns (`normalize_rewards`, the `differential` form), then each round's advantage and
//! value target, by GAE over a rollout or against the same window's other rollouts or a
//! heuristic's (trainer/src/ppo/same_window.rs). It owns the reward scale: the running
//! return statistics and the average reward rate.

use schedlab_agents::learned::gae::{Transition, gae};

use super::config::PpoConfig;
use super::record::Record;
use super::rollout::Experience;
use super::same_window;
use crate::reward_scale::RewardScale;

/// A round with its advantage and value target.
pub(super) type Row<'a> = (&'a Record, f32, f32);

/// The advantages phase's state.
pub(super) struct Advantages {
    scale: RewardScale,
}

impl Advantages {
    /// For `copies` env copies.
    pub(super) fn new(copies: usize) -> Self {
        Advantages {
            scale: RewardScale::new(copies),
        }
    }

    pub(super) fn scale(&self) -> &RewardScale {
        &self.scale
    }

    /// The scale, for the warm start to learn from the teacher's episodes and a resume to
    /// restore.
    pub(super) fn scale_mut(&mut self) -> &mut RewardScale {
        &mut self.scale
    }

    /// Puts `experience`'s raw rewards in the critic's unit: each round's less the rate so far
    /// times its span (the differential form, rates updated round by round), then divided by
    /// the running return's spread (`normalize_rewards`; whole episodes in one unit, the
    /// heuristic's by the same).
    pub(super) fn scale_rewards(&mut self, experience: &mut Experience, config: &PpoConfig) {
        match experience {
            Experience::Steps { records, .. } => {
                if config.differential {
                    self.subtract_rate(records);
                }
                if config.normalize_rewards {
                    for (copy, trajectory) in records.iter_mut().enumerate() {
                        for r in trajectory.iter_mut() {
                            self.scale.observe(copy, f64::from(r.reward), r.discount);
                            r.reward = self.scale.apply(f64::from(r.reward)) as f32;
                            if r.terminated || r.truncated {
                                self.scale.end_episode(copy);
                            }
                        }
                    }
                }
            }
            Experience::Episodes { played, heuristic } => {
                if config.normalize_rewards {
                    same_window::scale_rewards(&mut self.scale, played);
                    if let Some(rollouts) = heuristic {
                        same_window::scale_heuristic(&self.scale, rollouts);
                    }
                }
            }
        }
    }

    /// The rate the rollout's rewards are measured against is the run's before it; the rate
    /// then sees the rollout round by round, every copy in order.
    fn subtract_rate(&mut self, records: &mut [Vec<Record>]) {
        let rate = self.scale.reward_rate();
        let rounds = records.iter().map(Vec::len).max().unwrap_or(0);
        for t in 0..rounds {
            for r in records
                .iter_mut()
                .filter_map(|trajectory| trajectory.get_mut(t))
            {
                self.scale.observe_rate(f64::from(r.reward), r.elapsed_s);
                r.reward = (f64::from(r.reward) - rate * r.elapsed_s) as f32;
            }
        }
    }

    /// Every round of `experience` with its advantage and value target.
    pub(super) fn rows<'a>(&self, experience: &'a Experience, config: &PpoConfig) -> Vec<Row<'a>> {
        match experience {
            Experience::Steps {
                records,
                last_values,
            } => gae_rows(records, last_values),
            Experience::Episodes { played, heuristic } => {
                let targets = match heuristic {
                    Some(rollouts) => same_window::advantages_against_heuristic(played, rollouts),
                    None => same_window::advantages(played, config.baseline.same_window),
                };
                played
                    .iter()
                    .zip(targets)
                    .flat_map(|(episode, (advantages, returns))| {
                        episode.records.iter().zip(advantages).zip(returns)
                    })
                    .map(|((r, a), g)| (r, a, g))
                    .collect()
            }
        }
    }
}

/// Each rollout round with its GAE advantage and value target; `last_values[copy]`
/// bootstraps a trajectory the rollout cut off, a truncated round its final observation's
/// value.
fn gae_rows<'a>(records: &'a [Vec<Record>], last_values: &[f32]) -> Vec<Row<'a>> {
    let mut rows: Vec<Row> = Vec::new();
    for (copy, trajectory) in records.iter().enumerate() {
        let transitions: Vec<Transition> = trajectory
            .iter()
            .enumerate()
            .map(|(t, r)| Transition {
                reward: r.reward,
                value: r.value,
                next_value: match (r.final_value, trajectory.get(t + 1)) {
                    (Some(v), _) => v,
                    (None, Some(next)) => next.value,
                    (None, None) => last_values[copy],
                },
                terminated: r.terminated,
                truncated: r.truncated,
                discount: r.discount,
                lambda: r.lambda,
            })
            .collect();
        let (advantages, returns) = gae(&transitions);
        rows.extend(
            trajectory
                .iter()
                .zip(advantages)
                .zip(returns)
                .map(|((r, a), ret)| (r, a, ret)),
        );
    }
    rows
}
