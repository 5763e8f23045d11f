//! What PPO stores per round of an env copy, shared by its rollouts and the same-window
//! episodes (trainer/src/ppo/same_window.rs), from which the advantages are built.

use schedlab_env::Observation;

/// One stored round of one env copy.
pub(crate) struct Record {
    pub observation: Observation,
    pub action: Vec<usize>,
    pub log_prob: f32,
    pub value: f32,
    /// The env's reward, until the advantages' phase puts it in the critic's unit.
    pub reward: f32,
    /// The virtual seconds the round took.
    pub elapsed_s: f64,
    /// This step's discount (see `discount_time_s`) and GAE lambda (`gae_lambda_per`).
    pub discount: f32,
    pub lambda: f32,
    pub terminated: bool,
    pub truncated: bool,
    /// `V` of the episode's final observation, for a truncated round.
    pub final_value: Option<f32>,
}
