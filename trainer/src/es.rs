//! Evolution strategies for the per-unit actor (`--agent es`), from scratch: Salimans, Ho,
//! Chen, Sidor and Sutskever, "Evolution Strategies as a Scalable Alternative to Reinforcement
//! Learning", 2017.
//!
//! Each generation perturbs the actor's weights `theta` by `pairs` Gaussian directions, each
//! both ways (`theta + sigma e` and `theta - sigma e`: antithetic sampling), and every member
//! plays the same `windows` training windows greedily to their end. On each window the members
//! are ranked by episode return and the ranks centred to [-0.5, 0.5]; a member's fitness is
//! its mean centred rank. The gradient estimate `sum_i (f_i+ - f_i-) e_i / (2 pairs sigma)`
//! takes an Adam step. Every member plays the same windows, so a window's difficulty cancels
//! in the ranks, as the paired comparisons of the bar do; and a whole episode's return is the
//! fitness, so a choice whose cost shows days later (a job started shrunk runs longer) is
//! charged to it, which no discount or critic has to carry (docs/ppo-from-scratch.md says why
//! that mattered for PPO). The ranks make the update blind to the return's scale.
//!
//! The actor is PPO's per-unit network (agents/src/learned/actor_critic.rs): a run plays as a
//! greedy PPO policy, and its episodes here are played by a host forward pass of the same
//! weights (agents/src/learned/host_actor.rs). The critic is never trained.
//!
//! Windows and directions follow from the run seed and the generation, and members play in
//! parallel but are gathered in order, so a run is the same at any thread count and a resumed
//! run continues exactly as an uninterrupted one.

use std::path::Path;

use burn::module::{Module, Param};
use burn::tensor::{Device, Tensor, TensorData};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use schedlab_agents::jobs::{ChoiceRestriction, Restricted};
use schedlab_agents::learned::actor_critic::{ActorCritic, ActorCriticConfig};
use schedlab_agents::learned::host_actor::{ActorShape, HostActor};
use schedlab_agents::options::Options;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{EnvKind, Policy, PolicyContext, SchedulingEnv};
use schedlab_env::{StepInfo, episode_seed};
use serde::{Deserialize, Serialize};

use crate::algorithm::Algorithm;
use crate::errors::{CheckpointError, Unmet};
use crate::learner::{Learner, LearnerError, MAX_ENVS, MAX_HIDDEN, UpdateStats, require};
use crate::play_settings::PlaySettings;
use crate::run::{Manifest, RunDir, load_record};
use crate::trained::TrainedRun;

/// ES hyperparameters, kept in configs as flat keys (as PPO's, trainer/src/ppo/config.rs).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EsConfig {
    /// Antithetic pairs of perturbations per generation (twice as many members).
    pub pairs: usize,
    /// Training windows every member plays per generation (the same ones for all).
    pub windows: usize,
    /// Standard deviation of the perturbation of each weight.
    pub sigma: f64,
    /// Adam's step size on the gradient estimate.
    pub lr: f64,
    /// An episode not ended after this many env steps ranks last on its window.
    pub max_episode_steps: usize,
    #[serde(flatten)]
    pub play: PlaySettings,
}

impl Default for EsConfig {
    fn default() -> Self {
        EsConfig {
            pairs: 8,
            windows: 4,
            sigma: 0.02,
            lr: 0.01,
            max_episode_steps: 100_000,
            play: PlaySettings::new(16),
        }
    }
}

/// Evolution strategies on PPO's per-unit actor (`--agent es`): whole greedy episodes of
/// perturbed weights, ranked on the same windows (per-unit spaces only).
pub struct Es;

impl Algorithm for Es {
    const NAME: &'static str = "es";
    const HELP: &'static str =
        "evolution strategies on the per-unit actor (jobs and DAG workloads of per-unit spaces)";
    type Config = EsConfig;

    fn default_config(_: EnvKind) -> EsConfig {
        EsConfig::default()
    }

    fn check(config: &EsConfig) -> Result<(), Unmet> {
        config.check()
    }

    fn learner<E: SchedulingEnv>(
        prototype: &E,
        config: EsConfig,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        Ok(Box::new(EsTrainer::new(prototype, config, seed, device)?))
    }

    /// The run plays as a greedy PPO actor.
    fn load(
        trained: &TrainedRun,
        config: EsConfig,
        _: &Options,
    ) -> std::io::Result<Box<dyn Policy>> {
        let network = config.network(trained.context());
        trained.greedy_actor(network, config.play.restriction)
    }
}

impl EsConfig {
    /// Refuses values the loop cannot run with, naming the first's key and value.
    pub fn check(&self) -> Result<(), Unmet> {
        require(&[
            (
                "pairs",
                &self.pairs,
                "1 <= pairs <= 4096",
                (1..=MAX_ENVS).contains(&self.pairs),
            ),
            (
                "windows",
                &self.windows,
                "1 <= windows <= 4096",
                (1..=MAX_ENVS).contains(&self.windows),
            ),
            (
                "sigma",
                &self.sigma,
                "sigma > 0",
                self.sigma > 0.0 && self.sigma.is_finite(),
            ),
            (
                "lr",
                &self.lr,
                "lr > 0",
                self.lr > 0.0 && self.lr.is_finite(),
            ),
            (
                "hidden",
                &self.play.hidden,
                "1 <= hidden <= 65536",
                (1..=MAX_HIDDEN).contains(&self.play.hidden),
            ),
            (
                "max_episode_steps",
                &self.max_episode_steps,
                "max_episode_steps >= 1",
                self.max_episode_steps >= 1,
            ),
        ])
    }

    /// The actor-critic whose actor it trains: per unit, for `ctx`'s spaces.
    pub fn network(&self, ctx: &PolicyContext) -> Result<ActorCriticConfig, LearnerError> {
        ActorCriticConfig::per_unit(&ctx.observation_space, &ctx.action_space)
            .map(|net| net.with_hidden(self.play.hidden).with_tanh(self.play.tanh))
            .map_err(|e| {
                LearnerError::Config(format!("the es learner trains a per-unit actor: {e}"))
            })
    }
}

/// Adam's moments of the flat weights, kept in checkpoints as a record.
#[derive(Module, Debug)]
pub struct Moments {
    first: Param<Tensor<1>>,
    second: Param<Tensor<1>>,
}

impl Moments {
    fn new(first: &[f32], second: &[f32], device: &Device) -> Self {
        let param = |v: &[f32]| {
            Param::from_tensor(Tensor::from_data(
                TensorData::new(v.to_vec(), [v.len()]),
                device,
            ))
        };
        Moments {
            first: param(first),
            second: param(second),
        }
    }

    fn host(&self) -> (Vec<f32>, Vec<f32>) {
        let host = |p: &Param<Tensor<1>>| {
            p.val()
                .into_data()
                .try_to_vec::<f32>()
                .expect("f32 moments")
        };
        (host(&self.first), host(&self.second))
    }
}

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPSILON: f64 = 1e-8;

/// One member's episode on one window.
struct Episode<M> {
    /// The episode's return; None when it hit `max_episode_steps`.
    episode_return: Option<f64>,
    steps: u64,
    metrics: Option<M>,
}

pub struct EsTrainer<E: SchedulingEnv> {
    /// One env copy per member.
    envs: Vec<E>,
    context: PolicyContext,
    config: EsConfig,
    /// The network whose actor holds `theta` (refreshed after each update), for greedy play
    /// and checkpoints.
    net: ActorCritic,
    shape: ActorShape,
    /// The restriction of the choices (`starts_only`, `grow_only`).
    restriction: Option<ChoiceRestriction>,
    theta: Vec<f32>,
    first: Vec<f32>,
    second: Vec<f32>,
    device: Device,
    seed: u64,
    generation: u64,
    env_steps: u64,
}

impl<E: SchedulingEnv> EsTrainer<E> {
    pub fn new(
        prototype: &E,
        config: EsConfig,
        seed: u64,
        device: Device,
    ) -> Result<Self, LearnerError> {
        let context = prototype.policy_context();
        device.seed(seed);
        let net = config.network(&context)?.init(&device);
        let shape = net
            .actor_shape()
            .expect("a per-unit network has an actor shape");
        let theta = net.actor_parameters();
        let restriction = ChoiceRestriction::of(&prototype.context(), config.play.restriction)
            .map_err(|e| LearnerError::Config(e.to_string()))?;
        Ok(EsTrainer {
            restriction,
            envs: (0..2 * config.pairs)
                .map(|_| prototype.fresh_copy())
                .collect(),
            context,
            first: vec![0.0; theta.len()],
            second: vec![0.0; theta.len()],
            config,
            net,
            shape,
            theta,
            device,
            seed,
            generation: 0,
            env_steps: 0,
        })
    }

    /// The `pairs` perturbation directions of this generation.
    fn directions(&self) -> Vec<Vec<f32>> {
        (0..self.config.pairs as u64)
            .map(|pair| {
                let mut rng = StdRng::seed_from_u64(episode_seed(
                    self.seed,
                    (1 << 32) | pair,
                    self.generation,
                ));
                (0..self.theta.len())
                    .map(|_| StandardNormal.sample(&mut rng))
                    .collect()
            })
            .collect()
    }

    /// Adam's ascent step along `gradient`.
    fn step(&mut self, gradient: &[f64]) {
        let t = (self.generation + 1) as i32;
        let (correct1, correct2) = (1.0 - BETA1.powi(t), 1.0 - BETA2.powi(t));
        for (k, &g) in gradient.iter().enumerate() {
            let first = BETA1 * self.first[k] as f64 + (1.0 - BETA1) * g;
            let second = BETA2 * self.second[k] as f64 + (1.0 - BETA2) * g * g;
            self.first[k] = first as f32;
            self.second[k] = second as f32;
            let update =
                self.config.lr * (first / correct1) / ((second / correct2).sqrt() + EPSILON);
            self.theta[k] += update as f32;
        }
        self.net = self.net.clone().with_actor_parameters(&self.theta);
    }
}

/// Greedy play of the actor with weights `params` on the window of `seed`, to its end or to
/// `max_steps`; decisions with one allowed choice are stepped without the network.
fn play<E: SchedulingEnv>(
    env: &mut E,
    (shape, restriction): (&ActorShape, Option<&ChoiceRestriction>),
    params: &[f32],
    seed: u64,
    max_steps: usize,
) -> schedlab_env::Result<Episode<E::Metrics>> {
    let mut actor = HostActor::new(shape, params);
    let (mut observation, _) = env.reset(seed)?;
    let mut episode_return = 0.0;
    for steps in 1..=max_steps as u64 {
        if let Some(restriction) = restriction {
            restriction.apply(&mut observation);
        }
        let mask = &observation.action_mask;
        let choice = match mask.iter().filter(|&&m| m).count() {
            1 => mask.iter().position(|&m| m).expect("one allowed"),
            _ => actor.greedy(&observation.features, mask),
        };
        let step = env.step(&[choice])?;
        episode_return += step.reward;
        if step.terminated || step.truncated {
            return Ok(Episode {
                episode_return: Some(episode_return),
                steps,
                metrics: step.info.metrics().cloned(),
            });
        }
        observation = step.observation;
    }
    Ok(Episode {
        episode_return: None,
        steps: max_steps as u64,
        metrics: None,
    })
}

/// Each member's mean over windows of its centred rank on the window (`returns[member]
/// [window]`, None ranking last; equal returns share their mean rank), in [-0.5, 0.5].
fn centred_rank_fitness(returns: &[Vec<Option<f64>>]) -> Vec<f64> {
    let members = returns.len();
    let windows = returns.first().map_or(0, Vec::len);
    let mut fitness = vec![0.0; members];
    if members < 2 {
        return fitness;
    }
    let value = |r: Option<f64>| r.unwrap_or(f64::NEG_INFINITY);
    for w in 0..windows {
        for (m, f) in fitness.iter_mut().enumerate() {
            let mine = value(returns[m][w]);
            let below = returns.iter().filter(|r| value(r[w]) < mine).count();
            let equal = returns.iter().filter(|r| value(r[w]) == mine).count();
            let rank = below as f64 + (equal - 1) as f64 / 2.0;
            *f += (rank / (members - 1) as f64 - 0.5) / windows as f64;
        }
    }
    fitness
}

impl<E: SchedulingEnv> Learner<E::Metrics> for EsTrainer<E> {
    fn update(&mut self) -> schedlab_env::Result<UpdateStats<E::Metrics>> {
        let windows: Vec<u64> = (0..self.config.windows as u64)
            // training windows on seeds mixed from the run seed, not evaluation's 0..N
            .map(|w| episode_seed(self.seed, 2 + w, self.generation))
            .collect();
        let directions = self.directions();
        let (sigma, max_steps) = (self.config.sigma as f32, self.config.max_episode_steps);
        let (shape, theta) = (&self.shape, &self.theta);
        let restriction = self.restriction.as_ref();
        let played: Vec<schedlab_env::Result<Vec<Episode<E::Metrics>>>> = self
            .envs
            .par_iter_mut()
            .enumerate()
            .map(|(member, env)| {
                let sign = if member % 2 == 0 { sigma } else { -sigma };
                let params: Vec<f32> = theta
                    .iter()
                    .zip(&directions[member / 2])
                    .map(|(t, e)| t + sign * e)
                    .collect();
                windows
                    .iter()
                    .map(|&w| play(env, (shape, restriction), &params, w, max_steps))
                    .collect()
            })
            .collect();
        let played = played
            .into_iter()
            .collect::<schedlab_env::Result<Vec<_>>>()?;
        let returns: Vec<Vec<Option<f64>>> = played
            .iter()
            .map(|episodes| episodes.iter().map(|e| e.episode_return).collect())
            .collect();
        let fitness = centred_rank_fitness(&returns);
        let scale = 1.0 / (2.0 * self.config.pairs as f64 * self.config.sigma);
        let mut gradient = vec![0.0f64; self.theta.len()];
        for (pair, direction) in directions.iter().enumerate() {
            let weight = (fitness[2 * pair] - fitness[2 * pair + 1]) * scale;
            gradient
                .iter_mut()
                .zip(direction)
                .for_each(|(g, &e)| *g += weight * e as f64);
        }
        let gradient_norm = gradient.iter().map(|g| g * g).sum::<f64>().sqrt();
        self.step(&gradient);
        self.generation += 1;
        let mut finished = Vec::new();
        let mut capped = 0usize;
        let mut sum_return = 0.0;
        let mut counted = 0usize;
        for episode in played.into_iter().flatten() {
            self.env_steps += episode.steps;
            match episode.episode_return {
                Some(r) => {
                    sum_return += r;
                    counted += 1;
                }
                None => capped += 1,
            }
            finished.extend(episode.metrics);
        }
        Ok(UpdateStats {
            env_steps: self.env_steps,
            gradient_steps: 1,
            scalars: vec![
                (
                    "es/mean_member_return",
                    (sum_return / counted.max(1) as f64) as f32,
                ),
                ("es/capped_episodes", capped as f32),
                ("losses/grad_norm", gradient_norm as f32),
                ("charts/learning_rate", self.config.lr as f32),
            ],
            train_loss: f64::NAN,
            finished,
        })
    }

    fn env_steps(&self) -> u64 {
        self.env_steps
    }

    fn save(&self, run: &RunDir, manifest: &Manifest) -> std::io::Result<()> {
        run.save_record(&manifest.model, &self.net)?;
        let moments = Moments::new(&self.first, &self.second, &self.device);
        run.save_record(&manifest.optimizer, &moments)
    }

    fn restore(&mut self, run: &Path, manifest: &Manifest) -> Result<(), CheckpointError> {
        self.net = load_record(self.net.clone(), run, &manifest.model)?;
        self.theta = self.net.actor_parameters();
        let zeros = vec![0.0; self.theta.len()];
        let moments = Moments::new(&zeros, &zeros, &self.device);
        crate::run::check_optimizer_kept(&manifest.optimizer)?;
        (self.first, self.second) = load_record(moments, run, &manifest.optimizer)?.host();
        self.env_steps = manifest.step;
        Ok(())
    }

    /// The generation, which the records do not hold (the windows, directions and Adam's
    /// bias correction follow from it).
    fn resume_state(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "env_steps": self.env_steps,
            "generation": self.generation,
        }))
    }

    fn restore_state(&mut self, state: serde_json::Value) -> Result<(), CheckpointError> {
        let steps = state.get("env_steps").and_then(serde_json::Value::as_u64);
        match (
            steps,
            state.get("generation").and_then(serde_json::Value::as_u64),
        ) {
            (Some(steps), Some(generation)) if steps == self.env_steps => {
                self.generation = generation;
                Ok(())
            }
            _ => Err(CheckpointError::State(format!(
                "resume state {state} does not match the checkpoint's {} steps",
                self.env_steps
            ))),
        }
    }

    fn keeps_best(&self) -> bool {
        self.config.play.keep_best
    }

    fn save_policy(&self, run: &RunDir, name: &str) -> std::io::Result<()> {
        run.save_record(name, &self.net)
    }

    fn greedy_policy(&self) -> Box<dyn Policy> {
        let mut agent = PpoAgent::new(self.net.clone(), &self.context, 0);
        agent.deterministic = true;
        Restricted::wrap(Box::new(agent), self.restriction.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use schedlab_agents::run_episode;
    use schedlab_env::Environment;
    use schedlab_env::jobs::{JobsEnv, JobsWorkload};

    use super::*;
    use crate::algorithms::{AgentKind, load_agent};
    use crate::train::{Progress, TrainSpec, train};

    /// Ranks per window (ties share their mean rank, an episode cut at the step bound ranks
    /// last), centred and averaged over windows, worked by hand.
    #[test]
    fn fitness_is_the_mean_centred_rank_over_windows() {
        let returns = vec![
            vec![Some(-1.0), Some(-5.0)],
            vec![Some(-3.0), None],
            vec![Some(-2.0), Some(-5.0)],
        ];
        // window 0: ranks 2, 0, 1 -> 0.5, -0.5, 0; window 1: ranks 1.5, 0, 1.5 -> 0.25, -0.5, 0.25
        assert_eq!(centred_rank_fitness(&returns), vec![0.375, -0.5, 0.125]);
    }

    fn philly_mini() -> (PathBuf, JobsEnv) {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/philly-mini.toml");
        let one_choice = [("window.interface".to_string(), "one-choice".to_string())];
        let workload = JobsWorkload::load(&path, &one_choice).unwrap();
        (path, JobsEnv::new(Arc::new(workload)))
    }

    /// A run interrupted halfway and resumed ends with the weights of an uninterrupted one,
    /// whatever the thread count; its folder plays as a greedy per-unit actor.
    #[test]
    fn a_resumed_run_at_any_thread_count_ends_as_an_uninterrupted_one() {
        let (workload, env) = philly_mini();
        let config = serde_json::to_value(EsConfig {
            pairs: 2,
            windows: 2,
            play: PlaySettings {
                restriction: Some(schedlab_env::jobs::Restriction::StartsOnly),
                ..PlaySettings::new(8)
            },
            ..EsConfig::default()
        })
        .unwrap();
        let outs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
        let steps = 4 * 12_000;
        let run = |k: usize, stop_at: u64, resume: Option<&Path>, threads: usize| {
            let stop = std::sync::atomic::AtomicBool::new(false);
            let spec = TrainSpec {
                workload_path: &workload,
                out: outs[k].path(),
                seed: 3,
                steps,
                checkpoint_every: 1,
                eval_every: steps,
                eval_episodes: 0,
                resume,
                stop: Some(&stop),
                play_settings: &[("window.interface".into(), "one-choice".into())],
                workload_settings: &[],
            };
            let mut interrupt = |p: &Progress<_>| {
                if p.stats.env_steps >= stop_at {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                train(
                    AgentKind::named("es"),
                    &env,
                    config.clone(),
                    &spec,
                    Device::flex().autodiff(),
                    &mut interrupt,
                )
                .unwrap()
            })
        };
        let weights = |run: &RunDir| {
            let manifest = Manifest::read(&run.path).unwrap();
            let config: EsConfig = serde_json::from_value(manifest.config.clone()).unwrap();
            let net = config
                .network(&env.policy_context())
                .unwrap()
                .init_for_record(&Device::flex());
            load_record(net, &run.path, &manifest.model)
                .unwrap()
                .actor_parameters()
        };
        let whole = run(0, steps, None, 1);
        let half = run(1, steps / 2, None, 2);
        let generations = |run: &RunDir| {
            let manifest = Manifest::read(&run.path).unwrap();
            manifest.read_resume_state(&run.path).unwrap().unwrap()["generation"].clone()
        };
        assert!(generations(&half).as_u64().unwrap() >= 1);
        assert_ne!(weights(&half), weights(&whole), "training changed nothing");
        let resumed = run(1, steps, Some(&half.path), 2);
        assert_eq!(generations(&resumed), generations(&whole));
        assert_eq!(weights(&resumed), weights(&whole));
        let other_seed_differs = run(2, steps / 2, None, 1);
        assert_ne!(weights(&other_seed_differs), weights(&half));
        let mut policy = load_agent(&whole.path, &env.context(), &Device::flex(), &[]).unwrap();
        let mut env = env.fresh_copy();
        let played = run_episode(&mut env, policy.as_mut(), 0).unwrap();
        assert!(played.finished > 0);
    }
}
