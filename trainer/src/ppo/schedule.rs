//! What changes over a run: the share done, the annealed learning rate, and the episodes
//! copies reset to (the curriculum's cut and the trajectory filter's windows).

use std::sync::Arc;

use schedlab_agents::SchedulingEnv;

use super::{PpoConfig, PpoTrainer};
use crate::training_env::EpisodePlan;

impl<E: SchedulingEnv> PpoTrainer<E> {
    /// The share of the run's steps done (0 for a run whose length is unknown).
    pub(super) fn progress(&self) -> f64 {
        if self.total_steps == 0 {
            return 0.0;
        }
        (self.env_steps as f64 / self.total_steps as f64).min(1.0)
    }

    /// The rate for the next update: annealed linearly from `lr` by the share of the run done
    /// (a run whose length is unknown keeps `lr`).
    pub(super) fn learning_rate(&self) -> f64 {
        if !self.config.anneal_lr {
            return self.config.lr;
        }
        self.config.lr * (1.0 - self.progress())
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
