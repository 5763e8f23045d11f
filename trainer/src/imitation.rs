//! Imitation warm start (DL2's supervised start before RL): play a teacher scheduler's
//! episodes, then fit the actor to its choices (cross-entropy) and the critic to its returns,
//! so PPO fine-tunes a policy that already schedules like the teacher instead of starting
//! from a uniform one.

use std::time::Instant;

use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::Device;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rayon::prelude::*;
use schedlab_agents::learned::actor_critic::{ImitationBatch, imitation_loss};
use schedlab_agents::learned::batch::stack;
use schedlab_agents::learned::gae::step_discount;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{SchedulingEnv, registry};
use schedlab_env::{EpisodeSummary, Observation, StepInfo};

use crate::reward_scale::RewardScale;

/// Decisions per cloning minibatch.
const BATCH: usize = 256;
/// Every `HOLD_OUT`-th teacher episode is kept out of cloning to measure agreement on states
/// the clone never trained on.
const HOLD_OUT: usize = 4;

/// Whether episode `k` of `episodes` is held out (a lone episode is trained on).
fn is_held_out(k: usize, episodes: usize) -> bool {
    episodes > 1 && k % HOLD_OUT == HOLD_OUT - 1
}

/// One teacher decision.
pub struct Decision {
    pub observation: Observation,
    pub action: Vec<usize>,
    pub reward: f64,
    /// The discount applied to what follows this step (see `discount_time_s`).
    pub discount: f32,
}

/// One teacher episode: its decisions and its headline figure.
pub struct Demonstration {
    pub decisions: Vec<Decision>,
    pub episode_return: f64,
}

/// What the warm start did, for the run folder and the closing report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct WarmStartReport {
    pub teacher: String,
    pub episodes: usize,
    pub decisions: usize,
    pub held_out_decisions: usize,
    pub epochs: usize,
    /// Share of the training decisions where the clone's most probable choice is the teacher's.
    pub train_agreement: f64,
    /// The same on the held-out teacher episodes.
    pub held_out_agreement: f64,
    pub final_cross_entropy: f64,
    pub teacher_mean_return: f64,
    pub seconds: f64,
}

/// Plays `teacher` (a registry spec) on fresh copies of `prototype`, one episode per seed, in
/// parallel; episodes in seed order.
pub fn demonstrate<E: SchedulingEnv>(
    prototype: &E,
    teacher: &str,
    seeds: &[u64],
    (gamma, discount_time_s): (f64, f64),
) -> Result<Vec<Demonstration>, String> {
    let envs: Vec<E> = seeds.iter().map(|_| prototype.fresh_copy()).collect();
    envs.into_par_iter()
        .zip(seeds.par_iter())
        .map(|(mut env, &seed)| {
            let mut policy = registry::build(teacher, &env.context(), &[])
                .map_err(|e| format!("warm start teacher `{teacher}`: {e}"))?;
            let fail = |e: schedlab_env::EnvError| format!("teacher `{teacher}`, seed {seed}: {e}");
            let (mut observation, info) = env.reset(seed).map_err(fail)?;
            policy.reset(seed);
            let mut clock = info.time_s();
            let mut decisions = Vec::new();
            loop {
                let action = policy.act(&observation);
                let step = env.step(&action).map_err(fail)?;
                let elapsed = step.info.time_s() - clock;
                clock = step.info.time_s();
                decisions.push(Decision {
                    observation: std::mem::replace(&mut observation, step.observation),
                    action,
                    reward: step.reward,
                    discount: step_discount(gamma, discount_time_s, elapsed),
                });
                if let Some(metrics) = step.info.metrics() {
                    return Ok(Demonstration {
                        decisions,
                        episode_return: metrics.episode_return(),
                    });
                }
            }
        })
        .collect()
}

/// How the clone is fitted.
pub struct CloneSettings {
    pub epochs: usize,
    pub lr: f64,
    pub value_coef: f32,
    pub seed: u64,
}

/// Fits `agent`'s network to the demonstrations: the actor to the teacher's choices, the
/// critic to its discounted returns in the units of `scale` (which first learns the rewards'
/// scale from them). Every `HOLD_OUT`-th episode is held out and only scored.
pub fn clone_teacher(
    agent: &mut PpoAgent,
    demonstrations: &[Demonstration],
    scale: &mut RewardScale,
    settings: &CloneSettings,
    device: &Device,
) -> (f64, f64, f64) {
    for demo in demonstrations {
        for d in &demo.decisions {
            scale.observe(0, d.reward, d.discount);
        }
        scale.end_episode(0);
    }
    let mut rows: Vec<(&Decision, f32)> = Vec::new();
    let mut held_out: Vec<&Decision> = Vec::new();
    for (k, demo) in demonstrations.iter().enumerate() {
        if is_held_out(k, demonstrations.len()) {
            held_out.extend(&demo.decisions);
            continue;
        }
        let mut to_go = 0.0f64;
        let mut targets = vec![0.0f32; demo.decisions.len()];
        for (t, d) in demo.decisions.iter().enumerate().rev() {
            to_go = scale.apply(d.reward) + f64::from(d.discount) * to_go;
            targets[t] = to_go as f32;
        }
        rows.extend(demo.decisions.iter().zip(targets));
    }
    let space = agent.space().clone();
    let mut optim = AdamConfig::new().init();
    let mut rng = StdRng::seed_from_u64(settings.seed ^ 0xb0c);
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let mut last_cross_entropy = f64::NAN;
    for _ in 0..settings.epochs {
        order.shuffle(&mut rng);
        let (mut sum, mut count) = (0.0, 0.0);
        for chunk in order.chunks(BATCH) {
            let (observations, masks, actions) = stack(
                chunk
                    .iter()
                    .map(|&k| (&rows[k].0.observation, rows[k].0.action.as_slice())),
            );
            let batch = ImitationBatch {
                observations,
                masks,
                actions,
                value_targets: chunk.iter().map(|&k| rows[k].1).collect(),
            };
            let loss = imitation_loss(&agent.net, &space, &batch, settings.value_coef, device);
            sum += f64::from(loss.cross_entropy.clone().into_scalar::<f32>());
            count += 1.0;
            let grads = GradientsParams::from_grads(loss.total.backward(), &agent.net);
            agent.net = optim.step(settings.lr, agent.net.clone(), grads);
        }
        last_cross_entropy = sum / count;
    }
    let training: Vec<&Decision> = rows.iter().map(|(d, _)| *d).collect();
    (
        agreement(agent, &training),
        agreement(agent, &held_out),
        last_cross_entropy,
    )
}

/// The share of `decisions` where the agent's most probable allowed choice is the teacher's
/// (NaN for none).
pub fn agreement(agent: &mut PpoAgent, decisions: &[&Decision]) -> f64 {
    let deterministic = std::mem::replace(&mut agent.deterministic, true);
    let mut same = 0usize;
    for chunk in decisions.chunks(BATCH) {
        let observations: Vec<&Observation> = chunk.iter().map(|d| &d.observation).collect();
        let acted = agent.act_batch(&observations);
        same += acted
            .actions
            .iter()
            .zip(chunk)
            .filter(|(a, d)| **a == d.action)
            .count();
    }
    agent.deterministic = deterministic;
    same as f64 / decisions.len() as f64
}

/// Who is cloned, on which episodes, and how.
pub struct WarmStartPlan<'a> {
    /// A scheduler spec of the registry, options inline (`las:placement=worst-fit`).
    pub teacher: &'a str,
    pub seeds: Vec<u64>,
    /// `(gamma, discount_time_s)` of the learner, for the critic's targets.
    pub discount: (f64, f64),
    pub settings: CloneSettings,
}

/// Demonstrations then cloning, timed, as the report says.
pub fn warm_start<E: SchedulingEnv>(
    prototype: &E,
    agent: &mut PpoAgent,
    scale: &mut RewardScale,
    plan: &WarmStartPlan,
    device: &Device,
) -> Result<WarmStartReport, String> {
    let start = Instant::now();
    let demonstrations = demonstrate(prototype, plan.teacher, &plan.seeds, plan.discount)?;
    let (train_agreement, held_out_agreement, final_cross_entropy) =
        clone_teacher(agent, &demonstrations, scale, &plan.settings, device);
    let (teacher, settings) = (plan.teacher, &plan.settings);
    let decisions: usize = demonstrations.iter().map(|d| d.decisions.len()).sum();
    let held_out_decisions: usize = demonstrations
        .iter()
        .enumerate()
        .filter(|(k, _)| is_held_out(*k, demonstrations.len()))
        .map(|(_, d)| d.decisions.len())
        .sum();
    Ok(WarmStartReport {
        teacher: teacher.to_owned(),
        episodes: demonstrations.len(),
        decisions,
        held_out_decisions,
        epochs: settings.epochs,
        train_agreement,
        held_out_agreement,
        final_cross_entropy,
        teacher_mean_return: demonstrations.iter().map(|d| d.episode_return).sum::<f64>()
            / demonstrations.len().max(1) as f64,
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use burn::tensor::Device;
    use schedlab_agents::learned::actor_critic::ActorCriticConfig;
    use schedlab_env::jobs::{JobsEnv, JobsWorkload};

    use super::*;

    /// philly-mini (82 jobs, 8 machines) through the one-choice interface.
    fn philly_mini() -> JobsEnv {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/philly-mini.toml");
        let overrides = [("window.interface".to_owned(), "one-choice".to_owned())];
        let no_table = |p: &std::path::Path| Err(format!("{} is not expected", p.display()));
        JobsEnv::new(Arc::new(
            JobsWorkload::load(&path, &overrides, &no_table).unwrap(),
        ))
    }

    /// The clone of `sjf` picks the teacher's own choice on at least 70% of the decisions of
    /// an episode it never trained on (the rate README.md states), and clearly more often
    /// than the untrained network does.
    #[test]
    fn a_clone_reproduces_its_teacher_on_held_out_episodes() {
        let env = philly_mini();
        let ctx = env.policy_context();
        let device = Device::flex().autodiff();
        device.seed(1);
        let net = ActorCriticConfig::per_unit(&ctx.observation_space, &ctx.action_space)
            .unwrap()
            .with_hidden(64)
            .init(&device);
        let mut agent = PpoAgent::new(net, &ctx, 1);
        let demonstrations = demonstrate(&env, "sjf", &[0, 1, 2, 3], (0.99, 3600.0)).unwrap();
        let held_out: Vec<&Decision> = demonstrations[3].decisions.iter().collect();
        assert!(held_out.len() > 50, "{} decisions", held_out.len());
        let untrained = agreement(&mut agent, &held_out);
        let settings = CloneSettings {
            epochs: 100,
            lr: 1e-3,
            value_coef: 0.5,
            seed: 1,
        };
        let mut scale = RewardScale::new(1);
        let (train, held, cross_entropy) =
            clone_teacher(&mut agent, &demonstrations, &mut scale, &settings, &device);
        assert!(
            held >= 0.7 && train >= 0.7 && held >= untrained + 0.1 && cross_entropy.is_finite(),
            "agreement {train} on training episodes, {held} held out (untrained {untrained})"
        );
        assert_eq!(held, agreement(&mut agent, &held_out));
    }
}
