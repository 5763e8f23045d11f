//! A bandit workload, loaded: its mean rewards, its masks and its known optimum.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;

use super::schema::BanditWorkloadSpec;

#[derive(Debug, Clone)]
pub struct BanditWorkload {
    pub spec: BanditWorkloadSpec,
    /// `means[state][dim][level]`: per (state, dim), the evenly spaced values
    /// `0, 1/(levels-1), ..., 1` in an order the spec's seed shuffles, so the best level beats
    /// the next by `1/(levels-1)` and the answer is clear of the noise.
    means: Vec<Vec<Vec<f64>>>,
}

impl BanditWorkload {
    pub(super) fn new(spec: BanditWorkloadSpec) -> Self {
        let b = &spec.bandit;
        let mut rng = StdRng::seed_from_u64(b.seed);
        let means = (0..b.states)
            .map(|_| {
                (0..b.dims)
                    .map(|_| {
                        let top = (b.levels - 1) as f64;
                        let mut means: Vec<f64> = (0..b.levels).map(|l| l as f64 / top).collect();
                        means.shuffle(&mut rng);
                        means
                    })
                    .collect()
            })
            .collect();
        BanditWorkload { spec, means }
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// The mean reward of `level` in dimension `dim` of `state`.
    pub fn mean(&self, state: usize, dim: usize, level: usize) -> f64 {
        self.means[state][dim][level]
    }

    /// The levels `state` allows in `dim`: all but the best one in odd states.
    pub fn allowed(&self, state: usize, dim: usize) -> Vec<bool> {
        let levels = &self.means[state][dim];
        let best = argmax(levels.iter().copied());
        (0..levels.len())
            .map(|level| state.is_multiple_of(2) || level != best)
            .collect()
    }

    /// The best allowed level of every dimension in `state`: the known answer.
    pub fn optimum(&self, state: usize) -> Vec<usize> {
        (0..self.spec.bandit.dims)
            .map(|dim| {
                let allowed = self.allowed(state, dim);
                let means = &self.means[state][dim];
                argmax((0..means.len()).map(|l| if allowed[l] { means[l] } else { f64::MIN }))
            })
            .collect()
    }

    /// The mean reward `action` forgoes against the optimum in `state`.
    pub fn regret(&self, state: usize, action: &[usize]) -> f64 {
        let best = self.optimum(state);
        (0..action.len())
            .map(|d| self.mean(state, d, best[d]) - self.mean(state, d, action[d]))
            .sum()
    }
}

fn argmax(values: impl Iterator<Item = f64>) -> usize {
    values
        .enumerate()
        .fold(
            (0, f64::MIN),
            |best, (i, v)| if v > best.1 { (i, v) } else { best },
        )
        .0
}
