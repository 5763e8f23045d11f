//! The PPO loop: collect `rollout_steps` rounds from every env copy, estimate advantages
//! with GAE, then optimise the clipped objective for `epochs` passes over shuffled
//! minibatches.

use std::path::Path;
use std::sync::Arc;

use burn::config::Config;
use burn::optim::grad_clipping::GradientClippingConfig;
use burn::optim::{AdamConfig, ModuleOptimizer};
use burn::tensor::Device;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use schedlab_agents::jobs::{ChoiceRestriction, Restricted};
use schedlab_agents::learned::actor_critic::{
    ActorCriticConfig, PpoBatch, PpoLossConfig, ShapeMismatch,
};
use schedlab_agents::learned::batch::stack;
use schedlab_agents::learned::gae::{Transition, gae, step_discount};
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::options::Options;
use schedlab_agents::{EnvKind, Policy, PolicyContext, SchedulingEnv, registry};
use schedlab_env::{Environment, Observation, VecEnv, episode_seed};

use crate::algorithms::Algorithm;
use crate::errors::{CheckpointError, PlayError, Unmet};
use crate::grad_norm::global_norm;
use crate::imitation::{CloneSettings, WarmStartPlan, WarmStartReport, warm_start};
use crate::learner::{
    EpisodeTally, Learner, LearnerError, MAX_STEPS_HELD, UpdateStats, check_common, require,
};
use crate::reward_scale::{ReturnStats, RewardScale};
use crate::run::{Manifest, RunDir, load_optimizer, load_record};
use crate::trained::TrainedRun;
use crate::training_env::{EpisodePlan, TrainingEnv, filtered_windows};
use record::Record;
use shards::sharded_loss;

pub(crate) mod record;
mod resume;
mod same_window;
mod shards;

/// PPO hyperparameters. The defaults suit the shipped workloads' short episodes (tens of
/// rounds): small rollouts, many updates.
#[derive(Config, Debug)]
pub struct PpoConfig {
    /// Env copies stepped in parallel.
    #[config(default = 4)]
    pub envs: usize,
    /// Rounds collected from each copy per update.
    #[config(default = 16)]
    pub rollout_steps: usize,
    #[config(default = 4)]
    pub epochs: usize,
    #[config(default = 4)]
    pub minibatches: usize,
    /// 0: each update is cut into `minibatches`. Otherwise into minibatches of this many
    /// rows, for collectors of whole episodes (`same_window`, `baseline_heuristic`), whose
    /// updates hold from tens to thousands of decisions: a fixed count would take as few
    /// gradient steps on a thousand-decision update as on a short one.
    #[config(default = 0)]
    pub minibatch_size: usize,
    #[config(default = 3e-4)]
    pub lr: f64,
    #[config(default = 0.99)]
    pub gamma: f64,
    /// 0: `gamma` per step. Otherwise `gamma` per this many virtual seconds, so same-time
    /// decisions are not discounted and the horizon is a span of time.
    #[config(default = 0.0)]
    pub discount_time_s: f64,
    #[config(default = 0.95)]
    pub gae_lambda: f64,
    #[config(default = 0.2)]
    pub clip: f64,
    #[config(default = 0.5)]
    pub value_coef: f64,
    #[config(default = 0.01)]
    pub entropy_coef: f64,
    /// Gradient norm clip.
    #[config(default = 0.5)]
    pub max_grad_norm: f64,
    #[config(default = 128)]
    pub hidden: usize,
    /// Standardise advantages within each minibatch.
    #[config(default = true)]
    pub normalize_advantages: bool,
    /// Score each unit of a one-choice space (the jobs env's window slots) with one shared
    /// network instead of one flat network (see agents/src/learned/actor_critic.rs).
    #[config(default = false)]
    pub per_unit: bool,
    /// Divide rewards by the running spread of the discounted return (trainer/src/reward_scale.rs).
    #[config(default = true)]
    pub normalize_rewards: bool,
    /// Anneal the learning rate linearly to 0 over the run's steps.
    #[config(default = true)]
    pub anneal_lr: bool,
    /// A scheduler to clone before PPO starts (trainer/src/imitation.rs); empty: none.
    #[config(default = "String::new()")]
    pub warm_start: String,
    /// Teacher episodes played for cloning (every fourth held out to score agreement); 8
    /// left clones of `raes` that strand jobs on Philly windows they never saw (docs/jobs-cluster.md).
    #[config(default = 32)]
    pub warm_start_episodes: usize,
    /// Passes over the teacher's decisions (30 left a Philly clone of `raes` that strands jobs
    /// on held-out windows; see docs/jobs-cluster.md).
    #[config(default = 100)]
    pub warm_start_epochs: usize,
    #[config(default = 1e-3)]
    pub warm_start_lr: f64,
    /// DAgger rounds after cloning: the clone plays, the teacher labels the states it reached,
    /// and the clone is refitted on everything (trainer/src/imitation.rs); 0: plain cloning.
    #[config(default = 0)]
    pub warm_start_dagger_rounds: usize,
    /// Episodes the clone plays in each DAgger round.
    #[config(default = 8)]
    pub warm_start_dagger_episodes: usize,
    /// Passes over all the data gathered so far after each DAgger round.
    #[config(default = 20)]
    pub warm_start_dagger_epochs: usize,
    /// 0: advantages by GAE against the critic. G >= 2: each update plays one whole episode
    /// per copy, the copies in groups of G on the same seed (the same drawn window), and a
    /// decision's advantage is its return-to-go minus that of the group's other rollouts from
    /// the same virtual time (trainer/src/ppo/same_window.rs); `rollout_steps` is then unused.
    #[config(default = 0)]
    pub same_window: usize,
    /// Empty: none. Otherwise a registry heuristic that plays each copy's seed beside it: each
    /// update plays one whole episode per copy, every copy on its own seed, and a decision's
    /// advantage is its return-to-go minus the heuristic's from the same virtual time
    /// (trainer/src/ppo/same_window.rs); `rollout_steps` is then unused.
    #[config(default = "String::new()")]
    pub baseline_heuristic: String,
    /// A curriculum on episode length (trainer/src/training_env.rs): 0, none. Otherwise the
    /// mean virtual seconds at which episodes are cut when training starts; the mean grows
    /// linearly to `curriculum_end_s` over the first `curriculum_share` of the run, after
    /// which episodes are whole.
    #[config(default = 0.0)]
    pub curriculum_start_s: f64,
    #[config(default = 0.0)]
    pub curriculum_end_s: f64,
    #[config(default = 0.5)]
    pub curriculum_share: f64,
    /// Trajectory filtering (trainer/src/training_env.rs): empty, none. Otherwise a registry
    /// heuristic that plays `filter_pool` drawn windows before training; for the first
    /// `filter_share` of the run episodes play only those whose cost under it is at most its
    /// `filter_quantile`.
    #[config(default = "String::new()")]
    pub filter_heuristic: String,
    #[config(default = 0.9)]
    pub filter_quantile: f64,
    #[config(default = 0.5)]
    pub filter_share: f64,
    #[config(default = 64)]
    pub filter_pool: usize,
    /// Stop an update's epochs once an epoch's mean approximate KL to the rollout policy
    /// exceeds this (CleanRL's `target_kl`); 0: never.
    #[config(default = 0.0)]
    pub target_kl: f64,
    /// Anneal the entropy bonus linearly to 0 over the run's steps, as the learning rate.
    #[config(default = false)]
    pub anneal_entropy: bool,
    /// Step states that allow one action only at once, so rollouts hold only decisions with
    /// a choice (trainer/src/training_env.rs); needs `discount_time_s > 0`.
    #[config(default = false)]
    pub skip_forced: bool,
    /// The differential (average-reward) form of the reward, as Decima trains (Mao et al.,
    /// SIGCOMM 2019): each step's reward less the run's average reward per virtual second so
    /// far times the step's span, so that the return measures doing better than usual rather
    /// than how much work a window holds. Pair it with `gamma` near 1.
    #[config(default = false)]
    pub differential: bool,
    /// Play the network of the best greedy evaluation rather than the last: model selection
    /// on the training family's evaluation episodes, as Stable-Baselines3's `EvalCallback`
    /// keeps `best_model` (the run folder's policy is that network; a resumed run continues
    /// from the last). Needs evaluation episodes.
    #[config(default = false)]
    pub keep_best: bool,
    /// Choose only among starts of queued jobs and `advance` (jobs workloads, one-choice
    /// interface): running jobs are never preempted or resized by the policy, in training
    /// and in play (agents/src/jobs/restricted.rs).
    #[config(default = false)]
    pub starts_only: bool,
    /// Choose only among starts, scaling a running job up, and `advance` (jobs workloads,
    /// one-choice interface): a running job may grow into idle capacity but is never shrunk
    /// or preempted by the policy (agents/src/jobs/restricted.rs). Excludes `starts_only`.
    #[config(default = false)]
    pub grow_only: bool,
}

/// PPO (`--agent ppo`): the clipped objective over minibatches of each rollout.
pub struct Ppo;

impl Algorithm for Ppo {
    const NAME: &'static str = "ppo";
    type Config = PpoConfig;

    fn default_config(env: EnvKind) -> PpoConfig {
        PpoConfig::new().on(env)
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
        let restriction = (config.starts_only, config.grow_only);
        trained.greedy_actor(network(&config, trained.context()), restriction)
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
    Ok(net.with_hidden(config.hidden))
}

impl PpoConfig {
    /// Refuses values the loop cannot run with, naming the first.
    pub fn check(&self) -> Result<(), Unmet> {
        let c = self;
        require(&[
            (
                "1 <= rollout_steps <= 10000000",
                (1..=MAX_STEPS_HELD).contains(&c.rollout_steps),
            ),
            ("epochs >= 1", c.epochs >= 1),
            (
                "1 <= minibatches <= envs * rollout_steps",
                c.minibatches >= 1 && c.minibatches <= c.envs.saturating_mul(c.rollout_steps),
            ),
            ("0 <= gae_lambda <= 1", (0.0..=1.0).contains(&c.gae_lambda)),
            ("clip > 0", c.clip > 0.0),
            (
                "warm_start_episodes >= 1 and warm_start_epochs >= 1 with a warm start",
                c.warm_start.is_empty() || (c.warm_start_episodes >= 1 && c.warm_start_epochs >= 1),
            ),
            ("warm_start_lr > 0", c.warm_start_lr > 0.0),
            (
                "same_window = 0, or >= 2 and dividing envs",
                c.same_window == 0 || (c.same_window >= 2 && c.envs.is_multiple_of(c.same_window)),
            ),
            (
                "warm_start_dagger_episodes >= 1 and warm_start_dagger_epochs >= 1 with DAgger rounds",
                c.warm_start_dagger_rounds == 0
                    || (c.warm_start_dagger_episodes >= 1 && c.warm_start_dagger_epochs >= 1),
            ),
            (
                "curriculum_start_s >= 0, and curriculum_end_s >= curriculum_start_s with a curriculum",
                c.curriculum_start_s >= 0.0
                    && c.curriculum_start_s.is_finite()
                    && (c.curriculum_start_s == 0.0
                        || (c.curriculum_end_s >= c.curriculum_start_s
                            && c.curriculum_end_s.is_finite())),
            ),
            (
                "0 < curriculum_share <= 1",
                c.curriculum_share > 0.0 && c.curriculum_share <= 1.0,
            ),
            (
                "0 < filter_quantile <= 1",
                c.filter_quantile > 0.0 && c.filter_quantile <= 1.0,
            ),
            ("0 < filter_share <= 1", c.filter_share > 0.0 && c.filter_share <= 1.0),
            (
                "filter_pool >= 2 with a filter heuristic",
                c.filter_heuristic.is_empty() || c.filter_pool >= 2,
            ),
            ("target_kl >= 0", c.target_kl >= 0.0),
            (
                "discount_time_s > 0 with skip_forced",
                !c.skip_forced || c.discount_time_s > 0.0,
            ),
            (
                "same_window = 0 with differential",
                !c.differential || c.same_window == 0,
            ),
            (
                "same_window = 0 and no differential with a baseline heuristic",
                c.baseline_heuristic.is_empty() || (c.same_window == 0 && !c.differential),
            ),
            (
                "warm_start_episodes + warm_start_dagger_rounds * warm_start_dagger_episodes <= 1000",
                c.warm_start_episodes + c.warm_start_dagger_rounds * c.warm_start_dagger_episodes
                    <= 1000,
            ),
        ])
        .and(check_common(
            c.envs,
            c.lr,
            (c.gamma, c.discount_time_s),
            c.max_grad_norm,
            c.hidden,
        ))
    }

    /// A2C's defaults (Stable-Baselines3's, scaled to short episodes): short rollouts, one
    /// epoch, one minibatch, raw advantages.
    pub fn a2c() -> Self {
        PpoConfig::new()
            .with_rollout_steps(5)
            .with_epochs(1)
            .with_minibatches(1)
            .with_lr(7e-4)
            .with_normalize_advantages(false)
    }

    /// The defaults for jobs workloads, where an episode is hundreds to thousands of
    /// decisions rather than tens: rollouts of 256 decisions per copy (1,024 per update, so an
    /// update sees whole decision points and several arrivals), a discount per virtual hour
    /// rather than per step (same-time decisions cost nothing; horizon about 100 hours), and a
    /// smaller entropy bonus for a 305-way choice whose uniform entropy would otherwise
    /// dominate the objective. The per-job network (`per_unit`) fits the one-choice interface
    /// only, so it is asked for by name.
    pub fn jobs(self) -> Self {
        self.with_rollout_steps(256)
            .with_discount_time_s(3600.0)
            .with_entropy_coef(0.003)
    }

    /// These settings with [`PpoConfig::jobs`]'s where `env` is the jobs cluster.
    pub fn on(self, env: EnvKind) -> Self {
        match env == EnvKind::Jobs {
            true => self.jobs(),
            false => self,
        }
    }
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

/// One rollout's records per env copy, `V` of each copy's observation after it, and the
/// episodes that ended in it.
type Rollout<M> = (Vec<Vec<Record>>, Vec<f32>, EpisodeTally<M>);

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
                None => same_window::advantages(&played, self.config.same_window),
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
                (self.config.curriculum_start_s > 0.0)
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
        if self.config.warm_start.is_empty() {
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
            teacher: &c.warm_start,
            seeds: seeds(0, c.warm_start_episodes),
            dagger_seeds: (0..c.warm_start_dagger_rounds)
                .map(|round| {
                    let from = c.warm_start_episodes + round * c.warm_start_dagger_episodes;
                    seeds(from, c.warm_start_dagger_episodes)
                })
                .collect(),
            dagger_epochs: c.warm_start_dagger_epochs,
            discount: (c.gamma, c.discount_time_s),
            settings: CloneSettings {
                epochs: c.warm_start_epochs,
                lr: c.warm_start_lr,
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
        self.config.keep_best
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

/// Refuses settings whose rollout would outgrow the memory budget: every copy's every step
/// keeps its observation, mask and a few scalars, in `f32`, and the update copies them once
/// into tensors.
fn check_rollout_memory(config: &PpoConfig, ctx: &PolicyContext) -> schedlab_env::Result<()> {
    let per_step = (ctx.observation_space.len() + ctx.action_space.mask_len() + 8) as u64 * 4;
    let steps = config.envs as u64 * config.rollout_steps as u64;
    schedlab_env::limits::check_memory(
        std::path::Path::new("--set"),
        "rollout_steps",
        format!(
            "{} copies x {} steps of {per_step} bytes",
            config.envs, config.rollout_steps
        ),
        steps * per_step * 2,
    )
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
        let kept_windows = if config.filter_heuristic.is_empty() {
            None
        } else {
            let pool: Vec<u64> = (0..config.filter_pool as u64)
                .map(|k| episode_seed(seed ^ FILTER_SEEDS, k, 0))
                .collect();
            let kept = filtered_windows(
                prototype,
                &config.filter_heuristic,
                &pool,
                config.filter_quantile,
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
        let restriction = ChoiceRestriction::of_options(
            &prototype.context(),
            config.starts_only,
            config.grow_only,
        )
        .map_err(|e| schedlab_env::EnvError::BadAction(e.to_string()))?;
        training = training.restricted_to(restriction.clone());
        let collector = if config.same_window >= 2 || !config.baseline_heuristic.is_empty() {
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

    /// `records[copy][t]`, the values to bootstrap from and the tally of episodes that ended.
    fn rollout(&mut self) -> schedlab_env::Result<Rollout<E::Metrics>> {
        let Collector::Rollouts { envs, observations } = &mut self.collector else {
            unreachable!("update rolls out only with the VecEnv collector");
        };
        let copies = envs.len();
        let mut records: Vec<Vec<Record>> = (0..copies).map(|_| Vec::new()).collect();
        let mut tally = EpisodeTally::default();
        // the rate the rollout's rewards are measured against: the run's so far
        let rate = if self.config.differential {
            self.scale.reward_rate()
        } else {
            0.0
        };
        for _ in 0..self.config.rollout_steps {
            let acted = self
                .agent
                .act_batch(&observations.iter().collect::<Vec<_>>());
            let step = envs.step(&acted.actions)?;
            self.env_steps += copies as u64;
            let truncated_finals: Vec<&Observation> = step
                .final_observations
                .iter()
                .zip(&step.truncated)
                .filter_map(|(o, &t)| o.as_ref().filter(|_| t))
                .collect();
            let mut final_values = if truncated_finals.is_empty() {
                Vec::new()
            } else {
                self.agent.values(&truncated_finals)
            }
            .into_iter();
            for (i, trajectory) in records.iter_mut().enumerate() {
                trajectory.push(Record {
                    observation: std::mem::replace(
                        &mut observations[i],
                        step.observations[i].clone(),
                    ),
                    action: acted.actions[i].clone(),
                    log_prob: acted.log_probs[i],
                    value: acted.values[i],
                    reward: (step.rewards[i] - rate * step.elapsed_s[i]) as f32,
                    discount: step_discount(
                        self.config.gamma,
                        self.config.discount_time_s,
                        step.elapsed_s[i],
                    ),
                    terminated: step.terminated[i],
                    truncated: step.truncated[i],
                    final_value: if step.truncated[i] {
                        final_values.next()
                    } else {
                        None
                    },
                });
            }
            if self.config.differential {
                for (reward, elapsed) in step.rewards.iter().zip(&step.elapsed_s) {
                    self.scale.observe_rate(*reward, *elapsed);
                }
            }
            tally.record(&step);
        }
        if self.config.normalize_rewards {
            for (copy, trajectory) in records.iter_mut().enumerate() {
                for r in trajectory.iter_mut() {
                    self.scale.observe(copy, f64::from(r.reward), r.discount);
                    r.reward = self.scale.apply(f64::from(r.reward)) as f32;
                    if r.terminated || r.truncated {
                        self.scale.end_episode(copy);
                    }
                }
            }
        }
        let last_values = self.agent.values(&observations.iter().collect::<Vec<_>>());
        Ok((records, last_values, tally))
    }

    /// The share of the run's steps done (0 for a run whose length is unknown).
    fn progress(&self) -> f64 {
        if self.total_steps == 0 {
            return 0.0;
        }
        (self.env_steps as f64 / self.total_steps as f64).min(1.0)
    }

    /// The rate for the next update: annealed linearly from `lr` by the share of the run done
    /// (a run whose length is unknown keeps `lr`).
    fn learning_rate(&self) -> f64 {
        if !self.config.anneal_lr {
            return self.config.lr;
        }
        self.config.lr * (1.0 - self.progress())
    }

    /// One whole episode per copy, each group of `same_window` copies on one seed (each copy
    /// on its own with a baseline heuristic, whose rollouts on the same seeds come third);
    /// rewards scaled as in [`Self::rollout`], the heuristic's by the same unit.
    fn play_windows(&mut self) -> schedlab_env::Result<PlayedWindows<E::Metrics>> {
        let Collector::Windows {
            copies,
            heuristic,
            rounds,
        } = &mut self.collector
        else {
            unreachable!("update plays windows only with the window collector");
        };
        let group = self.config.same_window.max(1);
        let seeds: Vec<u64> = (0..copies.len())
            .map(|c| episode_seed(self.seed ^ WINDOW_SEEDS, (c / group) as u64, *rounds))
            .collect();
        *rounds += 1;
        let mut tally = EpisodeTally::default();
        let mut played = same_window::play(
            copies,
            &seeds,
            &mut self.agent,
            (self.config.gamma, self.config.discount_time_s),
            &mut tally,
        )?;
        self.env_steps += played.iter().map(|e| e.records.len() as u64).sum::<u64>();
        let discount = (self.config.gamma, self.config.discount_time_s);
        let mut baseline = (!heuristic.is_empty())
            .then(|| {
                heuristic
                    .par_iter_mut()
                    .zip(&seeds)
                    .map(|((env, policy), &seed)| {
                        same_window::play_heuristic(env, policy.as_mut(), seed, discount)
                    })
                    .collect::<schedlab_env::Result<Vec<_>>>()
            })
            .transpose()?;
        if self.config.normalize_rewards {
            same_window::scale_rewards(&mut self.scale, &mut played);
            if let Some(rollouts) = &mut baseline {
                same_window::scale_heuristic(&self.scale, rollouts);
            }
        }
        Ok((played, tally, baseline))
    }

    /// Each rollout step with its GAE advantage and value target; `last_values[copy]`
    /// bootstraps a trajectory the rollout cut off.
    fn gae_rows<'a>(
        &self,
        records: &'a [Vec<Record>],
        last_values: &[f32],
    ) -> Vec<(&'a Record, f32, f32)> {
        let mut rows: Vec<(&Record, f32, f32)> = Vec::new();
        for (copy, trajectory) in records.iter().enumerate() {
            let transitions: Vec<Transition> = trajectory
                .iter()
                .enumerate()
                .map(|(t, r)| Transition {
                    reward: r.reward,
                    value: r.value,
                    next_value: match (r.final_value, trajectory.get(t + 1)) {
                        (Some(v), _) => v,
                        (None, Some(next)) => next.value,
                        (None, None) => last_values[copy],
                    },
                    terminated: r.terminated,
                    truncated: r.truncated,
                    discount: r.discount,
                })
                .collect();
            let (advantages, returns) = gae(&transitions, self.config.gae_lambda as f32);
            rows.extend(
                trajectory
                    .iter()
                    .zip(advantages)
                    .zip(returns)
                    .map(|((r, a), ret)| (r, a, ret)),
            );
        }
        rows
    }

    /// Optimises the clipped objective on `rows` (record, advantage, value target); returns
    /// the mean policy loss, value loss and entropy, and the gradient steps taken.
    fn fit(
        &mut self,
        rows: &[(&Record, f32, f32)],
        lr: f64,
        shuffle: &mut StdRng,
    ) -> (FitStats, u64) {
        let entropy_coef = if self.config.anneal_entropy {
            self.config.entropy_coef * (1.0 - self.progress())
        } else {
            self.config.entropy_coef
        } as f32;
        let loss_config = PpoLossConfig::new()
            .with_clip(self.config.clip as f32)
            .with_value_coef(self.config.value_coef as f32)
            .with_entropy_coef(entropy_coef);
        let per_batch = match self.config.minibatch_size {
            0 => rows.len().div_ceil(self.config.minibatches.max(1)),
            size => size,
        };
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let (mut sums, mut count) = ([0f32; 6], 0.0);
        let mut epochs_run = 0;
        for _ in 0..self.config.epochs {
            order.shuffle(shuffle);
            epochs_run += 1;
            let (epoch_kl, epoch_batches) = (sums[3], count);
            for chunk in order.chunks(per_batch) {
                let batch = minibatch(rows, chunk, self.config.normalize_advantages);
                let loss = sharded_loss(
                    &self.agent.net,
                    &self.context.action_space,
                    &batch,
                    &loss_config,
                    &self.device,
                );
                for (sum, term) in sums.iter_mut().zip(loss.terms) {
                    *sum += term;
                }
                count += 1.0;
                let grads = loss.grads;
                sums[5] += global_norm(&self.agent.net, &grads);
                let net = self.agent.net.clone();
                self.agent.net = self.optim.step(lr, net, grads);
            }
            let kl = (sums[3] - epoch_kl) / (count - epoch_batches);
            if self.config.target_kl > 0.0 && f64::from(kl) > self.config.target_kl {
                break;
            }
        }
        let [
            policy_loss,
            value_loss,
            entropy,
            approx_kl,
            clip_fraction,
            grad_norm,
        ] = sums.map(|x| x / count);
        let stats = FitStats {
            policy_loss,
            value_loss,
            entropy,
            approx_kl,
            clip_fraction,
            grad_norm,
            explained_variance: explained_variance(rows),
            entropy_coef,
            epochs_run: (self.config.target_kl > 0.0).then_some(epochs_run),
        };
        (stats, count as u64)
    }
}

/// An env copy and the baseline heuristic that plays on it.
type HeuristicCopy<E> = (E, Box<dyn Policy>);

/// An update's episodes, their tally and the baseline heuristic's rollouts on their seeds.
type PlayedWindows<M> = (
    Vec<same_window::Played>,
    EpisodeTally<M>,
    Option<Vec<same_window::HeuristicRollout>>,
);

/// One env copy and one built `baseline_heuristic` per training copy (none without one). The
/// heuristic plays every decision itself (no forced ones skipped: its plan spans them), under
/// the copies' plan, so it plays the same window cut at the same time.
fn heuristic_copies<E: SchedulingEnv>(
    prototype: &E,
    config: &PpoConfig,
) -> Result<Vec<HeuristicCopy<TrainingEnv<E>>>, PlayError> {
    let heuristic = &config.baseline_heuristic;
    if heuristic.is_empty() {
        return Ok(Vec::new());
    }
    (0..config.envs)
        .map(|_| {
            let env = TrainingEnv::new(prototype.fresh_copy(), EpisodePlan::default());
            let policy = registry::build(heuristic, &env.context(), &[]).map_err(|source| {
                PlayError::Build {
                    what: format!("baseline heuristic `{heuristic}`"),
                    source,
                }
            })?;
            Ok((env, policy))
        })
        .collect()
}

/// What one optimisation phase saw, as CleanRL charts it.
struct FitStats {
    policy_loss: f32,
    value_loss: f32,
    entropy: f32,
    approx_kl: f32,
    clip_fraction: f32,
    /// Mean over minibatches of the gradients' global norm before clipping.
    grad_norm: f32,
    explained_variance: Option<f32>,
    /// The entropy bonus this phase optimised with.
    entropy_coef: f32,
    /// Epochs run before the KL bound stopped them, when there is one.
    epochs_run: Option<usize>,
}

/// The episodes copies reset at `progress` (the share of the run done) play: cut at a mean
/// that grows over the curriculum's share, and drawn from the kept windows during the
/// filter's share.
fn episode_plan(
    config: &PpoConfig,
    kept_windows: &Option<Arc<Vec<u64>>>,
    progress: f64,
) -> EpisodePlan {
    let cut_mean_s =
        (config.curriculum_start_s > 0.0 && progress < config.curriculum_share).then(|| {
            let grown = progress / config.curriculum_share;
            config.curriculum_start_s
                + (config.curriculum_end_s - config.curriculum_start_s) * grown
        });
    EpisodePlan {
        cut_mean_s,
        windows: kept_windows
            .clone()
            .filter(|_| progress < config.filter_share),
    }
}

/// `1 - Var(G - V) / Var(G)` of the critic's values at collection against the value
/// targets: 1 predicts them exactly, 0 no better than their mean, below 0 worse. None where
/// the targets do not vary (not charted: a non-finite curve would read as divergence).
fn explained_variance(rows: &[(&Record, f32, f32)]) -> Option<f32> {
    let variance = |v: &mut dyn Iterator<Item = f64>| {
        let v: Vec<f64> = v.collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64
    };
    let targets = variance(&mut rows.iter().map(|r| r.2 as f64));
    let residual = variance(&mut rows.iter().map(|r| (r.2 - r.0.value) as f64));
    (targets > 0.0).then(|| (1.0 - residual / targets) as f32)
}

/// Gathers rows into a batch, standardising the advantages within it if asked.
fn minibatch(rows: &[(&Record, f32, f32)], chunk: &[usize], normalize: bool) -> PpoBatch {
    let advantages: Vec<f32> = chunk.iter().map(|&k| rows[k].1).collect();
    let (mean, std) = if normalize {
        let mean = advantages.iter().sum::<f32>() / advantages.len() as f32;
        let var =
            advantages.iter().map(|a| (a - mean).powi(2)).sum::<f32>() / advantages.len() as f32;
        (mean, var.sqrt() + 1e-8)
    } else {
        (0.0, 1.0)
    };
    let (observations, masks, actions) = stack(
        chunk
            .iter()
            .map(|&k| (&rows[k].0.observation, rows[k].0.action.as_slice())),
    );
    PpoBatch {
        observations,
        masks,
        actions,
        old_log_probs: chunk.iter().map(|&k| rows[k].0.log_prob).collect(),
        advantages: advantages.iter().map(|a| (a - mean) / std).collect(),
        returns: chunk.iter().map(|&k| rows[k].2).collect(),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use schedlab_env::{Scenario, SingleJobEnv};

    use super::*;

    #[test]
    fn explained_variance_compares_the_critic_with_the_targets_mean() {
        let record = |value: f32| Record {
            observation: Observation {
                features: Vec::new(),
                action_mask: Vec::new(),
            },
            action: Vec::new(),
            log_prob: 0.0,
            value,
            reward: 0.0,
            discount: 1.0,
            terminated: false,
            truncated: false,
            final_value: None,
        };
        let ev = |values: [f32; 3], targets: [f32; 3]| {
            let records = values.map(record);
            let rows: Vec<(&Record, f32, f32)> = records
                .iter()
                .zip(targets)
                .map(|(r, g)| (r, 0.0, g))
                .collect();
            explained_variance(&rows)
        };
        assert_eq!(ev([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]), Some(1.0));
        // a constant critic explains nothing; one off by a constant everything
        assert_eq!(ev([5.0, 5.0, 5.0], [1.0, 2.0, 3.0]), Some(0.0));
        assert_eq!(ev([0.0, 1.0, 2.0], [1.0, 2.0, 3.0]), Some(1.0));
        // residuals (1, -1, 0) of targets with variance 2/3: 1 - (2/3)/(2/3)
        assert_eq!(ev([0.0, 3.0, 3.0], [1.0, 2.0, 3.0]), Some(0.0));
        assert_eq!(ev([1.0, 2.0, 3.0], [4.0, 4.0, 4.0]), None);
    }

    fn trainer_with(config: PpoConfig, seed: u64) -> PpoTrainer<SingleJobEnv> {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        let scenario = Scenario::load(&path).unwrap();
        PpoTrainer::new(
            &SingleJobEnv::new(scenario),
            config.with_hidden(32),
            seed,
            Device::flex().autodiff(),
        )
        .unwrap()
    }

    fn trainer(seed: u64) -> PpoTrainer<SingleJobEnv> {
        trainer_with(PpoConfig::new().with_envs(2).with_rollout_steps(8), seed)
    }

    fn run(seed: u64) -> Vec<(u64, f32, f32, f32, usize)> {
        let mut t = trainer(seed);
        (0..3)
            .map(|_| {
                let s = t.update().unwrap();
                let tags: Vec<&str> = s.scalars.iter().map(|(tag, _)| *tag).collect();
                assert_eq!(
                    tags[..7],
                    [
                        "losses/policy_loss",
                        "losses/value_loss",
                        "losses/entropy",
                        "losses/approx_kl",
                        "losses/clipfrac",
                        "losses/grad_norm",
                        "charts/learning_rate"
                    ]
                );
                let chart = |tag: &str| s.scalars.iter().find(|(t, _)| *t == tag).map(|c| c.1);
                // the first epoch starts at the old policy: KL and clipping only grow from 0
                let kl = chart("losses/approx_kl").unwrap();
                let clipped = chart("losses/clipfrac").unwrap();
                assert!(kl >= -1e-6 && kl.is_finite(), "{kl}");
                assert!((0.0..=1.0).contains(&clipped), "{clipped}");
                let grad_norm = chart("losses/grad_norm").unwrap();
                assert!(grad_norm > 0.0 && grad_norm.is_finite(), "{grad_norm}");
                if let Some(ev) = chart("losses/explained_variance") {
                    assert!(ev <= 1.0 && ev.is_finite(), "{ev}");
                }
                (
                    s.env_steps,
                    s.scalars[0].1,
                    s.scalars[1].1,
                    s.scalars[2].1,
                    s.finished.len(),
                )
            })
            .collect()
    }

    #[test]
    fn updates_count_steps_report_finite_losses_and_repeat_with_the_seed() {
        let first = run(4);
        for (k, &(steps, policy, value, entropy, _)) in first.iter().enumerate() {
            assert_eq!(steps, (k as u64 + 1) * 2 * 8);
            assert!(
                policy.is_finite() && value.is_finite() && entropy > 0.0,
                "{:?}",
                first[k]
            );
        }
        // 48 rounds of a workload whose episodes last 7-12 rounds: some episodes ended
        assert!(first.iter().map(|s| s.4).sum::<usize>() > 0);
        assert_eq!(first, run(4), "the same seed trains identically");
    }

    /// Rollouts of 80 copies (inference in pieces) and minibatches of 640 rows (update in
    /// shards), per job and flat, train the same weights on 1, 2 and 4 threads.
    #[test]
    fn training_is_identical_at_any_thread_count() {
        let env = one_choice_philly_mini();
        let train = |threads: usize, per_unit: bool| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let config = PpoConfig::new()
                    .with_envs(80)
                    .with_rollout_steps(8)
                    .with_minibatches(1)
                    .with_epochs(2)
                    .with_per_unit(per_unit)
                    .with_hidden(16);
                let mut t = PpoTrainer::new(&env, config, 3, Device::flex().autodiff()).unwrap();
                let losses: Vec<Vec<f32>> = (0..3)
                    .map(|_| t.update().unwrap().scalars.iter().map(|s| s.1).collect())
                    .collect();
                // the trained critic on the prototype's first observation
                let mut probe = env.fresh_copy();
                let (first, _) = probe.reset(9).unwrap();
                (losses, t.agent.values(&[&first]))
            })
        };
        for per_unit in [true, false] {
            let one = train(1, per_unit);
            assert_eq!(
                one,
                train(2, per_unit),
                "per_unit {per_unit}: 1 and 2 threads"
            );
            assert_eq!(
                one,
                train(4, per_unit),
                "per_unit {per_unit}: 1 and 4 threads"
            );
        }
    }

    /// Two groups of two copies.
    fn window_trainer(seed: u64) -> PpoTrainer<SingleJobEnv> {
        trainer_with(PpoConfig::new().with_envs(4).with_same_window(2), seed)
    }

    #[test]
    fn same_window_plays_whole_episodes_a_window_per_group_and_repeats_with_the_seed() {
        let mut t = window_trainer(5);
        let (played, tally, heuristic) = t.play_windows().unwrap();
        assert!(heuristic.is_none(), "no baseline heuristic asked for");
        let (finished, _) = tally.finish();
        assert_eq!(finished.len(), 4, "one whole episode per copy");
        assert!(
            played.iter().all(
                |e| e.records.last().unwrap().terminated || e.records.last().unwrap().truncated
            )
        );
        let first = |c: usize| &played[c].records[0].observation.features;
        assert_eq!(first(0), first(1), "a group starts on one window");
        assert_eq!(first(2), first(3));
        assert_ne!(first(0), first(2), "groups draw their own windows");
        let decisions: usize = played.iter().map(|e| e.records.len()).sum();
        assert_eq!(t.env_steps, decisions as u64);
        for e in &played {
            assert_eq!(e.times.len(), e.records.len());
            assert_eq!(
                e.times[0], 0.0,
                "a decision's time is the clock before its step"
            );
            assert!(e.times.windows(2).all(|w| w[1] > w[0]), "{:?}", e.times);
        }
        let (again, ..) = t.play_windows().unwrap();
        assert_ne!(
            &again[0].records[0].observation.features,
            first(0),
            "the next update draws new windows"
        );

        let update = |seed| {
            let mut t = window_trainer(seed);
            (0..2)
                .map(|_| {
                    let s = t.update().unwrap();
                    assert!(s.scalars.iter().all(|(_, v)| v.is_finite()), "{s:?}");
                    (s.env_steps, s.scalars)
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(update(5), update(5), "the same seed trains identically");
    }

    /// philly-mini's env through the one-choice interface.
    fn one_choice_philly_mini() -> schedlab_env::jobs::JobsEnv {
        use schedlab_env::jobs::{JobsEnv, JobsWorkload};
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/philly-mini.toml");
        let one_choice = [("window.interface".to_string(), "one-choice".to_string())];
        JobsEnv::new(Arc::new(JobsWorkload::load(&path, &one_choice).unwrap()))
    }

    /// philly-mini through the one-choice interface, trained per job under a curriculum, a
    /// trajectory filter, a KL bound and an entropy schedule.
    fn shaped_jobs_trainer(seed: u64) -> PpoTrainer<schedlab_env::jobs::JobsEnv> {
        let env = one_choice_philly_mini();
        let config = PpoConfig::new()
            .with_envs(2)
            .with_rollout_steps(32)
            .with_per_unit(true)
            .with_hidden(16)
            .with_curriculum_start_s(1800.0)
            .with_curriculum_end_s(7200.0)
            .with_filter_heuristic("fifo".into())
            .with_filter_pool(8)
            .with_filter_quantile(0.5)
            .with_target_kl(1e-6)
            .with_anneal_entropy(true)
            .with_discount_time_s(3600.0)
            .with_skip_forced(true);
        config.check().unwrap();
        let mut trainer = PpoTrainer::new(&env, config, seed, Device::flex().autodiff()).unwrap();
        trainer.plan(4 * 2 * 32);
        trainer
    }

    #[test]
    fn curriculum_filter_and_schedules_follow_the_run_and_repeat_with_the_seed() {
        let run = |seed| {
            let mut t = shaped_jobs_trainer(seed);
            let kept = t.kept_windows.clone().expect("a filter was asked for");
            (0..4)
                .map(|_| {
                    let s = t.update().unwrap();
                    let scalar = |tag: &str| {
                        s.scalars
                            .iter()
                            .find(|(t, _)| *t == tag)
                            .unwrap_or_else(|| panic!("no {tag} in {:?}", s.scalars))
                            .1
                    };
                    (
                        scalar("charts/cut_mean_s"),
                        scalar("charts/filtering"),
                        scalar("charts/entropy_coef"),
                        scalar("losses/epochs_run"),
                        s.env_steps,
                    )
                })
                .collect::<Vec<_>>()
                .into_iter()
                .chain(std::iter::once((kept.len() as f32, 0.0, 0.0, 0.0, 0)))
                .collect::<Vec<_>>()
        };
        let first = run(3);
        let kept = first[4].0;
        assert!((4.0..8.0).contains(&kept), "kept {kept} of 8 windows");
        // the cut's mean grows from the start over the first half, then episodes are whole
        assert_eq!(first[0].0, 1800.0);
        assert_eq!(first[1].0, 1800.0 + 5400.0 * 0.5);
        assert_eq!((first[2].0, first[3].0), (0.0, 0.0));
        // the filter holds for the first half only; the entropy bonus falls to 0
        assert_eq!(
            first[..4].iter().map(|s| s.1).collect::<Vec<_>>(),
            [1.0, 1.0, 0.0, 0.0]
        );
        assert!(first[0].2 > first[1].2 && first[3].2 < first[0].2);
        // a KL bound of 1e-6 stops updates before their 4 epochs (the rate anneals, so the
        // later ones move less per epoch and run longer)
        assert!(
            first[..4].iter().all(|s| (1.0..=4.0).contains(&s.3)),
            "{first:?}"
        );
        assert!(first[..4].iter().any(|s| s.3 < 4.0), "{first:?}");
        assert_eq!(first, run(3), "the same seed trains identically");
    }

    #[test]
    fn the_differential_form_measures_rewards_against_the_running_rate_and_checkpoints_it() {
        let config = || {
            PpoConfig::new()
                .with_envs(2)
                .with_rollout_steps(8)
                .with_normalize_rewards(false)
                .with_differential(true)
        };
        let mut t = trainer_with(config(), 3);
        t.update().unwrap();
        let stats = t.return_stats().expect("the rate is kept in checkpoints");
        assert!(stats.seconds > 0.0 && stats.reward_sum != 0.0, "{stats:?}");
        let rate = t.scale.reward_rate();
        assert_eq!(rate, stats.reward_sum / stats.seconds);
        // the next rollout's rewards are its raw ones less that rate times their span
        let (records, _, _) = t.rollout().unwrap();
        let raw: f64 = records.iter().flatten().map(|r| f64::from(r.reward)).sum();
        let after = t.scale.stats();
        let (rewards, seconds) = (
            after.reward_sum - stats.reward_sum,
            after.seconds - stats.seconds,
        );
        let expected = rewards - rate * seconds;
        assert!(
            (raw - expected).abs() < 1e-3 * expected.abs().max(1.0),
            "{raw} vs {expected}"
        );
        let mut again = trainer_with(config(), 3);
        again.update().unwrap();
        assert_eq!(
            again.return_stats(),
            Some(stats),
            "the same seed, the same rate"
        );
    }

    #[test]
    fn same_window_needs_whole_groups_of_two_or_more() {
        for (envs, group) in [(4, 1), (4, 3), (2, 4)] {
            let config = PpoConfig::new().with_envs(envs).with_same_window(group);
            assert!(
                config
                    .check()
                    .unwrap_err()
                    .to_string()
                    .contains("same_window"),
                "{envs} {group}"
            );
        }
        assert!(
            PpoConfig::new()
                .with_envs(4)
                .with_same_window(4)
                .check()
                .is_ok()
        );
    }

    #[test]
    fn a_baseline_heuristic_plays_each_copys_own_seed_and_trains_repeatably() {
        let config = || {
            PpoConfig::new()
                .with_envs(2)
                .with_baseline_heuristic("static".into())
                .with_minibatch_size(8)
        };
        let mut t = trainer_with(config(), 3);
        let (played, _, heuristic) = t.play_windows().unwrap();
        let heuristic = heuristic.expect("the heuristic played");
        assert_eq!(heuristic.len(), 2);
        let first = |c: usize| &played[c].records[0].observation.features;
        assert_ne!(first(0), first(1), "each copy on its own seed");
        // each rollout is the heuristic's episode on its copy's seed, in the copies' unit
        let mut env = t.prototype.fresh_copy();
        let mut fixed = registry::build("static", &env.context(), &[]).unwrap();
        for (c, rollout) in heuristic.iter().enumerate() {
            let seed = episode_seed(3 ^ WINDOW_SEEDS, c as u64, 0);
            let mut alone =
                same_window::play_heuristic(&mut env, fixed.as_mut(), seed, (0.99, 0.0)).unwrap();
            same_window::scale_heuristic(&t.scale, std::slice::from_mut(&mut alone));
            assert_eq!(rollout, &alone, "copy {c}");
        }
        let update = |seed| {
            let mut t = trainer_with(config(), seed);
            (0..2)
                .map(|_| {
                    let s = t.update().unwrap();
                    assert!(s.scalars.iter().all(|(_, v)| v.is_finite()), "{s:?}");
                    (s.env_steps, s.gradient_steps, s.scalars)
                })
                .collect::<Vec<_>>()
        };
        let first = update(3);
        // the update's decisions cut into minibatches of 8 rows, over 4 epochs
        let (rows, gradient_steps) = (first[0].0, first[0].1);
        assert!(rows > 8, "{rows} decisions");
        assert_eq!(gradient_steps, 4 * rows.div_ceil(8));
        assert_eq!(first, update(3), "the same seed trains identically");
        let unknown = PpoTrainer::new(
            &t.prototype,
            config().with_baseline_heuristic("nope".into()),
            3,
            Device::flex().autodiff(),
        )
        .err()
        .expect("an unknown heuristic is refused")
        .to_string();
        assert!(unknown.contains("baseline heuristic `nope`"), "{unknown}");
        for refused in [
            config().with_envs(4).with_same_window(2),
            config().with_differential(true),
        ] {
            let err = refused.check().unwrap_err().to_string();
            assert!(err.contains("baseline heuristic"), "{err}");
        }
    }
}
