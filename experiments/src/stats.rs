//! Summary statistics over seeds: mean, sample standard deviation, a 95% confidence interval
//! of the mean (Student's t), Welch's unequal-variance t-test, the paired t and Wilcoxon
//! signed-rank tests, and rliable's aggregates (IQM, stratified bootstrap intervals,
//! probability of improvement: Agarwal et al., "Deep Reinforcement Learning at the Edge of
//! the Statistical Precipice", NeurIPS 2021).

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// Mean, sample standard deviation and 95% confidence half-width of `values`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 for one value.
    pub std: f64,
    /// Half-width of the 95% confidence interval of the mean; NaN below two values.
    pub ci95: f64,
}

/// The middle value (the upper of the two middle ones for an even count), as the benchmarks
/// report times.
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

pub fn summarize(values: &[f64]) -> Summary {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n.max(1) as f64;
    if n < 2 {
        return Summary {
            n,
            mean,
            std: 0.0,
            ci95: f64::NAN,
        };
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let std = var.sqrt();
    Summary {
        n,
        mean,
        std,
        ci95: t_975((n - 1) as f64) * std / (n as f64).sqrt(),
    }
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom (the two-sided 5% point);
/// NaN unless `df` is positive.
fn t_975(df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).map_or(f64::NAN, |t| t.inverse_cdf(0.975))
}

/// Welch's critical difference for `values`: how far another sample's mean must lie from
/// theirs for Welch's test to give p < 0.05, were that sample's spread and count the same.
/// NaN below two values.
pub fn welch_critical_difference(values: &[f64]) -> f64 {
    let s = summarize(values);
    if s.n < 2 {
        return f64::NAN;
    }
    let n = s.n as f64;
    t_975(2.0 * (n - 1.0)) * (2.0 * s.std * s.std / n).sqrt()
}

/// Welch's t-test of equal means: `(t, degrees of freedom, two-sided p-value)`. NaN when a side
/// has fewer than two values; with no variance on either side, p is 1 for equal means and 0
/// otherwise.
pub fn welch(a: &[f64], b: &[f64]) -> (f64, f64, f64) {
    if a.len() < 2 || b.len() < 2 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let (sa, sb) = (summarize(a), summarize(b));
    let (va, vb) = (sa.std.powi(2) / sa.n as f64, sb.std.powi(2) / sb.n as f64);
    let diff = sa.mean - sb.mean;
    if va + vb == 0.0 {
        let p = if diff == 0.0 { 1.0 } else { 0.0 };
        return (f64::NAN, f64::NAN, p);
    }
    let t = diff / (va + vb).sqrt();
    let df = (va + vb).powi(2) / (va.powi(2) / (sa.n - 1) as f64 + vb.powi(2) / (sb.n - 1) as f64);
    // NaN values give NaN degrees of freedom, and so no p-value
    let Ok(dist) = StudentsT::new(0.0, 1.0, df) else {
        return (t, df, f64::NAN);
    };
    (t, df, 2.0 * (1.0 - dist.cdf(t.abs())))
}

/// The smallest two-sided Welch p against `other` that any sample can reach whose values lie
/// at or above `floor`, value by value, and whose mean is lower than `other`'s: the most a
/// scheduler can show against `other` when `floor` holds per-episode lower bounds. For each
/// mean, the spread is least at `max(floor_i, c)` (water-filling), so t is largest on that
/// one-parameter family, searched here on a fine grid of `c`; p is taken at Welch's largest
/// possible degrees of freedom (both counts less two), so it never overstates the floor. 1
/// where no such sample has a lower mean; NaN below two values on a side.
pub fn welch_floor(floor: &[f64], other: &[f64]) -> f64 {
    if floor.len() < 2 || other.len() < 2 {
        return f64::NAN;
    }
    let (o, n) = (summarize(other), floor.len() as f64);
    let vo = o.std.powi(2) / o.n as f64;
    let lowest = floor.iter().copied().fold(f64::INFINITY, f64::min);
    const STEPS: usize = 20_000;
    let t = (0..=STEPS)
        .map(|k| {
            let c = lowest + (o.mean - lowest) * k as f64 / STEPS as f64;
            let lifted: Vec<f64> = floor.iter().map(|b| b.max(c)).collect();
            let s = summarize(&lifted);
            (o.mean - s.mean) / (s.std.powi(2) / n + vo).sqrt()
        })
        .fold(f64::NEG_INFINITY, f64::max);
    if t.is_nan() || t <= 0.0 {
        return 1.0;
    }
    let dist = StudentsT::new(0.0, 1.0, n + o.n as f64 - 2.0).expect("n >= 2");
    2.0 * (1.0 - dist.cdf(t))
}

/// The paired t-test of equal means over matched pairs `(a_i, b_i)`: the two-sided p-value of
/// the mean difference. NaN below two pairs or when the lengths differ; with every difference
/// equal, 1 if they are 0 and 0 otherwise.
pub fn paired(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() || a.len() < 2 {
        return f64::NAN;
    }
    let differences: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let s = summarize(&differences);
    if s.std == 0.0 {
        return if s.mean == 0.0 { 1.0 } else { 0.0 };
    }
    let t = s.mean / (s.std / (s.n as f64).sqrt());
    let dist = StudentsT::new(0.0, 1.0, (s.n - 1) as f64).expect("n >= 2");
    2.0 * (1.0 - dist.cdf(t.abs()))
}

/// The ranks of the nonzero differences `a_i - b_i` by magnitude (ties sharing their mean
/// rank): how many, the sum of the ranks of the positive ones, and the tie term (the sum of
/// t^3 - t over runs of t equal magnitudes).
struct SignedRanks {
    n: usize,
    positive_sum: f64,
    ties: f64,
}

fn signed_ranks(a: &[f64], b: &[f64]) -> SignedRanks {
    let mut differences: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| x - y)
        .filter(|d| *d != 0.0)
        .collect();
    let n = differences.len();
    differences.sort_by(|x, y| x.abs().total_cmp(&y.abs()));
    let (mut positive_sum, mut ties) = (0.0, 0.0);
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && differences[end].abs() == differences[start].abs() {
            end += 1;
        }
        let rank = (start + end + 1) as f64 / 2.0;
        let t = (end - start) as f64;
        ties += t * t * t - t;
        positive_sum += rank * differences[start..end].iter().filter(|d| **d > 0.0).count() as f64;
        start = end;
    }
    SignedRanks {
        n,
        positive_sum,
        ties,
    }
}

/// Whether the signed ranks favour `a` being the lower: the ranks of the pairs where `a_i <
/// b_i` sum to more than those where it is higher (the side a two-sided Wilcoxon p speaks
/// for).
pub fn signed_ranks_favour_lower(a: &[f64], b: &[f64]) -> bool {
    let SignedRanks {
        n, positive_sum, ..
    } = signed_ranks(a, b);
    let total = (n * (n + 1)) as f64 / 2.0;
    total - positive_sum > positive_sum
}

/// The Wilcoxon signed-rank test over matched pairs `(a_i, b_i)`: the two-sided p-value that
/// the differences are symmetric about 0. Zero differences are dropped (Wilcoxon's rule) and
/// tied magnitudes share their mean rank. Exact (the null distribution of the positive rank
/// sum, every sign equally likely) up to 50 pairs without ties, as SciPy does; otherwise the
/// normal approximation with the tie correction of the variance and a continuity correction.
/// NaN when the lengths differ or nothing is paired; 1 when every difference is 0.
pub fn wilcoxon(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return f64::NAN;
    }
    let SignedRanks {
        n,
        positive_sum,
        ties,
    } = signed_ranks(a, b);
    if n == 0 {
        return 1.0;
    }
    let nf = n as f64;
    let total = nf * (nf + 1.0) / 2.0;
    if ties == 0.0 && n <= 50 {
        // counts[s]: sign patterns whose positive ranks sum to s
        let mut counts = vec![0.0f64; total as usize + 1];
        counts[0] = 1.0;
        for rank in 1..=n {
            for s in (rank..counts.len()).rev() {
                counts[s] += counts[s - rank];
            }
        }
        let patterns = 2f64.powi(n as i32);
        let extreme = positive_sum.min(total - positive_sum) as usize;
        let tail: f64 = counts[..=extreme].iter().sum::<f64>() / patterns;
        return (2.0 * tail).min(1.0);
    }
    let mean = total / 2.0;
    let variance = nf * (nf + 1.0) * (2.0 * nf + 1.0) / 24.0 - ties / 48.0;
    if variance <= 0.0 {
        return 1.0;
    }
    let z = ((positive_sum - mean).abs() - 0.5).max(0.0) / variance.sqrt();
    let normal = Normal::new(0.0, 1.0).expect("a standard normal");
    (2.0 * (1.0 - normal.cdf(z))).min(1.0)
}

/// The interquartile mean (rliable's IQM, SciPy's `trim_mean(x, 0.25)`): the mean of what
/// is left after cutting `floor(n / 4)` values from each end of the sorted values. NaN for
/// none.
pub fn iqm(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let cut = sorted.len() / 4;
    let kept = &sorted[cut..sorted.len() - cut];
    kept.iter().sum::<f64>() / kept.len() as f64
}

/// A 95% percentile interval of `statistic` over the pooled values of `strata` (rliable's
/// stratified bootstrap): each of `resamples` draws every stratum's values again with
/// replacement, within the stratum, from `seed`.
pub fn stratified_bootstrap_ci(
    strata: &[Vec<f64>],
    statistic: fn(&[f64]) -> f64,
    resamples: usize,
    seed: u64,
) -> (f64, f64) {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut draws: Vec<f64> = (0..resamples)
        .map(|_| {
            let pooled: Vec<f64> = strata
                .iter()
                .flat_map(|stratum| {
                    (0..stratum.len())
                        .map(|_| stratum[rng.random_range(0..stratum.len())])
                        .collect::<Vec<_>>()
                })
                .collect();
            statistic(&pooled)
        })
        .collect();
    draws.sort_by(f64::total_cmp);
    let at = |q: f64| draws[((q * (resamples - 1) as f64).round() as usize).min(resamples - 1)];
    (at(0.025), at(0.975))
}

/// The probability that a run of `a` scores lower (better, as a JCT does) than a run of `b`
/// on the same stratum, ties counting half, averaged over the strata (rliable's probability
/// of improvement, with the Mann-Whitney statistic per task). NaN without strata.
pub fn probability_of_improvement(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let per_stratum: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| !x.is_empty() && !y.is_empty())
        .map(|(x, y)| {
            let wins: f64 = x
                .iter()
                .flat_map(|xi| {
                    y.iter().map(move |yj| match xi.total_cmp(yj) {
                        std::cmp::Ordering::Less => 1.0,
                        std::cmp::Ordering::Equal => 0.5,
                        std::cmp::Ordering::Greater => 0.0,
                    })
                })
                .sum();
            wins / (x.len() * y.len()) as f64
        })
        .collect();
    per_stratum.iter().sum::<f64>() / per_stratum.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight values: two cut from each end, the middle four averaged; five values: one cut.
    #[test]
    fn iqm_trims_a_quarter_from_each_end() {
        assert_eq!(iqm(&[100.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -50.0]), 3.5);
        assert_eq!(iqm(&[1.0, 2.0, 3.0, 4.0, 1000.0]), 3.0);
        assert_eq!(iqm(&[7.0]), 7.0);
    }

    #[test]
    fn the_stratified_bootstrap_resamples_within_strata_and_is_seeded() {
        // strata of constant values: every resample pools the same values
        let constant = vec![vec![1.0; 4], vec![3.0; 4]];
        assert_eq!(stratified_bootstrap_ci(&constant, iqm, 200, 1), (2.0, 2.0));
        let spread = vec![vec![1.0, 2.0, 3.0, 4.0], vec![10.0, 20.0, 30.0, 40.0]];
        let (low, high) = stratified_bootstrap_ci(&spread, iqm, 500, 7);
        assert!(
            low < iqm(&spread.concat()) && iqm(&spread.concat()) < high,
            "{low} {high}"
        );
        // the same seed gives the same interval
        assert_eq!(stratified_bootstrap_ci(&spread, iqm, 500, 7), (low, high));
    }

    /// Stratum 1: a = {1, 2} against b = {2, 3}: pairs (1,2) (1,3) (2,3) win, (2,2) ties:
    /// 3.5 / 4. Stratum 2: a always worse: 0. Mean 0.4375.
    #[test]
    fn probability_of_improvement_counts_lower_as_better_per_stratum() {
        let a = vec![vec![1.0, 2.0], vec![9.0]];
        let b = vec![vec![2.0, 3.0], vec![1.0]];
        assert_eq!(probability_of_improvement(&a, &b), 0.4375);
        assert_eq!(probability_of_improvement(&b, &b), 0.5);
    }

    /// Five differences, all positive and distinct: W+ = 15, the largest of 2^5 equally
    /// likely sign patterns, so the exact two-sided p is 2/32; one sign flipped on the
    /// smallest gives W+ = 14, reached by 2 patterns of 32 at or beyond it: 4/32.
    #[test]
    fn wilcoxon_exact_matches_the_hand_counted_null() {
        let b = [0.0; 5];
        assert!((wilcoxon(&[1.0, 2.0, 3.0, 4.0, 5.0], &b) - 2.0 / 32.0).abs() < 1e-12);
        assert!((wilcoxon(&[-1.0, 2.0, 3.0, 4.0, 5.0], &b) - 4.0 / 32.0).abs() < 1e-12);
        // symmetric in the roles of a and b, zero differences dropped
        assert_eq!(
            wilcoxon(&[0.0; 6], &[1.0, 2.0, 3.0, 4.0, 5.0, 0.0]),
            2.0 / 32.0
        );
        assert_eq!(wilcoxon(&[1.0, 2.0], &[1.0, 2.0]), 1.0);
        assert!(wilcoxon(&[1.0], &[1.0, 2.0]).is_nan());
    }

    /// Ties: differences 1, 1, 2, -3 have ranks 1.5, 1.5, 3, 4, so W+ = 6 of 10; mean 5,
    /// variance 4 x 5 x 9 / 24 - (2^3 - 2) / 48 = 7.375, z = (|6 - 5| - 0.5) / sqrt(7.375).
    #[test]
    fn wilcoxon_with_ties_uses_the_corrected_normal_approximation() {
        let z: f64 = 0.5 / 7.375f64.sqrt();
        let expected = 2.0 * (1.0 - Normal::new(0.0, 1.0).unwrap().cdf(z));
        let p = wilcoxon(&[1.0, 1.0, 2.0, -3.0], &[0.0; 4]);
        assert!((p - expected).abs() < 1e-12, "{p} vs {expected}");
        // far more pairs all one way: vanishing p
        let a: Vec<f64> = (1..=80).map(f64::from).collect();
        assert!(wilcoxon(&a, &vec![0.0; 80]) < 1e-10);
    }

    /// Two samples of 4 with variance 5/3: the difference whose Welch t is the 97.5% point on
    /// 6 degrees of freedom (2.446912) is 2.446912 x sqrt(2 x 5/3 / 4).
    #[test]
    fn welch_critical_difference_is_where_welch_reaches_p_005() {
        let values = [1.0, 2.0, 3.0, 4.0];
        let d = welch_critical_difference(&values);
        assert!(
            (d - 2.446912 * (2.0 * 5.0 / 3.0 / 4.0f64).sqrt()).abs() < 1e-5,
            "{d}"
        );
        let shifted: Vec<f64> = values.iter().map(|v| v + d).collect();
        assert!((welch(&shifted, &values).2 - 0.05).abs() < 1e-6);
        assert!(welch_critical_difference(&[1.0]).is_nan());
    }

    /// Differences 1, 2, 3, 4: t = 2.5 / (sqrt(5/3) / 2) = 3.873 on 3 degrees of freedom,
    /// p from the closed-form t CDF of 3 degrees of freedom.
    #[test]
    fn paired_matches_a_hand_computed_example() {
        let p = paired(&[11.0, 12.0, 13.0, 14.0], &[10.0, 10.0, 10.0, 10.0]);
        assert!((p - 0.030466).abs() < 1e-5, "{p}");
        assert!(paired(&[1.0, 2.0], &[1.0]).is_nan());
        assert_eq!(paired(&[2.0, 3.0], &[1.0, 2.0]), 0.0);
        assert_eq!(paired(&[2.0, 3.0], &[2.0, 3.0]), 1.0);
    }

    /// A floor far below the other sample leaves a small p, one at its level leaves none, and
    /// no sample above the floor does better than the floor's own reach.
    #[test]
    fn welch_floor_is_the_least_p_a_sample_above_the_floor_reaches() {
        let other = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0];
        assert!(welch_floor(&[1.0; 6], &other) < 0.01);
        assert_eq!(welch_floor(&[70.0; 6], &other), 1.0);
        // one hard episode: its bound alone keeps the mean up and the spread wide
        let floor = [1.0, 1.0, 1.0, 1.0, 1.0, 150.0];
        let reach = welch_floor(&floor, &other);
        assert!(
            reach > 0.05 && reach <= welch(&floor, &other).2 + 1e-12,
            "{reach}"
        );
        // every lifted sample whose mean stays below the other's (c up to 10)
        for c in [1.0, 4.0, 7.0, 10.0] {
            let lifted: Vec<f64> = floor.iter().map(|b| b.max(c)).collect();
            assert!(welch(&lifted, &other).2 >= reach - 1e-9, "c = {c}");
        }
    }

    /// Wikipedia's first Welch example ("Welch's t-test", unequal sample variances); t, the
    /// degrees of freedom and p computed by hand (p by numerical integration of the t density).
    #[test]
    fn welch_matches_a_hand_computed_example() {
        let a = [
            27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7,
            21.4,
        ];
        let b = [
            27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5,
            24.4,
        ];
        let (t, df, p) = welch(&a, &b);
        assert!((t - -2.455_356).abs() < 1e-5, "{t}");
        assert!((df - 24.988_53).abs() < 1e-4, "{df}");
        assert!((p - 0.021_378).abs() < 1e-5, "{p}");
        // symmetric in its sides
        let (t2, _, p2) = welch(&b, &a);
        assert!((t2 + t).abs() < 1e-12 && (p2 - p).abs() < 1e-12);
    }

    #[test]
    fn confidence_intervals_use_the_t_quantile_and_degenerate_cases_are_explicit() {
        // n = 2: t(0.975, 1) = 12.706; std of [1, 3] = sqrt(2)
        let s = summarize(&[1.0, 3.0]);
        assert_eq!((s.n, s.mean), (2, 2.0));
        assert!(
            (s.ci95 - 12.706_2 * 2f64.sqrt() / 2f64.sqrt()).abs() < 1e-3,
            "{s:?}"
        );
        assert!(summarize(&[5.0]).ci95.is_nan());
        assert_eq!(welch(&[1.0, 1.0], &[1.0, 1.0]).2, 1.0);
        assert_eq!(welch(&[1.0, 1.0], &[2.0, 2.0]).2, 0.0);
        assert!(welch(&[1.0], &[2.0, 3.0]).2.is_nan());
    }
}
