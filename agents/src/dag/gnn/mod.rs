//! The learned DAG scheduler (`schedlab train --agent gnn`): a message-passing embedding of
//! the DAG's tasks and one shared scorer of (task, GPU) choices, trained from scratch by the
//! trainer crate. It plays DAGs of any size on any GPU count, in either of the env's
//! interfaces (the env's next task, or a window of ready tasks), greedily or as the shortest of
//! several sampled episodes.

mod episode;
mod inputs;
mod network;
mod policy;
mod sampled;

pub use episode::{
    Decision, Follower, GnnInstance, decision_scores, play_side_by_side, sample_choice,
};
pub use inputs::{CHOICE_INPUTS, TASK_INPUTS, TaskInputs, choice_rows};
pub use network::{DagGnn, DagGnnConfig};
pub use policy::GnnPolicy;

#[cfg(test)]
mod tests;
