//! The PPO loop: collect `rollout_steps` rounds from every env copy, estimate advantages
//! with GAE, then optimise the clipped objective for `epochs` passes over shuffled
//! minibatches.

use std::path::Path;
use std::sync::Arc;

use burn::optim::grad_clipping::GradientClippingConfig;
use burn::optim::{AdamConfig, ModuleOptimizer};
use burn::tensor::Device;
use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_agents::jobs::{ChoiceRestriction, Restricted};
use schedlab_agents::learned::actor_critic::{ActorCriticConfig, ShapeMismatch};
use schedlab_agents::options::Options;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{EnvKind, Policy, PolicyContext, SchedulingEnv};
use schedlab_env::{Environment, Observation, VecEnv, episode_seed};

use crate::algorithm::Algorithm;
use crate::errors::{CheckpointError, PlayError, Unmet};
use crate::imitation::{CloneSettings, WarmStartPlan, WarmStartReport, warm_start};
use crate::learner::{Learner, LearnerError, UpdateStats};
use crate::reward_scale::{ReturnStats, RewardScale};
use crate::run::{Manifest, RunDir, load_optimizer, load_record};
use crate::trained::TrainedRun;
use crate::training_env::{TrainingEnv, filtered_windows};

mod config;
mod fit;
pub(crate) mod record;
mod resume;
mod rollout;
mod same_window;
mod schedule;
mod shards;
mod windows;

use config::check_rollout_memory;
pub use config::{Baseline, Curriculum, PpoConfig, TrajectoryFilter, WarmStart};
use schedule::episode_plan;
use windows::{HeuristicCopy, heuristic_copies};

/// PPO (`--agent ppo`): the clipped objective over minibatches of each rollout.
pub struct Ppo;

impl Algorithm for Ppo {
    const NAME: &'static str = "ppo";
    const HELP: &'static str = "PPO: the clipped objective over minibatches of each rollout";
    type Config = PpoConfig;

    fn default_config(env: EnvKind) -> PpoConfig {
        PpoConfig::default().on(env)
    }

    fn check(config: &PpoConfig) -> Result<(), Unmet> {
        config.check()
    }

    fn learner<E: SchedulingEnv>(
        prototype: &E,
        config: PpoConfig,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        Ok(Box::new(PpoTrainer::new(prototype, config, seed, device)?))
    }

    /// The most probable allowed level, restricted as it trained. A per-unit network plays
    /// other unit counts where its weights fit.
    fn load(
        trained: &TrainedRun,
        config: PpoConfig,
        _: &Options,
    ) -> std::io::Result<Box<dyn Policy>> {
        if !config.per_unit {
            trained.require_same_spaces()?;
        }
        trained.greedy_actor(network(&config, trained.context()), config.play.restriction)
    }
}

/// The network `config` asks for on the spaces of `ctx`.
pub fn network(
    config: &PpoConfig,
    ctx: &PolicyContext,
) -> Result<ActorCriticConfig, ShapeMismatch> {
    let net = if config.per_unit {
        ActorCriticConfig::per_unit(&ctx.observation_space, &ctx.action_space)?
    } else {
        ActorCriticConfig::new(ctx.observation_space.len(), ctx.action_space.mask_len())
    };
    Ok(net.with_hidden(config.play.hidden))
}

/// Where the teacher's episodes draw their seeds (plus 1,000 per training seed): far from
/// the evaluation seeds `0..K`, so the clone is scored on windows it did not copy.
const DEMONSTRATION_SEEDS: u64 = 1_000_000;

/// Where `same_window`'s episodes draw their seeds (mixed with the run's seed, the group and
/// the round): not the evaluation seeds `0..K`.
const WINDOW_SEEDS: u64 = 0x5a3e_0000_0000;

/// Where the trajectory filter's pool of windows draws its seeds (mixed with the run's seed):
/// not the evaluation seeds `0..K`.
const FILTER_SEEDS: u64 = 0xf117_0000_0000;

/// Where each update's action sampling and minibatch shuffling draw their seeds (mixed with
/// the run's seed and the update's number), so a resumed run draws what an uninterrupted one
/// would.
const UPDATE_SEEDS: u64 = 0x0bda_0000_0000;

/// Where an update's experience comes from.
enum Collector<E> {
    /// `rollout_steps` rounds of every copy, episodes carried across updates (GAE).
    Rollouts {
        envs: VecEnv<E>,
        observations: Vec<Observation>,
    },
    /// One whole episode per copy and update, in groups of `same_window` on one seed (each
    /// copy on its own beside `heuristic`'s copy and policy, when it plays); `rounds` played
    /// so far (for their seeds).
    Windows {
        copies: Vec<E>,
        heuristic: Vec<HeuristicCopy<E>>,
        rounds: u64,
    },
}

pub struct PpoTrainer<E: SchedulingEnv> {
    config: PpoConfig,
    prototype: E,
    collector: Collector<TrainingEnv<E>>,
    /// The windows the trajectory filter kept, when it is asked for.
    kept_windows: Option<Arc<Vec<u64>>>,
    scale: RewardScale,
    /// Env steps the run will take in all (for the learning-rate schedule).
    total_steps: u64,
    seed: u64,
    context: PolicyContext,
    /// The restriction of the choices in training and greedy play (`starts_only`,
    /// `grow_only`).
    restriction: Option<ChoiceRestriction>,
    agent: PpoAgent,
    optim: ModuleOptimizer,
    device: Device,
    env_steps: u64,
    /// Updates done (the seed of the next one's sampling and shuffling).
    updates: u64,
}

impl<E: SchedulingEnv> Learner<E::Metrics> for PpoTrainer<E> {
    /// One rollout and one optimisation phase.
    fn update(&mut self) -> schedlab_env::Result<UpdateStats<E::Metrics>> {
        let seed = episode_seed(self.seed ^ UPDATE_SEEDS, 0, self.updates);
        let mut shuffle = StdRng::seed_from_u64(seed);
        self.agent.reset(seed);
        self.updates += 1;
        let lr = self.learning_rate();
        let plan = episode_plan(&self.config, &self.kept_windows, self.progress());
        match &mut self.collector {
            Collector::Rollouts { envs, .. } => envs
                .envs_mut()
                .iter_mut()
                .for_each(|env| env.set_plan(plan.clone())),
            Collector::Windows {
                copies, heuristic, ..
            } => copies
                .iter_mut()
                .chain(heuristic.iter_mut().map(|(env, _)| env))
                .for_each(|env| env.set_plan(plan.clone())),
        };
        let ((fit, gradient_steps), tally) = if let Collector::Windows { .. } = self.collector {
            let (played, tally, heuristic) = self.play_windows()?;
            let targets = match heuristic {
                Some(rollouts) => same_window::advantages_against_heuristic(&played, &rollouts),
                None => same_window::advantages(&played, self.config.baseline.same_window),
            };
            let rows = played
                .iter()
                .zip(&targets)
                .flat_map(|(episode, (advantages, returns))| {
                    episode.records.iter().zip(advantages).zip(returns)
                })
                .map(|((r, &a), &g)| (r, a, g))
                .collect::<Vec<_>>();
            (self.fit(&rows, lr, &mut shuffle), tally)
        } else {
            let (records, last_values, tally) = self.rollout()?;
            let rows = self.gae_rows(&records, &last_values);
            (self.fit(&rows, lr, &mut shuffle), tally)
        };
        let (finished, train_loss) = tally.finish();
        Ok(UpdateStats {
            env_steps: self.env_steps,
            gradient_steps,
            scalars: [
                ("losses/policy_loss", fit.policy_loss),
                ("losses/value_loss", fit.value_loss),
                ("losses/entropy", fit.entropy),
                ("losses/approx_kl", fit.approx_kl),
                ("losses/clipfrac", fit.clip_fraction),
                ("losses/grad_norm", fit.grad_norm),
                ("charts/learning_rate", lr as f32),
            ]
            .into_iter()
            .chain(
                fit.explained_variance
                    .map(|v| ("losses/explained_variance", v)),
            )
            .chain(
                self.config
                    .anneal_entropy
                    .then_some(("charts/entropy_coef", fit.entropy_coef)),
            )
            .chain(
                (self.config.curriculum.start_s > 0.0)
                    .then(|| ("charts/cut_mean_s", plan.cut_mean_s.unwrap_or(0.0) as f32)),
            )
            .chain(
                self.kept_windows
                    .is_some()
                    .then(|| ("charts/filtering", f32::from(plan.windows.is_some()))),
            )
            .chain(fit.epochs_run.map(|e| ("losses/epochs_run", e as f32)))
            .collect(),
            train_loss,
            finished,
        })
    }

    fn env_steps(&self) -> u64 {
        self.env_steps
    }

    fn plan(&mut self, total_steps: u64) {
        self.total_steps = total_steps;
    }

    /// Clones `warm_start`'s scheduler on episodes of seeds no evaluation uses.
    fn warm_start(&mut self) -> Result<Option<WarmStartReport>, PlayError> {
        if self.config.warm_start.teacher.is_empty() {
            return Ok(None);
        }
        let c = &self.config;
        // teacher episodes first, then each DAgger round's, all on seeds no evaluation uses
        let seeds = |from: usize, count: usize| -> Vec<u64> {
            (from..from + count)
                .map(|k| DEMONSTRATION_SEEDS + self.seed * 1000 + k as u64)
                .collect()
        };
        let plan = WarmStartPlan {
            teacher: &c.warm_start.teacher,
            seeds: seeds(0, c.warm_start.episodes),
            dagger_seeds: (0..c.warm_start.dagger_rounds)
                .map(|round| {
                    let from = c.warm_start.episodes + round * c.warm_start.dagger_episodes;
                    seeds(from, c.warm_start.dagger_episodes)
                })
                .collect(),
            dagger_epochs: c.warm_start.dagger_epochs,
            discount: (c.gamma, c.discount_time_s),
            settings: CloneSettings {
                epochs: c.warm_start.epochs,
                lr: c.warm_start.lr,
                value_coef: c.value_coef as f32,
                seed: self.seed,
            },
        };
        warm_start(
            &self.prototype,
            &mut self.agent,
            &mut self.scale,
            &plan,
            &self.device,
        )
        .map(Some)
    }

    fn save(&self, run: &RunDir, manifest: &Manifest) -> std::io::Result<()> {
        run.save_record(&manifest.model, &self.agent.net)?;
        run.save_optimizer(&manifest.optimizer, &self.optim)
    }

    fn restore(&mut self, run: &Path, manifest: &Manifest) -> Result<(), CheckpointError> {
        self.agent.net = load_record(self.agent.net.clone(), run, &manifest.model)?;
        self.optim = load_optimizer(&self.optim, run, &manifest.optimizer)?;
        self.env_steps = manifest.step;
        if let Some(stats) = manifest.return_stats {
            self.scale.restore(stats);
        }
        Ok(())
    }

    fn return_stats(&self) -> Option<ReturnStats> {
        (self.config.normalize_rewards || self.config.differential).then(|| self.scale.stats())
    }

    fn resume_state(&self) -> Option<serde_json::Value> {
        serde_json::to_value(self.resume()).ok()
    }

    fn keeps_best(&self) -> bool {
        self.config.play.keep_best
    }

    fn save_policy(&self, run: &RunDir, name: &str) -> std::io::Result<()> {
        run.save_record(name, &self.agent.net)
    }

    fn restore_state(&mut self, state: serde_json::Value) -> Result<(), CheckpointError> {
        let state = serde_json::from_value(state)
            .map_err(|e| CheckpointError::State(format!("resume state: {e}")))?;
        self.restore_resume(state)
            .map_err(|e| CheckpointError::State(format!("resume state: {e}")))
    }

    fn greedy_policy(&self) -> Box<dyn Policy> {
        let mut agent = PpoAgent::new(self.agent.net.clone(), &self.context, 0);
        agent.deterministic = true;
        Restricted::wrap(Box::new(agent), self.restriction.clone())
    }
}

impl<E: SchedulingEnv> PpoTrainer<E> {
    pub fn new(
        prototype: &E,
        config: PpoConfig,
        seed: u64,
        device: Device,
    ) -> schedlab_env::Result<Self> {
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
            .map_err(|e| schedlab_env::EnvError::BadAction(e.to_string()))?;
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
            .map_err(|e| schedlab_env::EnvError::BadAction(e.to_string()))?;
        training = training.restricted_to(restriction.clone());
        let collector = if config.baseline.same_window >= 2 || !config.baseline.heuristic.is_empty()
        {
            Collector::Windows {
                copies: (0..config.envs).map(|_| training.fresh_copy()).collect(),
                heuristic: heuristic_copies(prototype, &config)
                    .map_err(|e| schedlab_env::EnvError::BadAction(e.to_string()))?,
                rounds: 0,
            }
        } else {
            let mut envs = VecEnv::new(&training, config.envs, seed);
            let observations = envs.reset()?;
            Collector::Rollouts { envs, observations }
        };
        let ctx = prototype.policy_context();
        let net = network(&config, &ctx)
            .map_err(|e| schedlab_env::EnvError::BadAction(e.to_string()))?
            .init(&device);
        let optim = AdamConfig::new()
            .with_grad_clipping(Some(GradientClippingConfig::Norm(
                config.max_grad_norm as f32,
            )))
            .init();
        Ok(PpoTrainer {
            prototype: prototype.fresh_copy(),
            kept_windows,
            scale: RewardScale::new(config.envs),
            total_steps: 0,
            seed,
            agent: PpoAgent::new(net, &ctx, seed),
            context: ctx,
            restriction,
            optim,
            env_steps: 0,
            updates: 0,
            config,
            collector,
            device,
        })
    }

    pub fn agent(&self) -> &PpoAgent {
        &self.agent
    }
}

#[cfg(test)]
mod tests;
