//! PPO's hyperparameters: their defaults (A2C's and the jobs cluster's too), their checks
//! and the memory a rollout of them takes.

use super::*;

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

/// Refuses settings whose rollout would outgrow the memory budget: every copy's every step
/// keeps its observation, mask and a few scalars, in `f32`, and the update copies them once
/// into tensors.
pub(super) fn check_rollout_memory(config: &PpoConfig, ctx: &PolicyContext) -> schedlab_env::Result<()> {
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
