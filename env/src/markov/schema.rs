//! The markov workload file's schema (`kind = "markov"`): which chain and its sizes.
//! Checking it is `checks.rs`'s, reading it `load.rs`'s.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkovWorkloadSpec {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub markov: MarkovSpec,
}

/// The task, named by `task`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "task", rename_all = "kebab-case", deny_unknown_fields)]
pub enum MarkovSpec {
    /// States `0..length` from 0; `forward` moves one state on (reaching the last pays 1 and
    /// ends the episode), `back` returns to 0 paying `back_reward`; truncated at `max_steps`.
    Chain {
        length: usize,
        back_reward: f64,
        max_steps: usize,
    },
    /// `points` decision points, each `choices` same-time choices of a good or a bad level,
    /// then one step of `step_s` virtual seconds (the only action there is `advance`) that
    /// pays minus the share of the point's choices that were bad; terminated after the last.
    SemiMarkov {
        choices: usize,
        points: usize,
        step_s: f64,
    },
}
