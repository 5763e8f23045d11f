//! Scoring a predictor on the held-out tails of series: every tail step is predicted from the
//! true history before it (one-step-ahead), as a scheduler would use it each round.

use crate::{Predictor, Series};

#[derive(Debug, Clone, PartialEq)]
pub struct Scores {
    /// Predicted values (steps x features).
    pub points: usize,
    pub mae: f64,
    pub rmse: f64,
    /// Share of predictions within ±10% of the truth: `|p - y| <= 0.1 max(|y|, 0.01)` (the
    /// floor keeps near-idle steps from demanding exactness).
    pub within_10pct: f64,
}

/// Rows of a series of `len` steps that come before its tail of share `tail`.
pub fn head_len(len: usize, tail: f64) -> usize {
    len - ((len as f64 * tail).ceil() as usize).min(len)
}

/// The training parts (heads) of `series`, leaving a tail of share `tail` out of each.
pub fn heads(series: &[Series], tail: f64) -> Vec<Series> {
    series
        .iter()
        .map(|s| s.head(head_len(s.len(), tail)))
        .collect()
}

/// Scores `predictor` on the tail (share `tail`) of every series; tail steps without history
/// (a series shorter than 2) are skipped, as no prediction is possible there.
pub fn score(predictor: &dyn Predictor, series: &[Series], tail: f64) -> Scores {
    let (mut abs, mut sq, mut close, mut points) = (0.0, 0.0, 0usize, 0usize);
    for s in series {
        for t in head_len(s.len(), tail).max(1)..s.len() {
            let prediction = predictor.predict(s.history_before(t), s.features);
            for (&p, &y) in prediction.iter().zip(s.row(t)) {
                let error = f64::from((p - y).abs());
                abs += error;
                sq += error * error;
                close += usize::from(error <= 0.1 * f64::from(y.abs()).max(0.01));
                points += 1;
            }
        }
    }
    let n = points.max(1) as f64;
    Scores {
        points,
        mae: abs / n,
        rmse: (sq / n).sqrt(),
        within_10pct: close as f64 / n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LastPredictor;

    #[test]
    fn last_value_scores_are_computed_on_the_tail_only() {
        // steps 1, 2, 4, 8 then 8.5: the tail (40% of 5 = 2 steps) is 8 and 8.5
        let series = [Series::new("s", 1, vec![1.0, 2.0, 4.0, 8.0, 8.5])];
        let scores = score(&LastPredictor, &series, 0.4);
        // predictions 4 (for 8) and 8 (for 8.5): errors 4 and 0.5
        assert_eq!(scores.points, 2);
        assert!((scores.mae - 2.25).abs() < 1e-12);
        assert!((scores.rmse - ((16.0 + 0.25) / 2.0f64).sqrt()).abs() < 1e-12);
        assert_eq!(
            scores.within_10pct, 0.5,
            "0.5 is within 10% of 8.5, 4 is not of 8"
        );
        assert_eq!(heads(&series, 0.4)[0].values, vec![1.0, 2.0, 4.0]);
    }
}
