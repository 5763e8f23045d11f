//! The DQN loop: step every env copy epsilon-greedily, store the transitions, and after
//! `learning_starts` rounds take gradient steps on replayed minibatches against Double-DQN
//! targets; the target network follows the online one every `target_update_every` rounds
//! (hard copy at `tau = 1`, Polyak averaging below).

use std::path::Path;

use burn::config::Config;
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::Device;
use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_agents::dqn::{
    BranchingQ, BranchingQConfig, DqnAgent, DqnBatch, EpsilonSchedule, double_dqn_targets,
    q_values_of, td_loss,
};
use schedlab_agents::learned::gae::step_discount;
use schedlab_agents::options::Options;
use schedlab_agents::{EnvKind, Policy, PolicyContext, SchedulingEnv};
use schedlab_env::{Observation, VecEnv};

use crate::algorithm::Algorithm;
use crate::errors::{CheckpointError, Unmet};
use crate::grad_norm::clip_global_norm;
use crate::learner::{
    EpisodeTally, Learner, LearnerError, MAX_STEPS_HELD, UpdateStats, check_common, require,
};
use crate::replay::{ReplayBuffer, Replayed};
use crate::run::{Manifest, RunDir, load_optimizer, load_record};
use crate::trained::TrainedRun;

/// DQN hyperparameters. The defaults follow CleanRL's and Stable-Baselines3's DQN, scaled to
/// the shipped workloads' short episodes (tens of rounds) and a few thousand training rounds.
#[derive(Config, Debug)]
pub struct DqnConfig {
    /// Env copies stepped in parallel.
    #[config(default = 4)]
    pub envs: usize,
    /// Parallel steps of all copies per update (one progress and logging tick).
    #[config(default = 8)]
    pub steps_per_update: usize,
    /// Transitions kept for replay.
    #[config(default = 20_000)]
    pub buffer_size: usize,
    #[config(default = 64)]
    pub batch_size: usize,
    /// Env rounds collected before the first gradient step.
    #[config(default = 500)]
    pub learning_starts: u64,
    /// Gradient steps after every `train_every`-th parallel step of the copies.
    #[config(default = 1)]
    pub gradient_steps: usize,
    /// Parallel steps of the copies between gradient steps (CleanRL's `train_frequency`).
    #[config(default = 1)]
    pub train_every: u64,
    /// Double DQN (the online network picks the next action, the target values it); false:
    /// the target network's own best value, as CleanRL's dqn.py.
    #[config(default = true)]
    pub double: bool,
    #[config(default = 5e-4)]
    pub lr: f64,
    #[config(default = 0.99)]
    pub gamma: f64,
    /// 0: `gamma` per step. Otherwise `gamma` per this many virtual seconds (same-time
    /// decisions are not discounted).
    #[config(default = 0.0)]
    pub discount_time_s: f64,
    /// Env rounds between target-network updates.
    #[config(default = 500)]
    pub target_update_every: u64,
    /// Target update weight: 1 copies the online network, less averages (soft update).
    #[config(default = 1.0)]
    pub tau: f64,
    #[config(default = 1.0)]
    pub epsilon_start: f64,
    #[config(default = 0.05)]
    pub epsilon_end: f64,
    /// Env rounds over which epsilon falls linearly from start to end.
    #[config(default = 10_000)]
    pub exploration_steps: u64,
    /// Huber threshold of the TD loss. A threshold above every TD error makes it half the
    /// squared error, CleanRL's `mse_loss` at half the gradient (Adam's step is the same).
    #[config(default = 1.0)]
    pub huber_delta: f64,
    /// Multiplies every reward before it is replayed, so the TD targets, the Huber threshold
    /// and the Q values are in the scaled unit (a jobs step's reward is in job-hours, so a
    /// window's return reaches thousands against a Huber threshold of 1). 1: unscaled; what
    /// wins on the jobs validation windows is not yet measured (docs/learned.md).
    #[config(default = 1.0)]
    pub reward_scale: f64,
    /// Gradient norm clip.
    #[config(default = 10.0)]
    pub max_grad_norm: f64,
    #[config(default = 128)]
    pub hidden: usize,
    /// The second hidden layer's width; 0: `hidden` (CleanRL's dqn.py: 120 then 84).
    #[config(default = 0)]
    pub hidden_out: usize,
}

/// Double DQN with action branching (`--agent dqn`).
pub struct Dqn;

impl Algorithm for Dqn {
    const NAME: &'static str = "dqn";
    const HELP: &'static str = "Double DQN with action branching, from replay";
    const HAS_TARGET_NETWORK: bool = true;
    type Config = DqnConfig;

    /// Jobs workloads discount per virtual hour: their episodes hold thousands of decisions.
    fn default_config(env: EnvKind) -> DqnConfig {
        match env == EnvKind::Jobs {
            true => DqnConfig::new().with_discount_time_s(3600.0),
            false => DqnConfig::new(),
        }
    }

    fn check(config: &DqnConfig) -> Result<(), Unmet> {
        config.check()
    }

    fn learner<E: SchedulingEnv>(
        prototype: &E,
        config: DqnConfig,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        Ok(Box::new(DqnTrainer::new(prototype, config, seed, device)?))
    }

    /// Greedy: the highest Q (a new agent's epsilon is 0).
    fn load(
        trained: &TrainedRun,
        config: DqnConfig,
        _: &Options,
    ) -> std::io::Result<Box<dyn Policy>> {
        trained.require_same_spaces()?;
        let ctx = trained.context();
        let net = BranchingQConfig::new(ctx.observation_space.len(), ctx.action_space.mask_len())
            .with_hidden(config.hidden)
            .with_hidden_out(config.hidden_out)
            .init(trained.device);
        let net = trained.load_weights(net)?;
        Ok(Box::new(DqnAgent::new(net, ctx, trained.manifest.seed)))
    }
}

impl DqnConfig {
    /// Refuses values the loop cannot run with, naming the first's key and value.
    pub fn check(&self) -> Result<(), Unmet> {
        let c = self;
        require(&[
            (
                "steps_per_update",
                &c.steps_per_update,
                "steps_per_update >= 1",
                c.steps_per_update >= 1,
            ),
            (
                "batch_size",
                &c.batch_size,
                "batch_size >= 1",
                c.batch_size >= 1,
            ),
            (
                "buffer_size",
                &c.buffer_size,
                "batch_size <= buffer_size <= 10000000",
                c.buffer_size >= c.batch_size && c.buffer_size <= MAX_STEPS_HELD,
            ),
            (
                "train_every",
                &c.train_every,
                "train_every >= 1",
                c.train_every >= 1,
            ),
            ("tau", &c.tau, "0 < tau <= 1", c.tau > 0.0 && c.tau <= 1.0),
            (
                "epsilon_start",
                &c.epsilon_start,
                "0 <= epsilon_start <= 1",
                (0.0..=1.0).contains(&c.epsilon_start),
            ),
            (
                "epsilon_end",
                &c.epsilon_end,
                "0 <= epsilon_end <= 1",
                (0.0..=1.0).contains(&c.epsilon_end),
            ),
            (
                "huber_delta",
                &c.huber_delta,
                "huber_delta > 0",
                c.huber_delta > 0.0,
            ),
            (
                "reward_scale",
                &c.reward_scale,
                "reward_scale > 0 and finite",
                c.reward_scale > 0.0 && c.reward_scale.is_finite(),
            ),
        ])
        .and(check_common(
            ("envs", c.envs),
            c.lr,
            (c.gamma, c.discount_time_s),
            c.max_grad_norm,
            c.hidden,
        ))
    }
}

pub struct DqnTrainer<E: SchedulingEnv> {
    config: DqnConfig,
    envs: VecEnv<E>,
    context: PolicyContext,
    agent: DqnAgent,
    /// The target network, without autodiff.
    target: BranchingQ,
    optim: ModuleOptimizer,
    replay: ReplayBuffer,
    observations: Vec<Observation>,
    device: Device,
    rng: StdRng,
    env_steps: u64,
    last_target_update: u64,
}

impl<E: SchedulingEnv> DqnTrainer<E> {
    pub fn new(
        prototype: &E,
        config: DqnConfig,
        seed: u64,
        device: Device,
    ) -> schedlab_env::Result<Self> {
        device.seed(seed);
        let ctx = prototype.policy_context();
        // a transition keeps two observations, the next mask and a few scalars, in `f32`
        let per_step =
            (2 * ctx.observation_space.len() + ctx.action_space.mask_len() + 8) as u64 * 4;
        schedlab_env::limits::check_memory(
            std::path::Path::new("--set"),
            "buffer_size",
            format!("{} transitions of {per_step} bytes", config.buffer_size),
            config.buffer_size as u64 * per_step,
        )?;
        let mut envs = VecEnv::new(prototype, config.envs, seed);
        let observations = envs.reset()?;
        let space = &ctx.action_space;
        let net = BranchingQConfig::new(ctx.observation_space.len(), space.mask_len())
            .with_hidden(config.hidden)
            .with_hidden_out(config.hidden_out)
            .init(&device);
        // gradients are clipped by their global norm before each step (crate::grad_norm)
        let optim = AdamConfig::new().init();
        let replay = ReplayBuffer::new(
            config.buffer_size,
            ctx.observation_space.len(),
            space.dims(),
            space.mask_len(),
        );
        Ok(DqnTrainer {
            target: net.valid(),
            agent: DqnAgent::new(net, &ctx, seed),
            optim,
            replay,
            observations,
            rng: StdRng::seed_from_u64(seed ^ 0xd9_d9),
            env_steps: 0,
            last_target_update: 0,
            context: ctx,
            config,
            envs,
            device,
        })
    }

    pub fn agent(&self) -> &DqnAgent {
        &self.agent
    }

    fn epsilon(&self) -> f64 {
        EpsilonSchedule {
            start: self.config.epsilon_start,
            end: self.config.epsilon_end,
            steps: self.config.exploration_steps,
        }
        .at(self.env_steps)
    }

    /// Transitions stored before gradient steps start (also after a resume).
    fn warm_replay(&self) -> usize {
        (self.config.learning_starts as usize)
            .min(self.config.buffer_size)
            .max(self.config.batch_size)
    }

    /// One gradient step on a replayed minibatch: the TD loss, the mean chosen Q value and the
    /// gradients' global norm before clipping.
    fn train_step(&mut self) -> (f32, f32, f32) {
        let rows = self.config.batch_size;
        let picked: Vec<Replayed> = self
            .replay
            .sample(rows, &mut self.rng)
            .into_iter()
            .map(|k| self.replay.get(k))
            .collect();
        let next: Vec<f32> = picked
            .iter()
            .flat_map(|t| t.next_observation.iter().copied())
            .collect();
        let target_next = q_values_of(&self.target, next.clone(), rows);
        // double DQN chooses by the online network; plain DQN by the target itself
        let online_next = self
            .config
            .double
            .then(|| q_values_of(&self.agent.net, next, rows));
        let chooser = online_next.as_deref().unwrap_or(&target_next);
        let width = self.context.action_space.mask_len();
        let targets = picked
            .iter()
            .enumerate()
            .flat_map(|(row, t)| {
                double_dqn_targets(
                    &self.context.action_space,
                    t.reward,
                    t.terminal,
                    t.discount,
                    &chooser[row * width..(row + 1) * width],
                    &target_next[row * width..(row + 1) * width],
                    t.next_mask,
                )
            })
            .collect();
        let batch = DqnBatch {
            observations: picked
                .iter()
                .flat_map(|t| t.observation.iter().copied())
                .collect(),
            actions: picked
                .iter()
                .flat_map(|t| t.action.iter().copied())
                .collect(),
            targets,
        };
        let loss = td_loss(
            &self.agent.net,
            &self.context.action_space,
            &batch,
            self.config.huber_delta as f32,
            &self.device,
        );
        let (td, q) = (
            loss.loss.clone().into_scalar::<f32>(),
            loss.chosen_q.into_scalar::<f32>(),
        );
        let mut grads = GradientsParams::from_grads(loss.loss.backward(), &self.agent.net);
        let norm = clip_global_norm(
            &self.agent.net,
            &mut grads,
            self.config.max_grad_norm as f32,
        );
        let values = (td, q, norm);
        let net = self.agent.net.clone();
        self.agent.net = self.optim.step(self.config.lr, net, grads);
        values
    }
}

impl<E: SchedulingEnv> Learner<E::Metrics> for DqnTrainer<E> {
    fn update(&mut self) -> schedlab_env::Result<UpdateStats<E::Metrics>> {
        let copies = self.envs.len() as u64;
        let mut tally = EpisodeTally::default();
        let (mut loss_sum, mut q_sum, mut norm_sum, mut gradient_steps) = (0.0, 0.0, 0.0, 0usize);
        let mut epsilon = self.epsilon();
        for _ in 0..self.config.steps_per_update {
            epsilon = self.epsilon();
            self.agent.epsilon = epsilon;
            let actions = self
                .agent
                .act_batch(&self.observations.iter().collect::<Vec<_>>());
            let step = self.envs.step(&actions)?;
            self.env_steps += copies;
            for (i, action) in actions.iter().enumerate() {
                // an episode that ended continues from a fresh observation; its transition
                // ends in the episode's own final observation
                let next = step.final_observations[i]
                    .as_ref()
                    .unwrap_or(&step.observations[i]);
                self.replay.push(Replayed {
                    observation: &self.observations[i].features,
                    action,
                    reward: (step.rewards[i] * self.config.reward_scale) as f32,
                    discount: step_discount(
                        self.config.gamma,
                        self.config.discount_time_s,
                        step.elapsed_s[i],
                    ),
                    next_observation: &next.features,
                    next_mask: &next.action_mask,
                    terminal: step.terminated[i],
                });
            }
            tally.record(&step);
            self.observations = step.observations;
            // counted from the env steps, so a resumed run keeps the cadence
            if self.replay.len() >= self.warm_replay()
                && (self.env_steps / copies).is_multiple_of(self.config.train_every)
            {
                for _ in 0..self.config.gradient_steps {
                    let (loss, q, grad_norm) = self.train_step();
                    loss_sum += loss;
                    q_sum += q;
                    norm_sum += grad_norm;
                    gradient_steps += 1;
                }
            }
            if self.env_steps - self.last_target_update >= self.config.target_update_every {
                let online = self.agent.net.valid();
                self.target = self
                    .target
                    .clone()
                    .blended_toward(&online, self.config.tau as f32);
                self.last_target_update = self.env_steps;
            }
        }
        let (finished, train_loss) = tally.finish();
        let mut scalars = vec![("charts/epsilon", epsilon as f32)];
        if gradient_steps > 0 {
            let n = gradient_steps as f32;
            scalars.push(("losses/td_loss", loss_sum / n));
            scalars.push(("losses/q_values", q_sum / n));
            scalars.push(("losses/grad_norm", norm_sum / n));
        }
        Ok(UpdateStats {
            env_steps: self.env_steps,
            gradient_steps: gradient_steps as u64,
            scalars,
            train_loss,
            finished,
        })
    }

    fn env_steps(&self) -> u64 {
        self.env_steps
    }

    fn save(&self, run: &RunDir, manifest: &Manifest) -> std::io::Result<()> {
        run.save_record(&manifest.model, &self.agent.net)?;
        let target = manifest
            .target
            .as_ref()
            .ok_or_else(|| std::io::Error::other("a DQN manifest names its target network"))?;
        run.save_record(target, &self.target)?;
        run.save_optimizer(&manifest.optimizer, &self.optim)
    }

    /// The replay buffer is not checkpointed (it would dwarf the networks): a resumed run
    /// refills `learning_starts` transitions with its restored network before it trains on.
    fn restore(&mut self, run: &Path, manifest: &Manifest) -> Result<(), CheckpointError> {
        let target = manifest
            .target
            .as_ref()
            .ok_or_else(|| CheckpointError::State("the manifest names no target network".into()))?;
        self.agent.net = load_record(self.agent.net.clone(), run, &manifest.model)?;
        self.target = load_record(self.target.clone(), run, target)?;
        self.optim = load_optimizer(&self.optim, run, &manifest.optimizer)?;
        self.env_steps = manifest.step;
        self.last_target_update = manifest.step;
        Ok(())
    }

    fn greedy_policy(&self) -> Box<dyn Policy> {
        // a new agent explores with epsilon 0
        Box::new(DqnAgent::new(self.agent.net.clone(), &self.context, 0))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use schedlab_env::{Scenario, SingleJobEnv, SingleJobMetrics};

    use super::*;

    fn trainer(seed: u64) -> DqnTrainer<SingleJobEnv> {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        let config = DqnConfig::new()
            .with_envs(2)
            .with_steps_per_update(4)
            .with_learning_starts(16)
            .with_batch_size(8)
            .with_exploration_steps(40)
            .with_target_update_every(8)
            .with_hidden(16);
        DqnTrainer::new(
            &SingleJobEnv::new(Scenario::load(&path).unwrap()),
            config,
            seed,
            Device::flex().autodiff(),
        )
        .unwrap()
    }

    /// What is replayed is the env's reward times `reward_scale`: the same seed plays the
    /// same steps before any gradient step, and each stored reward is scaled.
    #[test]
    fn replayed_rewards_are_the_envs_times_reward_scale() {
        let mut plain = trainer(3);
        let mut scaled = trainer(3);
        scaled.config.reward_scale = 0.25;
        plain.update().unwrap();
        scaled.update().unwrap();
        assert_eq!(plain.replay.len(), 8);
        for k in 0..plain.replay.len() {
            let (a, b) = (plain.replay.get(k).reward, scaled.replay.get(k).reward);
            assert!(
                a != 0.0 && (b - 0.25 * a).abs() <= 1e-6 * a.abs(),
                "{a} {b}"
            );
        }
        let refused = crate::algorithms::AgentKind::named("dqn")
            .configure(EnvKind::SingleJob, &[("reward_scale".into(), "0".into())])
            .unwrap_err()
            .to_string();
        assert!(refused.contains("reward_scale"), "{refused}");
    }

    fn run(seed: u64) -> Vec<UpdateStats<SingleJobMetrics>> {
        let mut t = trainer(seed);
        (0..5).map(|_| t.update().unwrap()).collect()
    }

    fn scalar(stats: &UpdateStats<SingleJobMetrics>, tag: &str) -> Option<f32> {
        stats.scalars.iter().find(|(t, _)| *t == tag).map(|s| s.1)
    }

    #[test]
    fn exploration_falls_learning_starts_after_warm_up_and_the_seed_repeats_the_run() {
        let first = run(7);
        let steps: Vec<u64> = first.iter().map(|s| s.env_steps).collect();
        assert_eq!(steps, vec![8, 16, 24, 32, 40]);
        let epsilons: Vec<f32> = first
            .iter()
            .map(|s| scalar(s, "charts/epsilon").unwrap())
            .collect();
        assert!(
            epsilons.windows(2).all(|w| w[1] < w[0]) && epsilons[4] >= 0.05,
            "{epsilons:?}"
        );
        assert_eq!(scalar(&first[0], "losses/td_loss"), None, "8 < 16 stored");
        for s in &first[2..] {
            let loss = scalar(s, "losses/td_loss").unwrap();
            assert!(loss.is_finite() && loss >= 0.0, "{loss}");
            assert!(scalar(s, "losses/q_values").unwrap().is_finite());
            assert!(scalar(s, "losses/grad_norm").unwrap() > 0.0);
        }
        let again = run(7);
        for (a, b) in first.iter().zip(&again) {
            assert_eq!(a.scalars, b.scalars, "the same seed trains identically");
        }
        assert_ne!(first[4].scalars, run(8)[4].scalars);
    }
}
