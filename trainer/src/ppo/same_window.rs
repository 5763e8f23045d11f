//! An input-dependent baseline for PPO on workload families (Mao et al., "Variance reduction
//! for reinforcement learning in input-driven environments", ICLR 2019; Decima trains with
//! it): the env copies play whole episodes in groups, every copy of a group on the same seed
//! (the same drawn window, arrivals and noise; only the sampled actions differ), and a
//! decision's advantage is its discounted return-to-go minus the mean, over the group's other
//! rollouts, of their return-to-go from the same virtual time. How hard the drawn window is
//! cancels out, which a critic that sees only the current state cannot do. Leaving the rollout
//! itself out keeps the baseline independent of its actions. Where Decima interpolates the
//! other rollouts' returns in time, this takes each one's return from its first decision at or
//! after that time (0 once its episode has ended).
//!
//! The same comparison serves a heuristic's rollout (`baseline_heuristic`): each copy plays
//! its own seed, a registry heuristic plays the same seed, and a decision's advantage is its
//! return-to-go minus the heuristic's from the same virtual time (the issue's "advantage
//! against a heuristic's rollout on the same window"; the heuristic's actions do not depend
//! on the copy's, so the baseline stays unbiased). Where Decima's rollouts are the policy's
//! own, this one is cheap (no network) and does not drift with the policy.
//!
//! The returns are Monte Carlo over whole episodes, not bootstrapped: meant for envs whose
//! truncation charges what it leaves (the jobs env charges unfinished jobs).

use schedlab_agents::learned::gae::step_discount;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{Policy, SchedulingEnv};
use schedlab_env::{Observation, StepInfo};

use super::record::Record;
use crate::learner::EpisodeTally;
use crate::reward_scale::RewardScale;

/// One copy's episode: its decisions and the virtual time at which each was taken.
pub(crate) struct Played {
    pub records: Vec<Record>,
    pub times: Vec<f64>,
}

/// Plays one whole episode on every copy, copy `c` from `seeds[c]`, stepping the copies that
/// are still playing together (one batched forward pass per step).
pub(crate) fn play<E: SchedulingEnv>(
    copies: &mut [E],
    seeds: &[u64],
    agent: &mut PpoAgent,
    (gamma, discount_time_s): (f64, f64),
    tally: &mut EpisodeTally<E::Metrics>,
) -> schedlab_env::Result<Vec<Played>> {
    let mut observations: Vec<Option<Observation>> = Vec::with_capacity(copies.len());
    let mut clocks = Vec::with_capacity(copies.len());
    for (env, &seed) in copies.iter_mut().zip(seeds) {
        let (observation, info) = env.reset(seed)?;
        observations.push(Some(observation));
        clocks.push(info.time_s());
    }
    let mut played: Vec<Played> = (0..copies.len())
        .map(|_| Played {
            records: Vec::new(),
            times: Vec::new(),
        })
        .collect();
    loop {
        let playing: Vec<usize> = (0..copies.len())
            .filter(|&c| observations[c].is_some())
            .collect();
        if playing.is_empty() {
            return Ok(played);
        }
        let acted = agent.act_batch(
            &playing
                .iter()
                .map(|&c| observations[c].as_ref().expect("playing"))
                .collect::<Vec<_>>(),
        );
        for (k, &c) in playing.iter().enumerate() {
            let step = copies[c].step(&acted.actions[k])?;
            let now = step.info.time_s();
            tally.record_info(&step.info);
            let ended = step.terminated || step.truncated;
            let observation =
                std::mem::replace(&mut observations[c], (!ended).then_some(step.observation))
                    .expect("playing");
            played[c].times.push(clocks[c]);
            played[c].records.push(Record {
                observation,
                action: acted.actions[k].clone(),
                log_prob: acted.log_probs[k],
                value: acted.values[k],
                reward: step.reward as f32,
                elapsed_s: now - clocks[c],
                discount: step_discount(gamma, discount_time_s, now - clocks[c]),
                // whole-episode returns against a baseline: lambda 1
                lambda: 1.0,
                terminated: step.terminated,
                truncated: step.truncated,
                final_value: None,
            });
            clocks[c] = now;
        }
    }
}

/// Lets `scale` see every episode's rewards, then divides all of them by the one spread it
/// reached: the rollouts of a group are compared in one unit, and no copy's rewards change the
/// unit of another's in the same update.
pub(crate) fn scale_rewards(scale: &mut RewardScale, played: &mut [Played]) {
    for (copy, episode) in played.iter().enumerate() {
        for r in &episode.records {
            scale.observe(copy, f64::from(r.reward), r.discount);
        }
        scale.end_episode(copy);
    }
    for r in played.iter_mut().flat_map(|e| e.records.iter_mut()) {
        r.reward = scale.apply(f64::from(r.reward)) as f32;
    }
}

/// A heuristic's episode on a copy's seed: per step, the virtual time before it, its reward
/// and its discount.
#[derive(Debug, PartialEq)]
pub(crate) struct HeuristicRollout {
    times: Vec<f64>,
    rewards: Vec<f32>,
    discounts: Vec<f32>,
}

/// Plays one episode of `policy` on `env` from `seed` (until it ends, cut or not).
pub(crate) fn play_heuristic<E: SchedulingEnv>(
    env: &mut E,
    policy: &mut dyn Policy,
    seed: u64,
    (gamma, discount_time_s): (f64, f64),
) -> schedlab_env::Result<HeuristicRollout> {
    let (mut observation, info) = env.reset(seed)?;
    policy.reset(seed);
    let mut clock = info.time_s();
    let mut rollout = HeuristicRollout {
        times: Vec::new(),
        rewards: Vec::new(),
        discounts: Vec::new(),
    };
    loop {
        let step = env.step(&policy.act(&observation))?;
        let now = step.info.time_s();
        rollout.times.push(clock);
        rollout.rewards.push(step.reward as f32);
        rollout
            .discounts
            .push(step_discount(gamma, discount_time_s, now - clock));
        clock = now;
        if step.terminated || step.truncated {
            return Ok(rollout);
        }
        observation = step.observation;
    }
}

/// Divides the heuristic's rewards by the unit the copies' rewards were scaled by.
pub(crate) fn scale_heuristic(scale: &RewardScale, rollouts: &mut [HeuristicRollout]) {
    for reward in rollouts.iter_mut().flat_map(|r| r.rewards.iter_mut()) {
        *reward = scale.apply(f64::from(*reward)) as f32;
    }
}

/// A rollout's discounted returns-to-go by the virtual time of its decisions.
struct ReturnCurve {
    times: Vec<f64>,
    returns: Vec<f64>,
}

impl ReturnCurve {
    /// `G_t = r_t + gamma_t G_{t+1}` of steps given as (reward, discount).
    fn new(times: &[f64], steps: impl DoubleEndedIterator<Item = (f32, f32)>) -> Self {
        let mut returns: Vec<f64> = steps
            .rev()
            .scan(0.0, |next, (reward, discount)| {
                *next = f64::from(reward) + f64::from(discount) * *next;
                Some(*next)
            })
            .collect();
        returns.reverse();
        ReturnCurve {
            times: times.to_vec(),
            returns,
        }
    }

    fn of_episode(episode: &Played) -> Self {
        Self::new(
            &episode.times,
            episode.records.iter().map(|r| (r.reward, r.discount)),
        )
    }

    fn of_heuristic(rollout: &HeuristicRollout) -> Self {
        Self::new(
            &rollout.times,
            rollout
                .rewards
                .iter()
                .copied()
                .zip(rollout.discounts.iter().copied()),
        )
    }

    /// The return-to-go from virtual time `t`: from the first decision at or after `t`, 0
    /// once the episode has ended.
    fn from(&self, t: f64) -> f64 {
        let k = self.times.partition_point(|&s| s < t);
        self.returns.get(k).copied().unwrap_or(0.0)
    }
}

/// Per episode, its advantages against the mean of its baselines' returns-to-go from the same
/// virtual time, and its returns-to-go (the critic's targets).
fn against(
    played: &[Played],
    curves: &[ReturnCurve],
    baselines: impl Fn(usize) -> Vec<usize>,
    baseline_curves: &[ReturnCurve],
) -> Vec<(Vec<f32>, Vec<f32>)> {
    played
        .iter()
        .enumerate()
        .map(|(c, episode)| {
            let others = baselines(c);
            let advantages = episode
                .times
                .iter()
                .zip(&curves[c].returns)
                .map(|(&t, &g)| {
                    let baseline = others
                        .iter()
                        .map(|&o| baseline_curves[o].from(t))
                        .sum::<f64>()
                        / others.len() as f64;
                    (g - baseline) as f32
                })
                .collect();
            let targets = curves[c].returns.iter().map(|&g| g as f32).collect();
            (advantages, targets)
        })
        .collect()
}

/// Per episode, the advantages against the leave-one-out baseline of its group (consecutive
/// episodes, `group` at a time) and the returns-to-go (the critic's targets).
pub(crate) fn advantages(played: &[Played], group: usize) -> Vec<(Vec<f32>, Vec<f32>)> {
    assert!(
        group >= 2 && played.len().is_multiple_of(group),
        "whole groups of two or more"
    );
    let curves: Vec<ReturnCurve> = played.iter().map(ReturnCurve::of_episode).collect();
    let others = |c: usize| {
        let first = c / group * group;
        (first..first + group).filter(|&o| o != c).collect()
    };
    against(played, &curves, others, &curves)
}

/// Per episode, the advantages against the heuristic's rollout on its seed (`rollouts[c]`
/// for `played[c]`) and the returns-to-go.
pub(crate) fn advantages_against_heuristic(
    played: &[Played],
    rollouts: &[HeuristicRollout],
) -> Vec<(Vec<f32>, Vec<f32>)> {
    assert_eq!(
        played.len(),
        rollouts.len(),
        "one heuristic rollout per episode"
    );
    let curves: Vec<ReturnCurve> = played.iter().map(ReturnCurve::of_episode).collect();
    let heuristic: Vec<ReturnCurve> = rollouts.iter().map(ReturnCurve::of_heuristic).collect();
    against(played, &curves, |c| vec![c], &heuristic)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn episode(times: &[f64], rewards: &[f32]) -> Played {
        let obs = Observation {
            features: vec![0.0],
            action_mask: vec![true],
        };
        Played {
            records: rewards
                .iter()
                .map(|&reward| Record {
                    observation: obs.clone(),
                    action: vec![0],
                    log_prob: 0.0,
                    value: 0.0,
                    reward,
                    elapsed_s: 0.0,
                    discount: 1.0,
                    lambda: 1.0,
                    terminated: false,
                    truncated: false,
                    final_value: None,
                })
                .collect(),
            times: times.to_vec(),
        }
    }

    #[test]
    fn advantages_subtract_the_other_rollouts_return_from_the_same_time() {
        // returns-to-go: a [-6, -5, -3] at t = 0, 10, 20; b [-5, -1] at t = 0, 15
        let a = episode(&[0.0, 10.0, 20.0], &[-1.0, -2.0, -3.0]);
        let b = episode(&[0.0, 15.0], &[-4.0, -1.0]);
        let out = advantages(&[a, b], 2);
        assert_eq!(out[0].1, vec![-6.0, -5.0, -3.0]);
        assert_eq!(out[1].1, vec![-5.0, -1.0]);
        // a at 10 is compared with b from 15 on; at 20 b has ended (nothing left to pay)
        assert_eq!(out[0].0, vec![-1.0, -4.0, -3.0]);
        // b at 15 is compared with a from 20 on
        assert_eq!(out[1].0, vec![1.0, 2.0]);
    }

    #[test]
    fn a_group_is_its_own_baseline_and_groups_do_not_mix() {
        // two groups of two; the second group's costs are a thousand times the first's
        let cheap = |r: f32| episode(&[0.0], &[r]);
        let out = advantages(
            &[cheap(-1.0), cheap(-3.0), cheap(-1000.0), cheap(-3000.0)],
            2,
        );
        let firsts: Vec<f32> = out.iter().map(|(a, _)| a[0]).collect();
        assert_eq!(firsts, vec![2.0, -2.0, 2000.0, -2000.0]);
    }

    #[test]
    fn every_rollout_of_an_update_is_scaled_by_one_spread() {
        let mut played = vec![
            episode(&[0.0, 1.0], &[-1.0, -2.0]),
            episode(&[0.0], &[-50.0]),
        ];
        let raw: Vec<f32> = played
            .iter()
            .flat_map(|e| e.records.iter().map(|r| r.reward))
            .collect();
        let mut scale = RewardScale::new(2);
        scale_rewards(&mut scale, &mut played);
        let ratios: Vec<f32> = played
            .iter()
            .flat_map(|e| e.records.iter().map(|r| r.reward))
            .zip(&raw)
            .map(|(scaled, raw)| raw / scaled)
            .collect();
        // the second copy's large reward widened the spread for the first copy's too
        assert!(ratios[0] > 10.0, "{ratios:?}");
        assert!(
            ratios
                .iter()
                .all(|&r| (r - ratios[0]).abs() < 1e-4 * ratios[0]),
            "{ratios:?}"
        );
    }

    #[test]
    fn returns_to_go_discount_what_follows_each_step() {
        let mut e = episode(&[0.0, 1.0, 2.0], &[1.0, 1.0, 1.0]);
        e.records.iter_mut().for_each(|r| r.discount = 0.5);
        assert_eq!(ReturnCurve::of_episode(&e).returns, vec![1.75, 1.5, 1.0]);
    }

    #[test]
    fn advantages_against_a_heuristic_subtract_its_return_from_the_same_time_on_the_same_seed() {
        // the copies' returns-to-go: a [-6, -5, -3] at t = 0, 10, 20; b [-2] at t = 0
        let a = episode(&[0.0, 10.0, 20.0], &[-1.0, -2.0, -3.0]);
        let b = episode(&[0.0], &[-2.0]);
        // the heuristic on a's seed, halving what follows each step: returns-to-go [-5, -8]
        // at t = 0, 12; on b's seed [-10] at t = 0
        let on_a = HeuristicRollout {
            times: vec![0.0, 12.0],
            rewards: vec![-1.0, -8.0],
            discounts: vec![0.5, 0.5],
        };
        let on_b = HeuristicRollout {
            times: vec![0.0],
            rewards: vec![-10.0],
            discounts: vec![1.0],
        };
        let out = advantages_against_heuristic(&[a, b], &[on_a, on_b]);
        // a at 10 is compared with the heuristic from 12 on, at 20 with nothing left
        assert_eq!(out[0].0, vec![-1.0, 3.0, -3.0]);
        assert_eq!(out[0].1, vec![-6.0, -5.0, -3.0]);
        // each copy against the heuristic on its own seed only
        assert_eq!(out[1].0, vec![8.0]);
    }
}
