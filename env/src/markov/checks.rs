//! A markov workload's checks, each fault refused naming its key (run by `load.rs`).

use std::path::Path;

use super::schema::{MarkovSpec, MarkovWorkloadSpec};
use crate::error::{EnvError, Result};

/// The most states, choices, points and steps a chain takes: far above a test's needs.
const MAX_COUNT: usize = 1_000_000;

pub(super) fn check(path: &Path, spec: &MarkovWorkloadSpec) -> Result<()> {
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    if spec.kind != "markov" {
        return bad("kind", format!("`{}`: a markov workload", spec.kind));
    }
    let (counts, real) = match &spec.markov {
        MarkovSpec::Chain {
            length,
            back_reward,
            max_steps,
        } => (
            vec![
                ("markov.length", *length, 2),
                ("markov.max_steps", *max_steps, 1),
            ],
            ("markov.back_reward", *back_reward, true),
        ),
        MarkovSpec::SemiMarkov {
            choices,
            points,
            step_s,
        } => (
            vec![
                ("markov.choices", *choices, 1),
                ("markov.points", *points, 1),
            ],
            ("markov.step_s", *step_s, false),
        ),
    };
    for (key, value, least) in counts {
        if !(least..=MAX_COUNT).contains(&value) {
            return bad(key, format!("{value}: must be in {least}..={MAX_COUNT}"));
        }
    }
    let (key, value, zero_allowed) = real;
    let sign_ok = if zero_allowed {
        value >= 0.0
    } else {
        value > 0.0
    };
    if !(value.is_finite() && sign_ok) {
        let bound = if zero_allowed { ">= 0" } else { "> 0" };
        return bad(key, format!("{value}: must be finite and {bound}"));
    }
    Ok(())
}
