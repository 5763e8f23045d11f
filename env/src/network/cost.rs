//! A centre's cost of CPUs and the centralised optimum of their allocation.
//!
//! Centre `i` rents `x` CPUs at `price` and values the time its local training takes on them:
//! with the workbench's Amdahl model of effective cores (`env/src/single_job/sim/cost.rs`,
//! `c / (1 + s (c - 1))`), a local epoch of `work` single-core seconds takes
//! `work (s + (1 - s) / x)`, so `f(x) = price x + time_value work (s + (1 - s) / x)`: strictly
//! convex for `x > 0` and `s < 1`. The bounds `m <= x <= M` enter as a smooth quadratic
//! penalty `penalty / 2 (max(0, m - x)^2 + max(0, x - M)^2)`, which keeps the dynamics a plain
//! gradient flow; the reference optimum is of the same penalised cost.

use rand::RngExt;
use rand::rngs::StdRng;

/// One centre's cost.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CentreCost {
    /// Price of one CPU for one iteration.
    pub price: f64,
    /// Single-core seconds of one local epoch.
    pub work_s: f64,
    /// Amdahl's serial share `s` in `[0, 1)`.
    pub serial: f64,
    /// What a second of training time costs.
    pub time_value: f64,
    /// Bounds on the CPUs.
    pub min: f64,
    pub max: f64,
    /// Curvature of the bound penalty.
    pub penalty: f64,
}

impl CentreCost {
    /// Seconds of one local epoch on `x` CPUs.
    pub fn epoch_s(&self, x: f64) -> f64 {
        self.work_s * (self.serial + (1.0 - self.serial) / x)
    }

    /// The cost without the bound penalty.
    pub fn cost(&self, x: f64) -> f64 {
        self.price * x + self.time_value * self.epoch_s(x)
    }

    /// The penalised cost the allocation minimises.
    pub fn penalised(&self, x: f64) -> f64 {
        let out = (self.min - x).max(0.0) + (x - self.max).max(0.0);
        self.cost(x) + 0.5 * self.penalty * out * out
    }

    /// The penalised cost's derivative (the marginal cost).
    pub fn marginal(&self, x: f64) -> f64 {
        let a = self.time_value * self.work_s * (1.0 - self.serial);
        let bound = (x - self.max).max(0.0) - (self.min - x).max(0.0);
        self.price - a / (x * x) + self.penalty * bound
    }

    /// The penalised cost's second derivative.
    pub fn curvature(&self, x: f64) -> f64 {
        let a = self.time_value * self.work_s * (1.0 - self.serial);
        let outside = if x < self.min || x > self.max {
            self.penalty
        } else {
            0.0
        };
        2.0 * a / (x * x * x) + outside
    }

    /// The allocation whose marginal cost is `lambda` (the marginal rises strictly).
    pub fn at_marginal(&self, lambda: f64) -> f64 {
        let (mut lo, mut hi) = (f64::MIN_POSITIVE, self.max.max(1.0));
        while self.marginal(hi) < lambda {
            hi *= 2.0;
        }
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.marginal(mid) < lambda {
                lo = mid;
            } else {
                hi = mid;
            }
            if hi - lo <= 1e-15 * hi {
                break;
            }
        }
        0.5 * (lo + hi)
    }
}

/// `n` centres' costs drawn from a seed (a generator, not data): price 0.5-2 per CPU, 50-500
/// single-core seconds of work, serial share 0.05-0.3, time valued at 1 per second, at least 4
/// CPUs and at most a draw from `max_cpus` (inclusive of both ends when equal), penalty 10.
pub fn sampled_costs(n: usize, max_cpus: (f64, f64), rng: &mut StdRng) -> Vec<CentreCost> {
    (0..n)
        .map(|_| CentreCost {
            price: rng.random_range(0.5..2.0),
            work_s: rng.random_range(50.0..500.0),
            serial: rng.random_range(0.05..0.3),
            time_value: 1.0,
            min: 4.0,
            max: rng.random_range(max_cpus.0..=max_cpus.1),
            penalty: 10.0,
        })
        .collect()
}

/// The centralised optimum of `sum_i penalised_i(x_i)` subject to `sum_i x_i = demand`: the
/// KKT point, all marginal costs equal, found by bisection on the common marginal.
pub fn optimum(costs: &[CentreCost], demand: f64) -> (Vec<f64>, f64) {
    let total = |lambda: f64| costs.iter().map(|c| c.at_marginal(lambda)).sum::<f64>();
    let (mut lo, mut hi) = (-1.0, 1.0);
    while total(lo) > demand {
        lo *= 2.0;
    }
    while total(hi) < demand {
        hi *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if total(mid) < demand {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-15 * hi.abs().max(1.0) {
            break;
        }
    }
    let lambda = 0.5 * (lo + hi);
    (
        costs.iter().map(|c| c.at_marginal(lambda)).collect(),
        lambda,
    )
}

/// The total penalised cost of an allocation.
pub fn total_cost(costs: &[CentreCost], x: &[f64]) -> f64 {
    costs.iter().zip(x).map(|(c, &x)| c.penalised(x)).sum()
}
