//! How far apart two plans are and how far apart they finish: the Scheduling Plan Distance
//! and Finish Time Gap of Du et al. 2025 (their definitions are not at hand; these are the
//! workbench's, see docs/dag.md, "WORL-RTGS").

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::seq::index::sample;

use super::decoder::Decoder;

/// Scheduling Plan Distance: the share of tasks the two plans place on different GPUs
/// (0 for the same plan, 1 when every task moves).
pub fn spd(a: &[usize], b: &[usize]) -> f64 {
    assert_eq!(a.len(), b.len(), "plans of one problem");
    if a.is_empty() {
        return 0.0;
    }
    a.iter().zip(b).filter(|(x, y)| x != y).count() as f64 / a.len() as f64
}

/// Finish Time Gap: the difference of two makespans relative to the shorter one.
pub fn ftg(makespan_a_s: f64, makespan_b_s: f64) -> f64 {
    (makespan_a_s - makespan_b_s).abs() / makespan_a_s.min(makespan_b_s)
}

/// FTG per unit of SPD, fitted through the origin (least squares) over the pairs seen:
/// what a move of a given distance is expected to change the finish time by.
#[derive(Debug, Clone, Default)]
pub struct GapSlope {
    spd_ftg: f64,
    spd_spd: f64,
}

impl GapSlope {
    pub fn add(&mut self, spd: f64, ftg: f64) {
        self.spd_ftg += spd * ftg;
        self.spd_spd += spd * spd;
    }

    /// The fitted slope; `None` before a pair with a distance above zero.
    pub fn slope(&self) -> Option<f64> {
        (self.spd_spd > 0.0 && self.spd_ftg > 0.0).then(|| self.spd_ftg / self.spd_spd)
    }
}

/// The empirical study behind the Running Time Gap Strategy: `(SPD, FTG)` of `base` against
/// plans made from it by moving a share of its tasks (each share in `shares`, `per_share`
/// plans) to other GPUs that hold them, drawn at random; every plan is scored by `decoder`.
pub fn perturbation_pairs(
    decoder: &mut Decoder,
    base: &[usize],
    shares: &[f64],
    per_share: usize,
    rng: &mut StdRng,
) -> Vec<(f64, f64)> {
    let base_makespan = decoder.makespan_s(base);
    let movable: Vec<usize> = (0..base.len())
        .filter(|&t| decoder.fitting[t].len() > 1)
        .collect();
    let mut pairs = Vec::with_capacity(shares.len() * per_share);
    for &share in shares {
        let count = ((share * base.len() as f64).round() as usize).clamp(1, movable.len().max(1));
        for _ in 0..per_share {
            let mut plan = base.to_vec();
            for k in sample(rng, movable.len(), count.min(movable.len())) {
                let t = movable[k];
                let others: Vec<usize> = decoder.fitting[t]
                    .iter()
                    .copied()
                    .filter(|&g| g != base[t])
                    .collect();
                plan[t] = *others.choose(rng).expect("a movable task has another GPU");
            }
            let makespan = decoder.makespan_s(&plan);
            pairs.push((spd(base, &plan), ftg(base_makespan, makespan)));
        }
    }
    pairs
}

/// Pearson's correlation of the pairs (NaN with fewer than two or no spread).
pub fn pearson(pairs: &[(f64, f64)]) -> f64 {
    let n = pairs.len() as f64;
    let (mx, my) = (
        pairs.iter().map(|p| p.0).sum::<f64>() / n,
        pairs.iter().map(|p| p.1).sum::<f64>() / n,
    );
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in pairs {
        sxy += (x - mx) * (y - my);
        sxx += (x - mx) * (x - mx);
        syy += (y - my) * (y - my);
    }
    sxy / (sxx * syy).sqrt()
}

/// Spearman's rank correlation: Pearson's of the ranks, ties given their mean rank.
pub fn spearman(pairs: &[(f64, f64)]) -> f64 {
    let ranks = |values: Vec<f64>| {
        let mut order: Vec<usize> = (0..values.len()).collect();
        order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
        let mut rank = vec![0.0; values.len()];
        let mut i = 0;
        while i < order.len() {
            let mut j = i;
            while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
                j += 1;
            }
            for &k in &order[i..=j] {
                rank[k] = (i + j) as f64 / 2.0;
            }
            i = j + 1;
        }
        rank
    };
    let x = ranks(pairs.iter().map(|p| p.0).collect());
    let y = ranks(pairs.iter().map(|p| p.1).collect());
    pearson(&x.into_iter().zip(y).collect::<Vec<_>>())
}
