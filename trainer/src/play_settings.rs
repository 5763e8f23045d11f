//! What a learned actor plays with, shared by the learners whose run plays as an actor (PPO's,
//! A2C's and ES's configs embed it): its hidden width, whether the run keeps the network of its
//! best evaluation, and the restriction of the jobs cluster's one-choice choices it trains and
//! plays under.

use schedlab_env::jobs::Restriction;
use serde::{Deserialize, Serialize};

/// Kept in configs as the flat keys `hidden`, `keep_best`, `starts_only` and `grow_only`, the
/// form every run folder and `--set` has used.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "PlayKeys", into = "PlayKeys")]
pub struct PlaySettings {
    /// Units of each hidden layer.
    pub hidden: usize,
    /// Tanh torsos (CleanRL's and SB3's); false: ReLU.
    pub tanh: bool,
    /// Play the network of the best greedy evaluation rather than the last: model selection
    /// on the training family's evaluation episodes, as Stable-Baselines3's `EvalCallback`
    /// keeps `best_model` (the run folder's policy is that network; a resumed run continues
    /// from the last). Needs evaluation episodes.
    pub keep_best: bool,
    /// Choose only among some choices of the jobs cluster's one-choice interface, in
    /// training and in play (agents/src/jobs/restricted.rs): `starts_only`, starts of queued
    /// jobs and `advance`; `grow_only`, also scaling a running job up, never down or off.
    pub restriction: Option<Restriction>,
}

impl PlaySettings {
    /// An unrestricted actor of `hidden` units that plays its last network.
    pub const fn new(hidden: usize) -> Self {
        PlaySettings {
            hidden,
            tanh: false,
            keep_best: false,
            restriction: None,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct PlayKeys {
    hidden: usize,
    /// Absent from runs saved before it existed: ReLU.
    #[serde(default)]
    tanh: bool,
    keep_best: bool,
    starts_only: bool,
    grow_only: bool,
}

#[derive(Debug, thiserror::Error)]
#[error("starts_only and grow_only exclude each other")]
pub struct BothRestrictions;

impl TryFrom<PlayKeys> for PlaySettings {
    type Error = BothRestrictions;

    fn try_from(keys: PlayKeys) -> Result<Self, BothRestrictions> {
        let restriction = match (keys.starts_only, keys.grow_only) {
            (true, true) => return Err(BothRestrictions),
            (true, false) => Some(Restriction::StartsOnly),
            (false, true) => Some(Restriction::GrowOnly),
            (false, false) => None,
        };
        Ok(PlaySettings {
            hidden: keys.hidden,
            tanh: keys.tanh,
            keep_best: keys.keep_best,
            restriction,
        })
    }
}

impl From<PlaySettings> for PlayKeys {
    fn from(play: PlaySettings) -> Self {
        PlayKeys {
            hidden: play.hidden,
            tanh: play.tanh,
            keep_best: play.keep_best,
            starts_only: play.restriction == Some(Restriction::StartsOnly),
            grow_only: play.restriction == Some(Restriction::GrowOnly),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Embedding {
        lr: f64,
        #[serde(flatten)]
        play: PlaySettings,
    }

    #[test]
    fn play_settings_keep_their_flat_keys_and_refuse_both_restrictions() {
        let embedded = Embedding {
            lr: 0.5,
            play: PlaySettings {
                restriction: Some(Restriction::GrowOnly),
                ..PlaySettings::new(16)
            },
        };
        let json = serde_json::to_value(&embedded).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"lr": 0.5, "hidden": 16, "tanh": false, "keep_best": false, "starts_only": false, "grow_only": true})
        );
        assert_eq!(serde_json::from_value::<Embedding>(json).unwrap(), embedded);
        // a run saved before `tanh` existed played ReLU torsos
        let older = serde_json::json!({"lr": 0.5, "hidden": 16, "keep_best": false, "starts_only": false, "grow_only": true});
        assert!(
            !serde_json::from_value::<Embedding>(older)
                .unwrap()
                .play
                .tanh
        );
        let both = serde_json::json!({"lr": 0.5, "hidden": 16, "keep_best": false, "starts_only": true, "grow_only": true});
        let err = serde_json::from_value::<Embedding>(both).unwrap_err();
        assert!(err.to_string().contains("exclude each other"), "{err}");
    }
}
