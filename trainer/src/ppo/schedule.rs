//! What changes over a run: the share done, the annealed learning rate and entropy bonus,
//! and the episodes copies reset to (the curriculum's cut and the trajectory filter's
//! windows).

use std::sync::Arc;

use super::config::PpoConfig;
use crate::training_env::EpisodePlan;

/// The share of a run of `total_steps` done after `env_steps` (0 for a run whose length is
/// unknown).
pub(super) fn progress(env_steps: u64, total_steps: u64) -> f64 {
    if total_steps == 0 {
        return 0.0;
    }
    (env_steps as f64 / total_steps as f64).min(1.0)
}

/// The rate for the next update: annealed linearly from `lr` by the share of the run done,
/// `progress` (a run whose length is unknown keeps `lr`).
pub(super) fn learning_rate(config: &PpoConfig, progress: f64) -> f64 {
    if !config.anneal_lr {
        return config.lr;
    }
    config.lr * (1.0 - progress)
}

/// The entropy bonus for the next update: annealed linearly to 0 by `progress` where
/// `anneal_entropy` asks.
pub(super) fn entropy_coef(config: &PpoConfig, progress: f64) -> f32 {
    if config.anneal_entropy {
        (config.entropy_coef * (1.0 - progress)) as f32
    } else {
        config.entropy_coef as f32
    }
}

/// The episodes copies reset at `progress` (the share of the run done) play: cut at a mean
/// that grows over the curriculum's share, and drawn from the kept windows during the
/// filter's share.
pub(super) fn episode_plan(
    config: &PpoConfig,
    kept_windows: &Option<Arc<Vec<u64>>>,
    progress: f64,
) -> EpisodePlan {
    let cut_mean_s =
        (config.curriculum.start_s > 0.0 && progress < config.curriculum.share).then(|| {
            let grown = progress / config.curriculum.share;
            config.curriculum.start_s
                + (config.curriculum.end_s - config.curriculum.start_s) * grown
        });
    EpisodePlan {
        cut_mean_s,
        windows: kept_windows
            .clone()
            .filter(|_| progress < config.filter.share),
    }
}
