//! PPO's hyperparameters: their defaults (A2C's and the jobs cluster's too), their checks
//! and the memory a rollout of them takes.

use schedlab_agents::learned::gae::{LambdaPer, step_lambda};
use schedlab_agents::{EnvKind, PolicyContext};
use serde::{Deserialize, Serialize};

use crate::errors::Unmet;
use crate::learner::{MAX_STEPS_HELD, check_common, require};
use crate::play_settings::PlaySettings;

/// PPO hyperparameters, by the part of the loop they configure. The defaults suit the shipped
/// workloads' short episodes (tens of rounds): small rollouts, many updates. Kept in configs as
/// flat keys (`warm_start_episodes`, `filter_pool`): the form every run folder, protocol file
/// and `--set` has used. burn's `Config` derive passes no serde attributes, so these derive
/// serde themselves.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PpoConfig {
    /// Env copies stepped in parallel.
    pub envs: usize,
    /// Rounds collected from each copy per update.
    pub rollout_steps: usize,
    pub epochs: usize,
    pub minibatches: usize,
    /// 0: each update is cut into `minibatches`. Otherwise into minibatches of this many
    /// rows, for collectors of whole episodes (`same_window`, `baseline_heuristic`), whose
    /// updates hold from tens to thousands of decisions: a fixed count would take as few
    /// gradient steps on a thousand-decision update as on a short one.
    pub minibatch_size: usize,
    pub lr: f64,
    pub gamma: f64,
    /// 0: `gamma` per step. Otherwise `gamma` per this many virtual seconds, so same-time
    /// decisions are not discounted and the horizon is a span of time.
    pub discount_time_s: f64,
    pub gae_lambda: f64,
    /// Where time sets the discount (`discount_time_s > 0`): `choice` counts `gae_lambda` per
    /// step (the default: it won on the tiny Philly family's validation windows,
    /// docs/learned.md); `time` counts it per `discount_time_s` as the discount, so same-time
    /// choices pass the next interval's advantage on whole (agents/src/learned/gae.rs).
    pub gae_lambda_per: LambdaPer,
    pub clip: f64,
    /// Clip the value update as the policy's (CleanRL's `clip_vloss`): the loss is the larger
    /// of `(V - R)^2` and `(V_old + clip(V - V_old, -clip, clip) - R)^2`.
    pub clip_value: bool,
    pub value_coef: f64,
    pub entropy_coef: f64,
    /// Gradient norm clip.
    pub max_grad_norm: f64,
    /// Standardise advantages within each minibatch.
    pub normalize_advantages: bool,
    /// Score each unit of a one-choice space (the jobs env's window slots) with one shared
    /// network instead of one flat network (see agents/src/learned/actor_critic.rs).
    pub per_unit: bool,
    /// Divide rewards by the running spread of the discounted return (trainer/src/reward_scale.rs).
    pub normalize_rewards: bool,
    /// Anneal the learning rate linearly to 0 over the run's steps.
    pub anneal_lr: bool,
    /// Stop an update's epochs once an epoch's mean approximate KL to the rollout policy
    /// exceeds this (CleanRL's `target_kl`); 0: never.
    pub target_kl: f64,
    /// Anneal the entropy bonus linearly to 0 over the run's steps, as the learning rate.
    pub anneal_entropy: bool,
    /// Step states that allow one action only at once, so rollouts hold only decisions with
    /// a choice (trainer/src/training_env.rs); needs `discount_time_s > 0`.
    pub skip_forced: bool,
    /// The differential (average-reward) form of the reward, as Decima trains (Mao et al.,
    /// SIGCOMM 2019): each step's reward less the run's average reward per virtual second so
    /// far times the step's span, so that the return measures doing better than usual rather
    /// than how much work a window holds. Pair it with `gamma` near 1.
    pub differential: bool,
    /// The update's optimiser: `adam` (CleanRL's) or `rmsprop` (SB3's A2C default).
    pub optimizer: Optimizer,
    #[serde(flatten)]
    pub play: PlaySettings,
    #[serde(flatten)]
    pub warm_start: WarmStart,
    #[serde(flatten)]
    pub baseline: Baseline,
    #[serde(flatten)]
    pub curriculum: Curriculum,
    #[serde(flatten)]
    pub filter: TrajectoryFilter,
}

impl Default for PpoConfig {
    fn default() -> Self {
        PpoConfig {
            envs: 4,
            rollout_steps: 16,
            epochs: 4,
            minibatches: 4,
            minibatch_size: 0,
            lr: 3e-4,
            gamma: 0.99,
            discount_time_s: 0.0,
            gae_lambda: 0.95,
            gae_lambda_per: LambdaPer::Choice,
            clip: 0.2,
            clip_value: false,
            value_coef: 0.5,
            entropy_coef: 0.01,
            max_grad_norm: 0.5,
            normalize_advantages: true,
            per_unit: false,
            normalize_rewards: true,
            anneal_lr: true,
            target_kl: 0.0,
            anneal_entropy: false,
            skip_forced: false,
            differential: false,
            optimizer: Optimizer::Adam,
            play: PlaySettings::new(128),
            warm_start: WarmStart::default(),
            baseline: Baseline::default(),
            curriculum: Curriculum::default(),
            filter: TrajectoryFilter::default(),
        }
    }
}

/// The optimiser of PPO's and A2C's update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// Adam, epsilon 1e-5 (CleanRL ppo.py's).
    Adam,
    /// RMSprop as SB3's A2C builds it: torch's RMSprop at alpha 0.99, epsilon 1e-5 added to
    /// the root, no momentum (burn's default momentum is 0.9).
    Rmsprop,
}

impl Optimizer {
    pub(crate) fn init(self) -> burn::optim::ModuleOptimizer {
        match self {
            Optimizer::Adam => burn::optim::AdamConfig::new().with_epsilon(1e-5).init(),
            Optimizer::Rmsprop => burn::optim::RmsPropConfig::new()
                .with_alpha(0.99)
                .with_epsilon(1e-5)
                .with_momentum(0.0)
                .init(),
        }
    }
}

/// A behaviour-cloning warm start before PPO (trainer/src/imitation.rs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WarmStart {
    /// A scheduler to clone before PPO starts (trainer/src/imitation.rs); empty: none.
    #[serde(rename = "warm_start")]
    pub teacher: String,
    /// Teacher episodes played for cloning (every fourth held out to score agreement); 8
    /// left clones of `raes` that strand jobs on Philly windows they never saw (docs/jobs-cluster.md).
    #[serde(rename = "warm_start_episodes")]
    pub episodes: usize,
    /// Passes over the teacher's decisions (30 left a Philly clone of `raes` that strands jobs
    /// on held-out windows; see docs/jobs-cluster.md).
    #[serde(rename = "warm_start_epochs")]
    pub epochs: usize,
    #[serde(rename = "warm_start_lr")]
    pub lr: f64,
    /// DAgger rounds after cloning: the clone plays, the teacher labels the states it reached,
    /// and the clone is refitted on everything (trainer/src/imitation.rs); 0: plain cloning.
    #[serde(rename = "warm_start_dagger_rounds")]
    pub dagger_rounds: usize,
    /// Episodes the clone plays in each DAgger round.
    #[serde(rename = "warm_start_dagger_episodes")]
    pub dagger_episodes: usize,
    /// Passes over all the data gathered so far after each DAgger round.
    #[serde(rename = "warm_start_dagger_epochs")]
    pub dagger_epochs: usize,
}

impl Default for WarmStart {
    fn default() -> Self {
        WarmStart {
            teacher: String::new(),
            episodes: 32,
            epochs: 100,
            lr: 1e-3,
            dagger_rounds: 0,
            dagger_episodes: 8,
            dagger_epochs: 20,
        }
    }
}

/// Whole-episode baselines in place of GAE's critic (trainer/src/ppo/same_window.rs).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Baseline {
    /// 0: advantages by GAE against the critic. G >= 2: each update plays one whole episode
    /// per copy, the copies in groups of G on the same seed (the same drawn window), and a
    /// decision's advantage is its return-to-go minus that of the group's other rollouts from
    /// the same virtual time (trainer/src/ppo/same_window.rs); `rollout_steps` is then unused.
    pub same_window: usize,
    /// Empty: none. Otherwise a registry heuristic that plays each copy's seed beside it: each
    /// update plays one whole episode per copy, every copy on its own seed, and a decision's
    /// advantage is its return-to-go minus the heuristic's from the same virtual time
    /// (trainer/src/ppo/same_window.rs); `rollout_steps` is then unused.
    #[serde(rename = "baseline_heuristic")]
    pub heuristic: String,
}

/// Decima's curriculum on episode length (trainer/src/training_env.rs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Curriculum {
    /// A curriculum on episode length (trainer/src/training_env.rs): 0, none. Otherwise the
    /// mean virtual seconds at which episodes are cut when training starts; the mean grows
    /// linearly to `curriculum_end_s` over the first `curriculum_share` of the run, after
    /// which episodes are whole.
    #[serde(rename = "curriculum_start_s")]
    pub start_s: f64,
    #[serde(rename = "curriculum_end_s")]
    pub end_s: f64,
    #[serde(rename = "curriculum_share")]
    pub share: f64,
}

impl Default for Curriculum {
    fn default() -> Self {
        Curriculum {
            start_s: 0.0,
            end_s: 0.0,
            share: 0.5,
        }
    }
}

/// RLScheduler's trajectory filter (trainer/src/training_env.rs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrajectoryFilter {
    /// Trajectory filtering (trainer/src/training_env.rs): empty, none. Otherwise a registry
    /// heuristic that plays `filter_pool` drawn windows before training; for the first
    /// `filter_share` of the run episodes play only those whose cost under it is at most its
    /// `filter_quantile`.
    #[serde(rename = "filter_heuristic")]
    pub heuristic: String,
    #[serde(rename = "filter_quantile")]
    pub quantile: f64,
    #[serde(rename = "filter_share")]
    pub share: f64,
    #[serde(rename = "filter_pool")]
    pub pool: usize,
}

impl Default for TrajectoryFilter {
    fn default() -> Self {
        TrajectoryFilter {
            heuristic: String::new(),
            quantile: 0.9,
            share: 0.5,
            pool: 64,
        }
    }
}

impl PpoConfig {
    /// Refuses values the loop cannot run with, naming the first's key and value.
    pub fn check(&self) -> Result<(), Unmet> {
        let c = self;
        let same_window = c.baseline.same_window;
        require(&[
            (
                "rollout_steps",
                &c.rollout_steps,
                "1 <= rollout_steps <= 10000000",
                (1..=MAX_STEPS_HELD).contains(&c.rollout_steps),
            ),
            ("epochs", &c.epochs, "epochs >= 1", c.epochs >= 1),
            (
                "minibatches",
                &c.minibatches,
                "1 <= minibatches <= envs * rollout_steps",
                c.minibatches >= 1 && c.minibatches <= c.envs.saturating_mul(c.rollout_steps),
            ),
            (
                "gae_lambda",
                &c.gae_lambda,
                "0 <= gae_lambda <= 1",
                (0.0..=1.0).contains(&c.gae_lambda),
            ),
            ("clip", &c.clip, "clip > 0", c.clip > 0.0),
            (
                "same_window",
                &same_window,
                "same_window = 0, or >= 2 and dividing envs",
                same_window == 0 || (same_window >= 2 && c.envs.is_multiple_of(same_window)),
            ),
            (
                "target_kl",
                &c.target_kl,
                "target_kl >= 0",
                c.target_kl >= 0.0,
            ),
            (
                "discount_time_s",
                &c.discount_time_s,
                "discount_time_s > 0 with skip_forced",
                !c.skip_forced || c.discount_time_s > 0.0,
            ),
            (
                "same_window",
                &same_window,
                "same_window = 0 with differential",
                !c.differential || same_window == 0,
            ),
            (
                "baseline_heuristic",
                &c.baseline.heuristic,
                "same_window = 0 and no differential with a baseline heuristic",
                c.baseline.heuristic.is_empty() || (same_window == 0 && !c.differential),
            ),
        ])
        .and(c.warm_start.check())
        .and(c.curriculum.check())
        .and(c.filter.check())
        .and(check_common(
            ("envs", c.envs),
            c.lr,
            (c.gamma, c.discount_time_s),
            c.max_grad_norm,
            c.play.hidden,
        ))
    }

    /// A2C's defaults (Stable-Baselines3's, scaled to short episodes): short rollouts, one
    /// epoch, one minibatch, raw advantages.
    pub fn a2c() -> Self {
        PpoConfig {
            rollout_steps: 5,
            epochs: 1,
            minibatches: 1,
            lr: 7e-4,
            normalize_advantages: false,
            ..PpoConfig::default()
        }
    }

    /// The defaults for jobs workloads, where an episode is hundreds to thousands of
    /// decisions rather than tens: rollouts of 256 decisions per copy (1,024 per update, so an
    /// update sees whole decision points and several arrivals), a discount per virtual hour
    /// rather than per step (same-time decisions cost nothing; horizon about 100 hours), and a
    /// smaller entropy bonus for a 305-way choice whose uniform entropy would otherwise
    /// dominate the objective. The per-job network (`per_unit`) fits the one-choice interface
    /// only, so it is asked for by name.
    pub fn jobs(self) -> Self {
        PpoConfig {
            rollout_steps: 256,
            discount_time_s: 3600.0,
            entropy_coef: 0.003,
            ..self
        }
    }

    /// The GAE lambda of a step that took `elapsed_s` (`gae_lambda_per`).
    pub fn step_lambda(&self, elapsed_s: f64) -> f32 {
        step_lambda(
            self.gae_lambda,
            self.gae_lambda_per,
            self.discount_time_s,
            elapsed_s,
        )
    }

    /// These settings with [`PpoConfig::jobs`]'s where `env` is the jobs cluster.
    pub fn on(self, env: EnvKind) -> Self {
        match env == EnvKind::Jobs {
            true => self.jobs(),
            false => self,
        }
    }
}

impl WarmStart {
    /// Refuses a warm start that clones nothing or more teacher episodes than the cap.
    fn check(&self) -> Result<(), Unmet> {
        let (warm, dagger) = (self, self.dagger_rounds > 0);
        let demonstrations = warm.episodes + warm.dagger_rounds * warm.dagger_episodes;
        require(&[
            (
                "warm_start_episodes",
                &warm.episodes,
                "warm_start_episodes >= 1 with a warm start",
                warm.teacher.is_empty() || warm.episodes >= 1,
            ),
            (
                "warm_start_epochs",
                &warm.epochs,
                "warm_start_epochs >= 1 with a warm start",
                warm.teacher.is_empty() || warm.epochs >= 1,
            ),
            (
                "warm_start_lr",
                &warm.lr,
                "warm_start_lr > 0",
                warm.lr > 0.0,
            ),
            (
                "warm_start_dagger_episodes",
                &warm.dagger_episodes,
                "warm_start_dagger_episodes >= 1 with DAgger rounds",
                !dagger || warm.dagger_episodes >= 1,
            ),
            (
                "warm_start_dagger_epochs",
                &warm.dagger_epochs,
                "warm_start_dagger_epochs >= 1 with DAgger rounds",
                !dagger || warm.dagger_epochs >= 1,
            ),
            (
                "warm_start_episodes",
                &format!(
                    "{} (+ {} x {} DAgger episodes = {demonstrations})",
                    warm.episodes, warm.dagger_rounds, warm.dagger_episodes
                ),
                "warm_start_episodes + warm_start_dagger_rounds * warm_start_dagger_episodes <= 1000",
                demonstrations <= 1000,
            ),
        ])
    }
}

impl Curriculum {
    /// Refuses cuts that shrink or never end.
    fn check(&self) -> Result<(), Unmet> {
        require(&[
            (
                "curriculum_start_s",
                &self.start_s,
                "curriculum_start_s >= 0",
                self.start_s >= 0.0 && self.start_s.is_finite(),
            ),
            (
                "curriculum_end_s",
                &self.end_s,
                "curriculum_end_s >= curriculum_start_s with a curriculum",
                self.start_s == 0.0 || (self.end_s >= self.start_s && self.end_s.is_finite()),
            ),
            (
                "curriculum_share",
                &self.share,
                "0 < curriculum_share <= 1",
                self.share > 0.0 && self.share <= 1.0,
            ),
        ])
    }
}

impl TrajectoryFilter {
    /// Refuses shares out of range and a pool too small to leave windows out of.
    fn check(&self) -> Result<(), Unmet> {
        require(&[
            (
                "filter_quantile",
                &self.quantile,
                "0 < filter_quantile <= 1",
                self.quantile > 0.0 && self.quantile <= 1.0,
            ),
            (
                "filter_share",
                &self.share,
                "0 < filter_share <= 1",
                self.share > 0.0 && self.share <= 1.0,
            ),
            (
                "filter_pool",
                &self.pool,
                "filter_pool >= 2 with a filter heuristic",
                self.heuristic.is_empty() || self.pool >= 2,
            ),
        ])
    }
}

/// Refuses settings whose rollout would outgrow the memory budget: every copy's every step
/// keeps its observation, mask and a few scalars, in `f32`, and the update copies them once
/// into tensors.
pub(super) fn check_rollout_memory(
    config: &PpoConfig,
    ctx: &PolicyContext,
) -> schedlab_env::Result<()> {
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

#[cfg(test)]
mod tests {
    use burn::nn::{Linear, LinearConfig};
    use burn::optim::GradientsParams;
    use burn::tensor::{Device, Tensor};

    use super::Optimizer;

    /// Two steps of `rmsprop` on loss = sum(x W + b) move each parameter as torch's RMSprop
    /// does at SB3's arguments: v = 0.99 v + 0.01 g^2, p -= lr g / (sqrt(v) + 1e-5), with no
    /// momentum (burn's default of 0.9 would move the second step by 1.9 times the first's).
    #[test]
    fn rmsprop_steps_as_torchs_at_sb3s_arguments() {
        let device = Device::flex().autodiff();
        let mut layer: Linear = LinearConfig::new(2, 1).init(&device);
        let values = |layer: &Linear| -> Vec<f32> {
            let mut v = layer.weight.val().into_data().try_to_vec::<f32>().unwrap();
            v.extend(
                layer
                    .bias
                    .as_ref()
                    .unwrap()
                    .val()
                    .into_data()
                    .try_to_vec::<f32>()
                    .unwrap(),
            );
            v
        };
        let start = values(&layer);
        let mut optim = Optimizer::Rmsprop.init();
        let lr = 0.01;
        let x = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &device);
        // the gradient is the same at every step: column sums of x for W, 2 rows for b
        let grads = [4.0f32, 6.0, 2.0];
        let mut square = [0.0f32; 3];
        let mut want = start.clone();
        for _ in 0..2 {
            let loss = layer.forward(x.clone()).sum();
            let g = GradientsParams::from_grads(loss.backward(), &layer);
            layer = optim.step(lr, layer, g);
            for k in 0..3 {
                square[k] = 0.99 * square[k] + 0.01 * grads[k] * grads[k];
                want[k] -= lr as f32 * grads[k] / (square[k].sqrt() + 1e-5);
            }
        }
        for (got, want) in values(&layer).iter().zip(&want) {
            assert!(
                (got - want).abs() < 1e-5,
                "{got} vs {want} (from {start:?})"
            );
        }
    }
}
