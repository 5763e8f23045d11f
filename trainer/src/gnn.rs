//! REINFORCE for the learned DAG scheduler (`--agent gnn`, agents/src/dag/gnn/), from scratch.
//!
//! Each update draws `instances` training instances and plays `rollouts` sampled episodes on
//! each, side by side. An episode is scored by its SLR (makespan over the instance's
//! critical-path bound, so instances of any size weigh alike) and its advantage is how much
//! shorter it is than the mean of the episodes on the same instance: the input-dependent
//! baseline of Decima (Mao et al. 2019), here exact because every rollout sees the same
//! instance (as POMO, Kwon et al. 2020, "POMO: Policy Optimization with Multiple Optima for
//! Reinforcement Learning", does). No critic: the baseline needs none. The entropy bonus falls
//! linearly to 0 over the run.
//!
//! Instances and draws come from the run seed and the env steps done, so a resumed run
//! continues exactly as an uninterrupted one.

use std::path::Path;
use std::sync::Arc;

use burn::config::Config;
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::{Device, Int, Tensor, TensorData};
use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_agents::DagContext;
use schedlab_agents::dag::gnn::{
    CHOICE_INPUTS, DagGnn, DagGnnConfig, Decision, GnnInstance, GnnPolicy, play_side_by_side,
    sample_choice,
};
use schedlab_agents::learned::batch::{at_chosen, mask_values};
use schedlab_agents::learned::masked::masked_log_probs;
use schedlab_agents::options::{OptionSpec, OptionType, Options};
use schedlab_agents::{EnvContext, EnvKind, Policy, SchedulingEnv};
use schedlab_env::dag::lower_bound_s;
use schedlab_env::{ActionSpace, StepInfo, episode_seed};

use crate::algorithm::Algorithm;
use crate::errors::{CheckpointError, Unmet};
use crate::grad_norm::clip_global_norm;
use crate::learner::{Learner, LearnerError, UpdateStats, check_common, require};
use crate::run::{Manifest, RunDir, load_optimizer, load_record};
use crate::trained::TrainedRun;

#[derive(Config, Debug)]
pub struct GnnConfig {
    /// Training instances per update.
    #[config(default = 4)]
    pub instances: usize,
    /// Sampled episodes per instance (the baseline is their mean).
    #[config(default = 8)]
    pub rollouts: usize,
    #[config(default = 1e-3)]
    pub lr: f64,
    /// The entropy bonus at the start; it falls linearly to 0 by the end of the run.
    #[config(default = 0.01)]
    pub entropy_coef: f64,
    #[config(default = 1.0)]
    pub max_grad_norm: f64,
    #[config(default = 32)]
    pub embedding: usize,
    #[config(default = 3)]
    pub rounds: usize,
    #[config(default = 64)]
    pub hidden: usize,
}

/// The learned DAG scheduler (`--agent gnn`): a message-passing network over the DAG, trained
/// by REINFORCE against the mean of several episodes on the same instance (DAG envs only).
pub struct Gnn;

impl Algorithm for Gnn {
    const NAME: &'static str = "gnn";
    const HELP: &'static str = "the message-passing DAG scheduler, by REINFORCE (DAG workloads)";
    const PLAY_OPTIONS: &'static [OptionSpec] = &[OptionSpec {
        key: "episodes",
        kind: OptionType::Count,
        default: "1",
        help: "episodes decoded per instance: the greedy one, then sampled ones; the shortest is played",
    }];
    type Config = GnnConfig;

    fn default_config(_: EnvKind) -> GnnConfig {
        GnnConfig::new()
    }

    fn check(config: &GnnConfig) -> Result<(), Unmet> {
        config.check()
    }

    fn learner<E: SchedulingEnv>(
        prototype: &E,
        config: GnnConfig,
        seed: u64,
        device: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        Ok(Box::new(GnnTrainer::new(prototype, config, seed, device)?))
    }

    /// Its weights do not depend on the DAG's size or GPU count, so it plays any DAG workload.
    fn load(
        trained: &TrainedRun,
        config: GnnConfig,
        options: &Options,
    ) -> std::io::Result<Box<dyn Policy>> {
        let EnvContext::Dag(ctx) = trained.env else {
            return Err(trained.invalid(format!(
                "a gnn scheduler plays DAG workloads; this is a {} workload",
                trained.env.kind().name()
            )));
        };
        let net = trained.load_weights(config.network().init_for_record(trained.device))?;
        let episodes = options.count("episodes") as usize;
        let policy = GnnPolicy::new(net, Arc::clone(&ctx.workload), ctx.action_space.clone());
        Ok(Box::new(policy.with_samples(episodes - 1)))
    }
}

impl GnnConfig {
    /// Refuses values the loop cannot run with, naming the first's key and value.
    pub fn check(&self) -> Result<(), Unmet> {
        check_common(
            ("instances", self.instances),
            self.lr,
            (1.0, 0.0),
            self.max_grad_norm,
            self.hidden,
        )?;
        require(&[
            (
                "rollouts",
                &self.rollouts,
                "rollouts >= 2",
                self.rollouts >= 2,
            ),
            (
                "entropy_coef",
                &self.entropy_coef,
                "entropy_coef >= 0",
                self.entropy_coef >= 0.0,
            ),
            (
                "embedding",
                &self.embedding,
                "embedding >= 1",
                self.embedding >= 1,
            ),
        ])
    }

    pub fn network(&self) -> DagGnnConfig {
        DagGnnConfig::new(self.embedding, self.rounds, self.hidden)
    }
}

/// The sampled episodes of one instance.
struct Played {
    instance: GnnInstance,
    /// Per episode its decisions, in order.
    episodes: Vec<Vec<Decision>>,
    slr: Vec<f64>,
}

pub struct GnnTrainer<E: SchedulingEnv> {
    envs: Vec<E>,
    context: DagContext,
    config: GnnConfig,
    net: DagGnn,
    optim: ModuleOptimizer,
    device: Device,
    seed: u64,
    env_steps: u64,
    total_steps: u64,
}

impl<E: SchedulingEnv> GnnTrainer<E> {
    /// Refused on envs other than DAG ones.
    pub fn new(
        prototype: &E,
        config: GnnConfig,
        seed: u64,
        device: Device,
    ) -> Result<Self, LearnerError> {
        let context = match prototype.context() {
            EnvContext::Dag(ctx) => ctx,
            other => {
                return Err(LearnerError::Config(format!(
                    "the gnn learner schedules DAG workloads; this is a {} workload",
                    other.kind().name()
                )));
            }
        };
        device.seed(seed);
        let net = config.network().init(&device);
        // gradients are clipped by their global norm before each step (crate::grad_norm)
        let optim = AdamConfig::new().init();
        Ok(GnnTrainer {
            envs: (0..config.rollouts)
                .map(|_| prototype.fresh_copy())
                .collect(),
            context,
            config,
            net,
            optim,
            device,
            seed,
            env_steps: 0,
            total_steps: 0,
        })
    }

    fn space(&self) -> &ActionSpace {
        &self.context.action_space
    }

    /// `rollouts` sampled episodes on the instance of `seed`, stepped side by side.
    fn play(
        &mut self,
        seed: u64,
        rng: &mut StdRng,
    ) -> schedlab_env::Result<(Played, Vec<E::Metrics>)> {
        let inference = self.device.clone().without_autodiff();
        let net = self.net.valid();
        let instance = GnnInstance::new(&net, self.context.workload.instance(seed), &inference);
        let copies = self.envs.len();
        let mut episodes: Vec<Vec<Decision>> = (0..copies).map(|_| Vec::new()).collect();
        let mut returns = vec![0.0f64; copies];
        let mut finished = Vec::new();
        let space = &self.context.action_space;
        let env_steps = &mut self.env_steps;
        play_side_by_side(
            &mut self.envs,
            seed,
            (&net, &instance, &inference),
            self.context.workload.spec.ready_tasks,
            |_, scores, mask| sample_choice(space, scores, mask, rng),
            |c, decision, step| {
                *env_steps += 1;
                returns[c] += step.reward;
                episodes[c].push(decision);
                if let Some(m) = step.info.metrics() {
                    finished.push(m.clone());
                }
            },
        )?;
        // the return is minus the makespan
        let bound = lower_bound_s(&instance.problem).max(f64::MIN_POSITIVE);
        let slr = returns.iter().map(|r| -r / bound).collect();
        Ok((
            Played {
                instance,
                episodes,
                slr,
            },
            finished,
        ))
    }

    /// The policy-gradient loss of `played` with `advantages` per (instance, episode), and
    /// the mean entropy of its decisions.
    fn loss(
        &self,
        played: &[Played],
        advantages: &[Vec<f64>],
        entropy_coef: f64,
    ) -> (Tensor<1>, f32, f32) {
        let mut total: Option<Tensor<1>> = None;
        let (mut policy_sum, mut entropy_sum, mut decisions) = (0.0f32, 0.0f32, 0usize);
        for (p, advantage) in played.iter().zip(advantages) {
            let embeddings = self.net.embed(&p.instance.inputs, &self.device);
            let decided: Vec<(&Decision, f64)> = p
                .episodes
                .iter()
                .zip(advantage)
                .flat_map(|(episode, &a)| episode.iter().map(move |d| (d, a)))
                .collect();
            let steps = decided.len();
            let width = decided[0].0.mask.len();
            let rows: Vec<f32> = decided
                .iter()
                .flat_map(|(d, _)| d.rows.iter().copied())
                .collect();
            let tasks: Vec<i64> = decided
                .iter()
                .flat_map(|(d, _)| d.row_tasks.iter().map(|&t| t as i64))
                .collect();
            let mask: Vec<f32> = decided
                .iter()
                .flat_map(|(d, _)| mask_values(&d.mask))
                .collect();
            let choices: Vec<usize> = decided.iter().map(|(d, _)| d.choice).collect();
            let chosen = at_chosen(self.space(), &choices, |k| decided[k].1 as f32);
            let rows = Tensor::<2>::from_data(
                TensorData::new(rows, [steps * width, CHOICE_INPUTS]),
                &self.device,
            );
            let tasks =
                Tensor::<1, Int>::from_data(TensorData::new(tasks, [steps * width]), &self.device);
            let scores = self
                .net
                .score(rows, embeddings.select(0, tasks))
                .reshape([steps, width]);
            let mask = Tensor::<2>::from_data(TensorData::new(mask, [steps, width]), &self.device);
            let log_probs = masked_log_probs(self.space(), scores, mask);
            let chosen =
                Tensor::<2>::from_data(TensorData::new(chosen, [steps, width]), &self.device);
            // sum over the choices of advantage x log-probability, at the chosen one only
            let policy = -(log_probs.clone() * chosen).sum().div_scalar(steps as f32);
            let entropy = -(log_probs.clone().exp() * log_probs)
                .sum()
                .div_scalar(steps as f32);
            policy_sum += policy.clone().into_scalar::<f32>() * steps as f32;
            entropy_sum += entropy.clone().into_scalar::<f32>() * steps as f32;
            decisions += steps;
            let part = (policy - entropy.mul_scalar(entropy_coef)).div_scalar(played.len() as f32);
            total = Some(match total {
                Some(t) => t + part,
                None => part,
            });
        }
        let n = decisions.max(1) as f32;
        (
            total.expect("an update plays at least one instance"),
            policy_sum / n,
            entropy_sum / n,
        )
    }
}

/// Per instance, how much shorter each episode's SLR is than the instance's mean, over the
/// spread of those differences in the whole update (0 where every episode tied).
fn advantages(played: &[Played]) -> Vec<Vec<f64>> {
    let raw: Vec<Vec<f64>> = played
        .iter()
        .map(|p| {
            let mean = p.slr.iter().sum::<f64>() / p.slr.len() as f64;
            p.slr.iter().map(|s| mean - s).collect()
        })
        .collect();
    let all: Vec<f64> = raw.iter().flatten().copied().collect();
    let spread = (all.iter().map(|a| a * a).sum::<f64>() / all.len() as f64).sqrt();
    if spread < 1e-12 {
        return raw.iter().map(|r| vec![0.0; r.len()]).collect();
    }
    raw.iter()
        .map(|r| r.iter().map(|a| a / spread).collect())
        .collect()
}

impl<E: SchedulingEnv> Learner<E::Metrics> for GnnTrainer<E> {
    fn update(&mut self) -> schedlab_env::Result<UpdateStats<E::Metrics>> {
        let start = self.env_steps;
        let mut rng = StdRng::seed_from_u64(episode_seed(self.seed, 1, start));
        let mut played = Vec::new();
        let mut finished = Vec::new();
        for i in 0..self.config.instances {
            // training instances on seeds mixed from the run seed, not evaluation's 0..N
            let seed = episode_seed(self.seed, 2 + i as u64, start);
            let (p, metrics) = self.play(seed, &mut rng)?;
            played.push(p);
            finished.extend(metrics);
        }
        let progress = if self.total_steps == 0 {
            0.0
        } else {
            (start as f64 / self.total_steps as f64).min(1.0)
        };
        let entropy_coef = self.config.entropy_coef * (1.0 - progress);
        let advantages = advantages(&played);
        let (loss, policy_loss, entropy) = self.loss(&played, &advantages, entropy_coef);
        let mut grads = GradientsParams::from_grads(loss.backward(), &self.net);
        let grad_norm = clip_global_norm(&self.net, &mut grads, self.config.max_grad_norm as f32);
        self.net = self.optim.step(self.config.lr, self.net.clone(), grads);
        Ok(UpdateStats {
            env_steps: self.env_steps,
            gradient_steps: 1,
            scalars: vec![
                ("losses/policy_loss", policy_loss),
                ("losses/entropy", entropy),
                ("losses/grad_norm", grad_norm),
                ("charts/entropy_coef", entropy_coef as f32),
                ("charts/learning_rate", self.config.lr as f32),
            ],
            train_loss: f64::NAN,
            finished,
        })
    }

    fn env_steps(&self) -> u64 {
        self.env_steps
    }

    fn plan(&mut self, total_steps: u64) {
        self.total_steps = total_steps;
    }

    fn save(&self, run: &RunDir, manifest: &Manifest) -> std::io::Result<()> {
        run.save_record(&manifest.model, &self.net)?;
        run.save_optimizer(&manifest.optimizer, &self.optim)
    }

    fn restore(&mut self, run: &Path, manifest: &Manifest) -> Result<(), CheckpointError> {
        self.net = load_record(self.net.clone(), run, &manifest.model)?;
        self.optim = load_optimizer(&self.optim, run, &manifest.optimizer)?;
        self.env_steps = manifest.step;
        Ok(())
    }

    /// Nothing beyond the records: the instances and draws of an update follow from the run
    /// seed and the steps done. Keeping a state tells the driver so (it then keeps the seed).
    fn resume_state(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({ "env_steps": self.env_steps }))
    }

    fn restore_state(&mut self, state: serde_json::Value) -> Result<(), CheckpointError> {
        match state.get("env_steps").and_then(serde_json::Value::as_u64) {
            Some(steps) if steps == self.env_steps => Ok(()),
            _ => Err(CheckpointError::State(format!(
                "resume state {state} does not match the checkpoint's {} steps",
                self.env_steps
            ))),
        }
    }

    fn greedy_policy(&self) -> Box<dyn Policy> {
        Box::new(GnnPolicy::new(
            self.net.clone(),
            Arc::clone(&self.context.workload),
            self.context.action_space.clone(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use schedlab_agents::RandomPolicy;
    use schedlab_agents::dag::gnn::TaskInputs;
    use schedlab_agents::run_episode;
    use schedlab_env::Environment;
    use schedlab_env::dag::{DagEnv, DagWorkload};

    use super::*;

    fn small_dags() -> DagEnv {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/dag-layered.toml");
        let overrides = [("dags.layered.tasks".to_owned(), "20".to_owned())];
        DagEnv::new(Arc::new(DagWorkload::load(&path, &overrides).unwrap()))
    }

    fn mean_makespan(env: &DagEnv, policy: &mut dyn Policy) -> Vec<f64> {
        let mut env = env.fresh_copy();
        (0..12)
            .map(|seed| run_episode(&mut env, policy, seed).unwrap().makespan_s)
            .collect()
    }

    fn trained(env: &DagEnv, seed: u64, updates: usize) -> Box<dyn Policy> {
        let mut trainer =
            GnnTrainer::new(env, GnnConfig::new(), seed, Device::flex().autodiff()).unwrap();
        trainer.plan(updates as u64 * 640);
        for _ in 0..updates {
            trainer.update().unwrap();
        }
        trainer.greedy_policy()
    }

    fn mean(xs: &[f64]) -> f64 {
        xs.iter().sum::<f64>() / xs.len() as f64
    }

    /// From scratch, a few updates on 20-task DAGs play shorter schedules than the untrained
    /// network and than `random`; the same seed trains the same network.
    #[test]
    fn from_scratch_it_beats_its_start_and_random_and_repeats_per_seed() {
        let env = small_dags();
        let untrained = mean(&mean_makespan(&env, trained(&env, 1, 0).as_mut()));
        let learned = mean_makespan(&env, trained(&env, 1, 40).as_mut());
        let mut random = RandomPolicy::new(env.policy_context());
        let random = mean(&mean_makespan(&env, &mut random));
        assert!(
            mean(&learned) < 0.95 * untrained && mean(&learned) < 0.8 * random,
            "trained {} untrained {untrained} random {random}",
            mean(&learned)
        );
        assert_eq!(learned, mean_makespan(&env, trained(&env, 1, 40).as_mut()));
    }

    /// A run folder plays what was trained: interrupted halfway and resumed, it ends with the
    /// network of an uninterrupted run (instances and draws follow from the seed and the
    /// steps done).
    #[test]
    fn a_resumed_run_ends_as_an_uninterrupted_one_and_its_folder_plays_it() {
        let env = small_dags();
        let workload =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/dag-layered.toml");
        let config =
            serde_json::to_value(GnnConfig::new().with_instances(2).with_rollouts(2)).unwrap();
        // each run in its own folder: run folders are named by the second they start
        let outs: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
        let run = |k: usize, stop_at: u64, resume: Option<&Path>| {
            let stop = std::sync::atomic::AtomicBool::new(false);
            let steps = 1600;
            let spec = crate::train::TrainSpec {
                workload_path: &workload,
                out: outs[k].path(),
                seed: 5,
                steps,
                checkpoint_every: 400,
                eval_every: steps,
                eval_episodes: 0,
                resume,
                stop: Some(&stop),
                play_settings: &[],
                workload_settings: &[],
            };
            let device = Device::flex().autodiff();
            let mut interrupt = |p: &crate::train::Progress<_>| {
                if p.stats.env_steps >= stop_at {
                    stop.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            };
            crate::train::train(
                crate::algorithms::AgentKind::named("gnn"),
                &env,
                config.clone(),
                &spec,
                device,
                &mut interrupt,
            )
            .unwrap()
        };
        let played = |run: &RunDir| {
            let mut policy =
                crate::algorithms::load_agent(&run.path, &env.context(), &Device::flex(), &[])
                    .unwrap();
            mean_makespan(&env, policy.as_mut())
        };
        // the weights themselves, through the embedding of one instance
        let embedded = |run: &RunDir| {
            let manifest = Manifest::read(&run.path).unwrap();
            let net = GnnConfig::new().network().init_for_record(&Device::flex());
            let net = load_record(net, &run.path, &manifest.model).unwrap();
            let inputs = TaskInputs::of(&env.workload().instance(0));
            net.embed(&inputs, &Device::flex())
                .into_data()
                .try_into_vec::<f32>()
                .unwrap()
        };
        let whole = run(0, 1600, None);
        let half = run(1, 800, None);
        assert_ne!(
            embedded(&half),
            embedded(&whole),
            "training changed nothing"
        );
        let resumed = run(1, 1600, Some(&half.path));
        assert_eq!(Manifest::read(&resumed.path).unwrap().step, 1600);
        assert_eq!(embedded(&resumed), embedded(&whole));
        assert_eq!(played(&resumed), played(&whole));
    }

    /// The advantage is each episode's SLR below its instance's mean, over the update's
    /// spread; ties give none.
    #[test]
    fn advantages_compare_episodes_of_one_instance() {
        let played = |slr: Vec<f64>| Played {
            instance: GnnInstance::new(
                &GnnConfig::new().network().init(&Device::flex()),
                small_dags().workload().instance(0),
                &Device::flex(),
            ),
            episodes: Vec::new(),
            slr,
        };
        // instance means 2 and 5; deviations 1, -1, 0, 0; spread sqrt(2 / 4)
        let a = advantages(&[played(vec![1.0, 3.0]), played(vec![5.0, 5.0])]);
        let s = 0.5f64.sqrt();
        assert_eq!(a, vec![vec![1.0 / s, -1.0 / s], vec![0.0, 0.0]]);
        let tied = advantages(&[played(vec![2.0, 2.0])]);
        assert_eq!(tied, vec![vec![0.0, 0.0]]);
    }
}
