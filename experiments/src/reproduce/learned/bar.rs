//! The bar a learned row of `reproduce learned` must meet against the best heuristic, on the
//! same (window, seed) episodes: a lower mean JCT, a two-sided Wilcoxon signed-rank p < 0.05
//! on the row's side (its lower episodes outrank its higher ones: a mean pulled down by a few
//! large windows while most episodes are significantly higher does not pass), every job
//! finished and training within the budget. Paired, because window difficulty
//! dominates the spread and Welch's test cannot see through it (Welch and the paired t stay
//! as extra columns). Aggregates as rliable recommends (Agarwal et al., "Deep Reinforcement
//! Learning at the Edge of the Statistical Precipice", NeurIPS 2021): the IQM of per-episode
//! JCT ratios with a stratified bootstrap CI (windows as strata) and the probability of
//! improvement.

use std::collections::BTreeMap;

use crate::output::p_text;
use crate::reproduce::context::mean;
use crate::stats::{
    iqm, paired, probability_of_improvement, signed_ranks_favour_lower, stratified_bootstrap_ci,
    welch, welch_critical_difference, wilcoxon,
};

/// Bootstrap resamples of each interval.
pub(in crate::reproduce) const RESAMPLES: usize = 2000;

/// A row's episodes against the best heuristic's on the same (window, seed).
#[derive(Debug, Clone, PartialEq)]
pub(in crate::reproduce) struct Paired {
    /// Mean JCT change, percent.
    pub change: f64,
    pub wilcoxon: f64,
    /// Whether the signed ranks favour the row (the side the two-sided Wilcoxon p is about).
    pub ranks_favour_row: bool,
    pub welch: f64,
    pub paired_t: f64,
    /// IQM of the per-episode ratios of mean JCT (row over best), and its 95% CI.
    pub iqm_ratio: f64,
    pub ci: (f64, f64),
    /// The probability that an episode of the row has the lower mean JCT.
    pub improvement: f64,
    /// Episodes lower and higher than the best heuristic's.
    pub lower: usize,
    pub higher: usize,
}

/// Compares `row` with `best`, each (window, seed) -> the episode's mean JCT, over the
/// episodes both played.
pub(in crate::reproduce) fn compare(
    row: &BTreeMap<(String, u64), f64>,
    best: &BTreeMap<(String, u64), f64>,
) -> Paired {
    let pairs: Vec<(&str, f64, f64)> = row
        .iter()
        .filter_map(|(key, &a)| best.get(key).map(|&b| (key.0.as_str(), a, b)))
        .collect();
    let a: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let b: Vec<f64> = pairs.iter().map(|p| p.2).collect();
    let per_window = |value: &dyn Fn(f64, f64) -> f64| -> Vec<Vec<f64>> {
        let mut strata: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for &(window, x, y) in &pairs {
            strata.entry(window).or_default().push(value(x, y));
        }
        strata.into_values().collect()
    };
    let ratios = per_window(&|x, y| x / y);
    Paired {
        change: 100.0 * (mean(&a) / mean(&b) - 1.0),
        wilcoxon: wilcoxon(&a, &b),
        ranks_favour_row: signed_ranks_favour_lower(&a, &b),
        welch: welch(&a, &b).2,
        paired_t: paired(&a, &b),
        iqm_ratio: iqm(&ratios.concat()),
        ci: stratified_bootstrap_ci(&ratios, iqm, RESAMPLES, 0),
        improvement: probability_of_improvement(&per_window(&|x, _| x), &per_window(&|_, y| y)),
        lower: pairs.iter().filter(|p| p.1 < p.2).count(),
        higher: pairs.iter().filter(|p| p.1 > p.2).count(),
    }
}

impl Paired {
    /// `| IQM ratio [CI] | P(better) | Wilcoxon p | Welch p | paired p |` cells.
    pub(super) fn cells(&self) -> String {
        format!(
            "{:.3} [{:.3}, {:.3}] | {:.2} | {} | {} | {}",
            self.iqm_ratio,
            self.ci.0,
            self.ci.1,
            self.improvement,
            p_text(self.wilcoxon),
            p_text(self.welch),
            p_text(self.paired_t),
        )
    }
}

/// A learned row against the bar.
pub(super) struct Verdict {
    pub label: String,
    pub paired: Paired,
    /// Jobs of the held-out episodes it left unfinished.
    pub unfinished: usize,
    pub within_budget: bool,
}

impl Verdict {
    pub(super) fn meets_the_bar(&self) -> bool {
        self.paired.change < 0.0
            && self.paired.wilcoxon < 0.05
            && self.paired.ranks_favour_row
            && self.unfinished == 0
            && self.within_budget
    }
}

/// Which learned rows meet the bar, or how close the closest comes; `best_unfinished`: the
/// jobs the best heuristic left unfinished, for comparison.
pub(super) fn reading(best: &str, best_unfinished: usize, verdicts: &[Verdict]) -> String {
    let winners: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.meets_the_bar())
        .map(|v| v.label.as_str())
        .collect();
    let mut text = if winners.is_empty() {
        format!("No learned row meets the bar against `{best}`.")
    } else {
        format!("Meets the bar against `{best}`: {}.", winners.join(", "))
    };
    let Some(closest) = verdicts
        .iter()
        .filter(|v| !v.meets_the_bar())
        .min_by(|a, b| a.paired.change.total_cmp(&b.paired.change))
    else {
        return text;
    };
    let c = &closest.paired;
    let mut why = Vec::new();
    if c.change >= 0.0 {
        why.push(format!("its mean JCT is {:+.1}%", c.change));
    } else if c.wilcoxon >= 0.05 {
        why.push(format!(
            "its mean JCT is {:.1}% lower but Wilcoxon p is {:.2}",
            -c.change, c.wilcoxon
        ));
    } else if !c.ranks_favour_row {
        why.push(format!(
            "its mean JCT is {:.1}% lower, but the signed-rank test (p = {:.3}) finds its episodes the higher",
            -c.change, c.wilcoxon
        ));
    } else {
        why.push(format!("its mean JCT is {:.1}% lower", -c.change));
    }
    if closest.unfinished > 0 {
        why.push(format!(
            "{} jobs are left unfinished (`{best}` leaves {best_unfinished})",
            closest.unfinished
        ));
    }
    if !closest.within_budget {
        why.push("its training exceeded the budget".into());
    }
    text += &format!(
        " The closest {} is {} ({}; lower in {} episodes, higher in {}).",
        if winners.is_empty() {
            "row"
        } else {
            "other row"
        },
        closest.label,
        why.join(", "),
        c.lower,
        c.higher,
    );
    text
}

/// How much lower a row's mean JCT must be for Welch's test to give p < 0.05 against `best`,
/// were its spread and count the best heuristic's (large when window difficulty dominates).
pub(super) fn detectable(best: &[f64]) -> String {
    let change = welch_critical_difference(best) / mean(best);
    if change.is_nan() {
        return String::new();
    }
    format!(
        "With the best heuristic's spread over these episodes, Welch p < 0.05 would need a mean JCT at least {:.0}% lower; the paired test needs no such margin.",
        100.0 * change
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn episodes(values: &[(&str, u64, f64)]) -> BTreeMap<(String, u64), f64> {
        values
            .iter()
            .map(|&(w, s, v)| ((w.to_owned(), s), v))
            .collect()
    }

    #[test]
    fn a_row_lower_on_every_paired_episode_meets_the_bar_and_one_unfinished_job_fails_it() {
        // two windows of very different difficulty: Welch cannot see a 10% gain, pairing can
        let best: Vec<(&str, u64, f64)> = (0..8)
            .map(|s| ("easy", s, 100.0 + s as f64))
            .chain((0..8).map(|s| ("hard", s, 10_000.0 + 1000.0 * s as f64)))
            .collect();
        let row: Vec<(&str, u64, f64)> = best.iter().map(|&(w, s, v)| (w, s, 0.9 * v)).collect();
        let p = compare(&episodes(&row), &episodes(&best));
        assert!((p.change + 10.0).abs() < 1e-9);
        assert!(p.wilcoxon < 0.001 && p.welch > 0.05, "{p:?}");
        let near = |x: f64| (x - 0.9).abs() < 1e-12;
        assert!(near(p.iqm_ratio) && near(p.ci.0) && near(p.ci.1), "{p:?}");
        assert_eq!((p.lower, p.higher), (16, 0));
        // every easy episode of the row beats every easy one of best (1.0); on the hard
        // window 0.9 (10000 + 1000 i) < 10000 + 1000 j holds for 43 of the 64 (i, j)
        assert!(
            (p.improvement - (1.0 + 43.0 / 64.0) / 2.0).abs() < 1e-12,
            "{p:?}"
        );
        let verdict = |unfinished| Verdict {
            label: "ppo".into(),
            paired: p.clone(),
            unfinished,
            within_budget: true,
        };
        assert!(verdict(0).meets_the_bar());
        assert!(!verdict(1).meets_the_bar());
        assert!(reading("raes", 0, &[verdict(1)]).contains("1 jobs are left unfinished"));
    }

    /// Twelve episodes 1..12 s higher and one 5,000 s lower: the mean is lower (482.9 against
    /// 861.5), and the signed ranks (W+ = 78, W- = 13 of 91; sums of distinct parts up to 13
    /// number 88, so the exact p is 2 x 88 / 2^13 = 0.0215) are significant for the best.
    #[test]
    fn a_mean_pulled_down_by_one_episode_does_not_meet_the_bar() {
        let best: Vec<(&str, u64, f64)> = (0..12)
            .map(|s| ("w", s, 100.0))
            .chain([("big", 0, 10_000.0)])
            .collect();
        let row: Vec<(&str, u64, f64)> = (0..12)
            .map(|s| ("w", s, 101.0 + s as f64))
            .chain([("big", 0, 5_000.0)])
            .collect();
        let p = compare(&episodes(&row), &episodes(&best));
        assert!(p.change < 0.0, "{p:?}");
        assert!((p.wilcoxon - 2.0 * 88.0 / 8192.0).abs() < 1e-12, "{p:?}");
        assert!(!p.ranks_favour_row);
        let verdict = Verdict {
            label: "ppo".into(),
            paired: p,
            unfinished: 0,
            within_budget: true,
        };
        assert!(!verdict.meets_the_bar());
        assert!(reading("raes", 0, &[verdict]).contains("finds its episodes the higher"));
    }

    #[test]
    fn episodes_pair_by_window_and_seed_only() {
        let best = episodes(&[("a", 0, 10.0), ("a", 1, 20.0), ("b", 0, 30.0)]);
        // the row played one more episode and lacks one: only the two shared pairs count
        let row = episodes(&[("a", 1, 10.0), ("b", 0, 60.0), ("c", 0, 1.0)]);
        let p = compare(&row, &best);
        assert_eq!((p.lower, p.higher), (1, 1));
        assert!((p.change - 100.0 * (35.0 / 25.0 - 1.0)).abs() < 1e-9);
        // per window: a's ratio 0.5, b's 2.0
        assert_eq!(p.iqm_ratio, 1.25);
    }
}
