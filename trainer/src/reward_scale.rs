//! Reward scaling by the running standard deviation of the discounted return (Gymnasium's
//! `NormalizeReward`, as CleanRL's PPO uses it): the critic's targets stay near unit size
//! whatever the reward's unit and however long the episodes, without shifting the rewards
//! (a shift would change what ending an episode early is worth).

use crate::errors::CheckpointError;

/// Running return per env copy and the running statistics of all of them.
#[derive(Debug, Clone)]
pub struct RewardScale {
    returns: Vec<f64>,
    stats: ReturnStats,
}

/// The running mean and variance of the discounted return: what a checkpoint keeps, so a
/// resumed run scales rewards as the critic learned them (the copies' running returns are
/// in the learner's resume state).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ReturnStats {
    pub count: f64,
    pub mean: f64,
    pub var: f64,
    /// Raw reward and virtual seconds seen so far, for the average reward rate the
    /// differential form subtracts (0 without it, and in checkpoints from before it).
    #[serde(default)]
    pub reward_sum: f64,
    #[serde(default)]
    pub seconds: f64,
}

impl RewardScale {
    pub fn new(copies: usize) -> Self {
        // Gymnasium's starting point: variance 1 (rewards unscaled) with a tiny weight
        RewardScale {
            returns: vec![0.0; copies],
            stats: ReturnStats {
                count: 1e-4,
                mean: 0.0,
                var: 1.0,
                reward_sum: 0.0,
                seconds: 0.0,
            },
        }
    }

    pub fn stats(&self) -> ReturnStats {
        self.stats
    }

    /// Continues from `stats` (a checkpoint's).
    pub fn restore(&mut self, stats: ReturnStats) {
        self.stats = stats;
    }

    /// Each copy's running discounted return.
    pub fn returns(&self) -> &[f64] {
        &self.returns
    }

    /// Continues each copy's running return from `returns` (a checkpoint's resume state).
    pub fn restore_returns(&mut self, returns: Vec<f64>) -> Result<(), CheckpointError> {
        if returns.len() != self.returns.len() {
            return Err(CheckpointError::State(format!(
                "running returns of {} copies, not {}",
                returns.len(),
                self.returns.len()
            )));
        }
        self.returns = returns;
        Ok(())
    }

    /// Adds copy `copy`'s `reward` to its running return (after discounting it by
    /// `discount`) and to the statistics. The trainers pass the step's own discount, where
    /// the exact running return would take the previous step's: the two differ only where
    /// time sets the discount, and only the scale estimate sees it.
    pub fn observe(&mut self, copy: usize, reward: f64, discount: f32) {
        let ret = self.returns[copy] * f64::from(discount) + reward;
        self.returns[copy] = ret;
        // Welford, one sample at a time
        let s = &mut self.stats;
        let total = s.count + 1.0;
        let delta = ret - s.mean;
        s.mean += delta / total;
        s.var = (s.var * s.count + delta * delta * s.count / total) / total;
        s.count = total;
    }

    /// The average reward per virtual second over every step seen by
    /// [`observe_rate`](Self::observe_rate) (0 before any time has passed).
    pub fn reward_rate(&self) -> f64 {
        if self.stats.seconds > 0.0 {
            self.stats.reward_sum / self.stats.seconds
        } else {
            0.0
        }
    }

    /// Adds a step's raw `reward` over `elapsed_s` virtual seconds to the average rate.
    pub fn observe_rate(&mut self, reward: f64, elapsed_s: f64) {
        self.stats.reward_sum += reward;
        self.stats.seconds += elapsed_s;
    }

    pub fn end_episode(&mut self, copy: usize) {
        self.returns[copy] = 0.0;
    }

    /// `reward` in the scaled unit.
    pub fn apply(&self, reward: f64) -> f64 {
        reward / (self.stats.var + 1e-8).sqrt()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reward_rate_is_reward_over_time_and_survives_a_checkpoint() {
        let mut scale = RewardScale::new(2);
        assert_eq!(scale.reward_rate(), 0.0);
        scale.observe_rate(-6.0, 1800.0);
        scale.observe_rate(-3.0, 0.0);
        scale.observe_rate(-9.0, 1800.0);
        assert_eq!(scale.reward_rate(), -18.0 / 3600.0);
        let mut resumed = RewardScale::new(2);
        resumed.restore(scale.stats());
        assert_eq!(resumed.reward_rate(), scale.reward_rate());
    }

    #[test]
    fn scaled_returns_have_about_unit_spread_whatever_the_reward_unit() {
        for unit in [1e-3, 1.0, 1e4] {
            let mut scale = RewardScale::new(1);
            let rewards: Vec<f64> = (0..5000).map(|k| -unit * ((k % 7) as f64 + 1.0)).collect();
            for (k, &r) in rewards.iter().enumerate() {
                scale.observe(0, r, 0.9);
                if k % 50 == 49 {
                    scale.end_episode(0);
                }
            }
            // the discounted return's spread, measured in the scaled unit, is about 1
            let mut ret = 0.0;
            let mut returns = Vec::new();
            for (k, &r) in rewards.iter().enumerate() {
                ret = ret * 0.9 + scale.apply(r);
                returns.push(ret);
                if k % 50 == 49 {
                    ret = 0.0;
                }
            }
            let mean = returns.iter().sum::<f64>() / returns.len() as f64;
            let std = (returns.iter().map(|r| (r - mean).powi(2)).sum::<f64>()
                / returns.len() as f64)
                .sqrt();
            assert!((0.9..1.1).contains(&std), "unit {unit}: spread {std}");
        }
    }
}
