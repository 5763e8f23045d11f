//! What a caller gives the training driver (where and how long to train) and what the driver
//! reports back after each update.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use crate::learner::UpdateStats;

/// Where and how long to train.
pub struct TrainSpec<'a> {
    pub workload_path: &'a Path,
    pub out: &'a Path,
    pub seed: u64,
    /// Env rounds to train for in all, over all env copies.
    pub steps: u64,
    /// Env rounds between checkpoints (one is always written at the end).
    pub checkpoint_every: u64,
    /// Env rounds between evaluations (one is always run at the end): `eval_episodes` greedy
    /// episodes on seeds `0..eval_episodes`, logged as `eval/*`; 0 episodes turns them off.
    pub eval_every: u64,
    pub eval_episodes: usize,
    /// Continue this run folder from its last checkpoint instead of starting a new one.
    pub resume: Option<&'a Path>,
    /// Set from outside (Ctrl-C) to stop after the current update with a checkpoint.
    pub stop: Option<&'a AtomicBool>,
    /// The training workload's settings that shape the network, recorded in the manifest
    /// (`Manifest::play_settings`).
    pub play_settings: &'a [(String, String)],
    /// The settings the workload file was loaded with, recorded in the manifest
    /// (`Manifest::workload_settings`); a resume must give the same.
    pub workload_settings: &'a [(String, String)],
}

/// What the driver reports after each update; `M` is the env's episode metrics.
pub struct Progress<'a, M> {
    pub stats: &'a UpdateStats<M>,
    /// Env rounds per second since this process started training.
    pub sps: f64,
    /// The evaluation episodes played after this update, if it was time for them.
    pub evaluation: Option<&'a [M]>,
}

pub type OnUpdate<'a, M> = dyn FnMut(&Progress<M>) + 'a;
