//! The PPO trainer: its three phases in CleanRL's order, each owning its state (the rollout
//! its env copies, trainer/src/ppo/rollout.rs; the advantages the reward scale,
//! trainer/src/ppo/advantages.rs; the update Adam, trainer/src/ppo/update.rs), the agent
//! they share, and how a run's first trainer is made from its hyperparameters.

use std::sync::Arc;

use burn::tensor::Device;
use schedlab_agents::jobs::ChoiceRestriction;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{PolicyContext, SchedulingEnv};
use schedlab_env::episode_seed;

use super::advantages::Advantages;
use super::config::{PpoConfig, check_rollout_memory};
use super::network::network;
use super::rollout::Rollout;
use super::schedule::{self, episode_plan};
use super::update::Update;
use crate::learner::LearnerError;
use crate::training_env::{TrainingEnv, filtered_windows};

/// Where the trajectory filter's pool of windows draws its seeds (mixed with the run's seed):
/// not the evaluation seeds `0..K`.
const FILTER_SEEDS: u64 = 0xf117_0000_0000;

pub struct PpoTrainer<E: SchedulingEnv> {
    pub(super) config: PpoConfig,
    pub(super) prototype: E,
    pub(super) rollout: Rollout<TrainingEnv<E>>,
    pub(super) advantages: Advantages,
    pub(super) update: Update,
    /// The windows the trajectory filter kept, when it is asked for.
    pub(super) kept_windows: Option<Arc<Vec<u64>>>,
    /// Env steps the run will take in all (for the learning-rate schedule).
    pub(super) total_steps: u64,
    pub(super) seed: u64,
    pub(super) context: PolicyContext,
    /// The restriction of the choices in training and greedy play (`starts_only`,
    /// `grow_only`).
    pub(super) restriction: Option<ChoiceRestriction>,
    pub(super) agent: PpoAgent,
    /// Updates done (the seed of the next one's sampling and shuffling).
    pub(super) updates: u64,
}

impl<E: SchedulingEnv> PpoTrainer<E> {
    /// Refuses hyperparameters the workload cannot train with (a heuristic that does not
    /// build or play, a restriction or per-unit network its spaces do not allow), naming the
    /// key and its value.
    pub fn new(
        prototype: &E,
        config: PpoConfig,
        seed: u64,
        device: Device,
    ) -> Result<Self, LearnerError> {
        device.seed(seed);
        check_rollout_memory(&config, &prototype.policy_context())?;
        let kept_windows = if config.filter.heuristic.is_empty() {
            None
        } else {
            let pool: Vec<u64> = (0..config.filter.pool as u64)
                .map(|k| episode_seed(seed ^ FILTER_SEEDS, k, 0))
                .collect();
            let kept = filtered_windows(
                prototype,
                &config.filter.heuristic,
                &pool,
                config.filter.quantile,
            )
            .map_err(|e| LearnerError::setting("filter_heuristic", &config.filter.heuristic, e))?;
            Some(Arc::new(kept))
        };
        let mut training = TrainingEnv::new(
            prototype.fresh_copy(),
            episode_plan(&config, &kept_windows, 0.0),
        );
        if config.skip_forced {
            training = training.skipping_forced(config.gamma, config.discount_time_s);
        }
        let restriction = ChoiceRestriction::of(&prototype.context(), config.play.restriction)
            .map_err(|e| LearnerError::Config(e.to_string()))?;
        training = training.restricted_to(restriction.clone());
        let rollout = Rollout::new(prototype, &training, &config, seed)?;
        let ctx = prototype.policy_context();
        let net = network(&config, &ctx)
            .map_err(|e| LearnerError::setting("per_unit", config.per_unit, e))?
            .init(&device);
        Ok(PpoTrainer {
            prototype: prototype.fresh_copy(),
            kept_windows,
            advantages: Advantages::new(config.envs),
            update: Update::new(device, config.optimizer),
            total_steps: 0,
            seed,
            agent: PpoAgent::new(net, &ctx, seed),
            context: ctx,
            restriction,
            updates: 0,
            config,
            rollout,
        })
    }

    pub fn agent(&self) -> &PpoAgent {
        &self.agent
    }

    /// The share of the run's steps done.
    pub(super) fn progress(&self) -> f64 {
        schedule::progress(self.rollout.env_steps(), self.total_steps)
    }
}
