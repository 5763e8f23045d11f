//! The GAE collector: `rollout_steps` rounds of every env copy, episodes carried across
//! updates, and each step's advantage and value target.

use schedlab_agents::SchedulingEnv;
use schedlab_agents::learned::gae::{Transition, gae, step_discount};
use schedlab_env::Observation;

use super::collector::Collector;
use super::record::Record;
use super::trainer::PpoTrainer;
use crate::learner::EpisodeTally;

/// One rollout's records per env copy, `V` of each copy's observation after it, and the
/// episodes that ended in it.
pub(super) type Rollout<M> = (Vec<Vec<Record>>, Vec<f32>, EpisodeTally<M>);

impl<E: SchedulingEnv> PpoTrainer<E> {
    /// `records[copy][t]`, the values to bootstrap from and the tally of episodes that ended.
    pub(super) fn rollout(&mut self) -> schedlab_env::Result<Rollout<E::Metrics>> {
        let Collector::Rollouts { envs, observations } = &mut self.collector else {
            unreachable!("update rolls out only with the VecEnv collector");
        };
        let copies = envs.len();
        let mut records: Vec<Vec<Record>> = (0..copies).map(|_| Vec::new()).collect();
        let mut tally = EpisodeTally::default();
        // the rate the rollout's rewards are measured against: the run's so far
        let rate = if self.config.differential {
            self.scale.reward_rate()
        } else {
            0.0
        };
        for _ in 0..self.config.rollout_steps {
            let acted = self
                .agent
                .act_batch(&observations.iter().collect::<Vec<_>>());
            let step = envs.step(&acted.actions)?;
            self.env_steps += copies as u64;
            let truncated_finals: Vec<&Observation> = step
                .final_observations
                .iter()
                .zip(&step.truncated)
                .filter_map(|(o, &t)| o.as_ref().filter(|_| t))
                .collect();
            let mut final_values = if truncated_finals.is_empty() {
                Vec::new()
            } else {
                self.agent.values(&truncated_finals)
            }
            .into_iter();
            for (i, trajectory) in records.iter_mut().enumerate() {
                trajectory.push(Record {
                    observation: std::mem::replace(
                        &mut observations[i],
                        step.observations[i].clone(),
                    ),
                    action: acted.actions[i].clone(),
                    log_prob: acted.log_probs[i],
                    value: acted.values[i],
                    reward: (step.rewards[i] - rate * step.elapsed_s[i]) as f32,
                    discount: step_discount(
                        self.config.gamma,
                        self.config.discount_time_s,
                        step.elapsed_s[i],
                    ),
                    lambda: self.config.step_lambda(step.elapsed_s[i]),
                    terminated: step.terminated[i],
                    truncated: step.truncated[i],
                    final_value: if step.truncated[i] {
                        final_values.next()
                    } else {
                        None
                    },
                });
            }
            if self.config.differential {
                for (reward, elapsed) in step.rewards.iter().zip(&step.elapsed_s) {
                    self.scale.observe_rate(*reward, *elapsed);
                }
            }
            tally.record(&step);
        }
        if self.config.normalize_rewards {
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
        let last_values = self.agent.values(&observations.iter().collect::<Vec<_>>());
        Ok((records, last_values, tally))
    }

    /// Each rollout step with its GAE advantage and value target; `last_values[copy]`
    /// bootstraps a trajectory the rollout cut off.
    pub(super) fn gae_rows<'a>(
        &self,
        records: &'a [Vec<Record>],
        last_values: &[f32],
    ) -> Vec<(&'a Record, f32, f32)> {
        let mut rows: Vec<(&Record, f32, f32)> = Vec::new();
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
}
