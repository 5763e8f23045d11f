//! Imitation warm start (DL2's supervised start before RL): play a teacher scheduler's
//! episodes, then fit the actor to its choices (cross-entropy) and the critic to its returns,
//! so PPO fine-tunes a policy that already schedules like the teacher instead of starting
//! from a uniform one. Optional DAgger rounds (Ross et al., 2011) then let the clone play,
//! ask the teacher what it would do in each state the clone reached, and refit on all of it:
//! a clone trained only on the teacher's own states drifts into states it never saw.

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
use schedlab_agents::{Policy, SchedulingEnv, registry};
use schedlab_env::{EpisodeSummary, Observation, StepInfo};

use crate::errors::PlayError;
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

impl Decision {
    /// Whether the mask left a choice here: more allowed actions than branches (each branch
    /// allows one at least). Agreement on the other states is free.
    pub fn contested(&self) -> bool {
        let allowed = self.observation.action_mask.iter().filter(|&&a| a).count();
        allowed > self.action.len()
    }
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
    /// Held-out decisions where the mask left a choice ([`Decision::contested`]), and the
    /// agreement on them alone.
    pub held_out_contested_decisions: usize,
    pub held_out_contested_agreement: f64,
    pub final_cross_entropy: f64,
    pub teacher_mean_return: f64,
    /// One entry per DAgger round, in order.
    pub dagger: Vec<DaggerRound>,
    pub seconds: f64,
}

/// What one DAgger round saw before it refitted.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DaggerRound {
    pub episodes: usize,
    pub decisions: usize,
    /// Share of the clone's own decisions that match the teacher's label in that state.
    pub agreement: f64,
    /// The same on the states where the mask left a choice, and how many there were.
    pub contested_decisions: usize,
    pub contested_agreement: f64,
    pub clone_mean_return: f64,
}

/// Plays `teacher` (a registry spec) on fresh copies of `prototype`, one episode per seed, in
/// parallel; episodes in seed order.
pub fn demonstrate<E: SchedulingEnv>(
    prototype: &E,
    teacher: &str,
    seeds: &[u64],
    (gamma, discount_time_s): (f64, f64),
) -> Result<Vec<Demonstration>, PlayError> {
    let envs: Vec<E> = seeds.iter().map(|_| prototype.fresh_copy()).collect();
    envs.into_par_iter()
        .zip(seeds.par_iter())
        .map(|(mut env, &seed)| {
            let mut policy = registry::build(teacher, &env.context(), &[]).map_err(|source| {
                PlayError::Build {
                    what: format!("warm start teacher `{teacher}`"),
                    source,
                }
            })?;
            let fail = |source| PlayError::Episode {
                what: format!("teacher `{teacher}`"),
                seed,
                source,
            };
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

/// The teacher's choice in a state it may not have led to: a fresh copy of the teacher
/// (reset, so a per-slot scheduler behind the one-choice interface plans this window anew)
/// acting on `observation`. Schedulers that carry state across steps (`periodic`'s timer) are
/// asked as if they had just started.
fn label(teacher: &mut dyn Policy, seed: u64, observation: &Observation) -> Vec<usize> {
    teacher.reset(seed);
    teacher.act(observation)
}

/// A DAgger episode in play.
struct Episode<E> {
    env: E,
    teacher: Box<dyn Policy>,
    seed: u64,
    observation: Option<Observation>,
    clock: f64,
    decisions: Vec<Decision>,
    episode_return: f64,
    /// The clone's choices against the teacher's labels.
    tally: Tally,
}

/// Plays every episode to its end: one batched greedy forward pass per step over the episodes
/// still playing, then each labels its state with the teacher and steps, in parallel.
fn play_labelled<E: SchedulingEnv>(
    episodes: &mut [Episode<E>],
    agent: &mut PpoAgent,
    (gamma, discount_time_s): (f64, f64),
) -> Result<(), PlayError> {
    loop {
        let mut playing: Vec<&mut Episode<E>> = episodes
            .iter_mut()
            .filter(|e| e.observation.is_some())
            .collect();
        if playing.is_empty() {
            break;
        }
        let observations: Vec<&Observation> = playing
            .iter()
            .map(|e| e.observation.as_ref().expect("playing"))
            .collect();
        let actions = agent.act_batch(&observations).actions;
        playing
            .par_iter_mut()
            .zip(actions)
            .try_for_each(|(episode, action)| {
                let observation = episode.observation.take().expect("playing");
                let wanted = label(episode.teacher.as_mut(), episode.seed, &observation);
                let seed = episode.seed;
                let step = episode
                    .env
                    .step(&action)
                    .map_err(|source| dagger_episode(seed, source))?;
                let elapsed = step.info.time_s() - episode.clock;
                episode.clock = step.info.time_s();
                let same = wanted == action;
                let decision = Decision {
                    observation,
                    action: wanted,
                    reward: step.reward,
                    discount: step_discount(gamma, discount_time_s, elapsed),
                };
                episode.tally.count(&decision, same);
                episode.decisions.push(decision);
                match step.info.metrics() {
                    Some(metrics) => episode.episode_return = metrics.episode_return(),
                    None => episode.observation = Some(step.observation),
                }
                Ok::<(), PlayError>(())
            })?;
    }
    Ok(())
}

fn dagger_episode(seed: u64, source: schedlab_env::EnvError) -> PlayError {
    PlayError::Episode {
        what: "DAgger episode".into(),
        seed,
        source,
    }
}

/// One DAgger round's data: the clone plays one episode per seed greedily (all episodes in
/// lockstep, one batched forward pass per step), and every state it reaches is labelled with
/// the teacher's choice; rewards are the clone's own. Also how often the clone's choices were
/// the teacher's.
pub fn corrections<E: SchedulingEnv>(
    prototype: &E,
    agent: &mut PpoAgent,
    teacher: &str,
    seeds: &[u64],
    (gamma, discount_time_s): (f64, f64),
) -> Result<(Vec<Demonstration>, Agreement), PlayError> {
    let mut episodes = seeds
        .iter()
        .map(|&seed| {
            let mut env = prototype.fresh_copy();
            let teacher = registry::build(teacher, &env.context(), &[]).map_err(|source| {
                PlayError::Build {
                    what: format!("DAgger teacher `{teacher}`"),
                    source,
                }
            })?;
            let (observation, info) = env
                .reset(seed)
                .map_err(|source| dagger_episode(seed, source))?;
            Ok(Episode {
                env,
                teacher,
                seed,
                observation: Some(observation),
                clock: info.time_s(),
                decisions: Vec::new(),
                episode_return: f64::NAN,
                tally: Tally::default(),
            })
        })
        .collect::<Result<Vec<_>, PlayError>>()?;
    let deterministic = std::mem::replace(&mut agent.deterministic, true);
    let played = play_labelled(&mut episodes, agent, (gamma, discount_time_s));
    agent.deterministic = deterministic;
    played?;
    let mut tally = Tally::default();
    for episode in &episodes {
        tally.add(&episode.tally);
    }
    let demonstrations = episodes
        .into_iter()
        .map(|e| Demonstration {
            decisions: e.decisions,
            episode_return: e.episode_return,
        })
        .collect();
    Ok((demonstrations, tally.agreement()))
}

/// How often a learner chose as its teacher, in every state and in the contested ones
/// ([`Decision::contested`]); NaN where there were none.
pub struct Agreement {
    pub agreement: f64,
    pub contested_decisions: usize,
    pub contested_agreement: f64,
}

/// Counts behind an [`Agreement`].
#[derive(Default)]
struct Tally {
    decisions: usize,
    agreed: usize,
    contested: usize,
    contested_agreed: usize,
}

impl Tally {
    fn count(&mut self, decision: &Decision, agreed: bool) {
        self.decisions += 1;
        self.agreed += usize::from(agreed);
        if decision.contested() {
            self.contested += 1;
            self.contested_agreed += usize::from(agreed);
        }
    }

    fn add(&mut self, other: &Tally) {
        self.decisions += other.decisions;
        self.agreed += other.agreed;
        self.contested += other.contested;
        self.contested_agreed += other.contested_agreed;
    }

    fn agreement(&self) -> Agreement {
        let share = |agreed: usize, of: usize| agreed as f64 / of as f64;
        Agreement {
            agreement: share(self.agreed, self.decisions),
            contested_decisions: self.contested,
            contested_agreement: share(self.contested_agreed, self.contested),
        }
    }
}

/// How the clone is fitted.
#[derive(Debug, Clone, Copy)]
pub struct CloneSettings {
    pub epochs: usize,
    pub lr: f64,
    pub value_coef: f32,
    pub seed: u64,
}

/// Lets `scale` learn the rewards' scale from the teacher's episodes (before any fitting, so
/// every critic target is in the same units).
pub fn learn_reward_scale(scale: &mut RewardScale, demonstrations: &[Demonstration]) {
    for demo in demonstrations {
        for d in &demo.decisions {
            scale.observe(0, d.reward, d.discount);
        }
        scale.end_episode(0);
    }
}

/// Each decision of `demo` with its critic target: the discounted return from there on, in
/// the units of `scale`.
fn with_targets<'a>(demo: &'a Demonstration, scale: &RewardScale) -> Vec<(&'a Decision, f32)> {
    let mut to_go = 0.0f64;
    let mut targets = vec![0.0f32; demo.decisions.len()];
    for (t, d) in demo.decisions.iter().enumerate().rev() {
        to_go = scale.apply(d.reward) + f64::from(d.discount) * to_go;
        targets[t] = to_go as f32;
    }
    demo.decisions.iter().zip(targets).collect()
}

/// Fits `agent`'s network to the demonstrations and `corrections` (DAgger's relabelled states,
/// all trained on): the actor to the teacher's choices, the critic to the discounted returns
/// in the units of `scale` ([`learn_reward_scale`] first). Every `HOLD_OUT`-th demonstration
/// is held out and only scored. Gives the agreement on the training and held-out teacher
/// decisions and the last epoch's cross-entropy.
pub fn clone_teacher(
    agent: &mut PpoAgent,
    demonstrations: &[Demonstration],
    corrections: &[Demonstration],
    scale: &RewardScale,
    settings: &CloneSettings,
    device: &Device,
) -> (f64, Agreement, f64) {
    let mut rows: Vec<(&Decision, f32)> = Vec::new();
    let mut held_out: Vec<&Decision> = Vec::new();
    for (k, demo) in demonstrations.iter().enumerate() {
        if is_held_out(k, demonstrations.len()) {
            held_out.extend(&demo.decisions);
        } else {
            rows.extend(with_targets(demo, scale));
        }
    }
    let teacher_rows = rows.len();
    for demo in corrections {
        rows.extend(with_targets(demo, scale));
    }
    let space = agent.space().clone();
    let mut optim = AdamConfig::new().init();
    // each DAgger refit shuffles anew; plain cloning (no corrections) keeps its old order
    let mut rng = StdRng::seed_from_u64(settings.seed ^ 0xb0c ^ corrections.len() as u64);
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
    let training: Vec<&Decision> = rows[..teacher_rows].iter().map(|(d, _)| *d).collect();
    (
        agreement(agent, &training).agreement,
        agreement(agent, &held_out),
        last_cross_entropy,
    )
}

/// How often the agent's most probable allowed choice in `decisions` is the teacher's.
pub fn agreement(agent: &mut PpoAgent, decisions: &[&Decision]) -> Agreement {
    let deterministic = std::mem::replace(&mut agent.deterministic, true);
    let mut tally = Tally::default();
    for chunk in decisions.chunks(BATCH) {
        let observations: Vec<&Observation> = chunk.iter().map(|d| &d.observation).collect();
        let acted = agent.act_batch(&observations);
        for (action, decision) in acted.actions.iter().zip(chunk) {
            tally.count(decision, *action == decision.action);
        }
    }
    agent.deterministic = deterministic;
    tally.agreement()
}

/// Who is cloned, on which episodes, and how.
pub struct WarmStartPlan<'a> {
    /// A scheduler spec of the registry, options inline (`las:placement=worst-fit`).
    pub teacher: &'a str,
    pub seeds: Vec<u64>,
    /// `(gamma, discount_time_s)` of the learner, for the critic's targets.
    pub discount: (f64, f64),
    pub settings: CloneSettings,
    /// DAgger rounds after the first fit, each on its own seeds (`dagger_seeds[round]`).
    pub dagger_seeds: Vec<Vec<u64>>,
    /// Passes over all the data gathered so far after each DAgger round.
    pub dagger_epochs: usize,
}

/// The episodes' mean return (0 for none).
fn mean_return(episodes: &[Demonstration]) -> f64 {
    episodes.iter().map(|d| d.episode_return).sum::<f64>() / episodes.len().max(1) as f64
}

/// Demonstrations, cloning, then the DAgger rounds, timed, as the report says.
pub fn warm_start<E: SchedulingEnv>(
    prototype: &E,
    agent: &mut PpoAgent,
    scale: &mut RewardScale,
    plan: &WarmStartPlan,
    device: &Device,
) -> Result<WarmStartReport, PlayError> {
    let start = Instant::now();
    let demonstrations = demonstrate(prototype, plan.teacher, &plan.seeds, plan.discount)?;
    learn_reward_scale(scale, &demonstrations);
    let settings = &plan.settings;
    let mut fitted = clone_teacher(agent, &demonstrations, &[], scale, settings, device);
    let mut gathered: Vec<Demonstration> = Vec::new();
    let mut dagger = Vec::new();
    for seeds in &plan.dagger_seeds {
        let (round, played) = corrections(prototype, agent, plan.teacher, seeds, plan.discount)?;
        dagger.push(DaggerRound {
            episodes: round.len(),
            decisions: round.iter().map(|d| d.decisions.len()).sum(),
            agreement: played.agreement,
            contested_decisions: played.contested_decisions,
            contested_agreement: played.contested_agreement,
            clone_mean_return: mean_return(&round),
        });
        gathered.extend(round);
        let refit = CloneSettings {
            epochs: plan.dagger_epochs,
            ..*settings
        };
        fitted = clone_teacher(agent, &demonstrations, &gathered, scale, &refit, device);
    }
    let (train_agreement, held_out, final_cross_entropy) = fitted;
    let decisions: usize = demonstrations.iter().map(|d| d.decisions.len()).sum();
    let held_out_decisions: usize = demonstrations
        .iter()
        .enumerate()
        .filter(|(k, _)| is_held_out(*k, demonstrations.len()))
        .map(|(_, d)| d.decisions.len())
        .sum();
    Ok(WarmStartReport {
        teacher: plan.teacher.to_owned(),
        episodes: demonstrations.len(),
        decisions,
        held_out_decisions,
        epochs: settings.epochs,
        train_agreement,
        held_out_agreement: held_out.agreement,
        held_out_contested_decisions: held_out.contested_decisions,
        held_out_contested_agreement: held_out.contested_agreement,
        final_cross_entropy,
        teacher_mean_return: mean_return(&demonstrations),
        dagger,
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

    #[test]
    fn a_state_is_contested_when_some_branch_allows_two_choices() {
        let decision = |mask: &[bool], branches: usize| Decision {
            observation: Observation {
                features: Vec::new(),
                action_mask: mask.to_vec(),
            },
            action: vec![0; branches],
            reward: 0.0,
            discount: 1.0,
        };
        assert!(!decision(&[true, false, false], 1).contested());
        assert!(decision(&[true, false, true], 1).contested());
        // two branches of two levels: one allowed in each, then two in the second
        assert!(!decision(&[false, true, true, false], 2).contested());
        assert!(decision(&[false, true, true, true], 2).contested());
    }

    /// philly-mini (82 jobs, 8 machines) through the one-choice interface.
    fn philly_mini() -> JobsEnv {
        philly_mini_with(&[])
    }

    /// philly-mini through the one-choice interface, with `extra` workload settings.
    fn philly_mini_with(extra: &[(&str, &str)]) -> JobsEnv {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/philly-mini.toml");
        let overrides: Vec<(String, String)> = [("window.interface", "one-choice")]
            .iter()
            .chain(extra)
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        JobsEnv::new(Arc::new(JobsWorkload::load(&path, &overrides).unwrap()))
    }

    /// A small per-job network on `env`'s spaces, seeded.
    fn untrained_agent(env: &JobsEnv, seed: u64) -> (PpoAgent, Device) {
        let ctx = env.policy_context();
        let device = Device::flex().autodiff();
        device.seed(seed);
        let net = ActorCriticConfig::per_unit(&ctx.observation_space, &ctx.action_space)
            .unwrap()
            .with_hidden(64)
            .init(&device);
        (PpoAgent::new(net, &ctx, seed), device)
    }

    /// The clone of `sjf` picks the teacher's own choice on at least 70% of the decisions of
    /// an episode it never trained on (the rate docs/learned.md states), and clearly more often
    /// than the untrained network does.
    #[test]
    fn a_clone_reproduces_its_teacher_on_held_out_episodes() {
        let env = philly_mini();
        let (mut agent, device) = untrained_agent(&env, 1);
        let demonstrations = demonstrate(&env, "sjf", &[0, 1, 2, 3], (0.99, 3600.0)).unwrap();
        let held_out: Vec<&Decision> = demonstrations[3].decisions.iter().collect();
        assert!(held_out.len() > 50, "{} decisions", held_out.len());
        let untrained = agreement(&mut agent, &held_out).agreement;
        let settings = CloneSettings {
            epochs: 100,
            lr: 1e-3,
            value_coef: 0.5,
            seed: 1,
        };
        let mut scale = RewardScale::new(1);
        learn_reward_scale(&mut scale, &demonstrations);
        let (train, held, cross_entropy) =
            clone_teacher(&mut agent, &demonstrations, &[], &scale, &settings, &device);
        let held = held.agreement;
        assert!(
            held >= 0.7 && train >= 0.7 && held >= untrained + 0.1 && cross_entropy.is_finite(),
            "agreement {train} on training episodes, {held} held out (untrained {untrained})"
        );
        assert_eq!(held, agreement(&mut agent, &held_out).agreement);
    }

    /// A fresh copy of the teacher asked about a state of its own episode chooses what it chose
    /// there: relabelling a state (DAgger) asks the teacher the same question its own rollout
    /// answered, even in the middle of a window's plan. Exactly for an ordering rule; `raes`
    /// re-solves its MIP with the window's earlier changes made, which moves a few choices.
    #[test]
    fn the_teacher_relabels_its_own_states_with_its_own_choices() {
        let env = philly_mini();
        for (teacher, rate) in [("sjf", 1.0), ("raes", 0.98)] {
            let demo = demonstrate(&env, teacher, &[0], (0.99, 3600.0)).unwrap();
            let mut fresh = registry::build(teacher, &env.context(), &[]).unwrap();
            let decisions = &demo[0].decisions;
            let same = decisions
                .iter()
                .filter(|d| label(fresh.as_mut(), 0, &d.observation) == d.action)
                .count();
            let share = same as f64 / decisions.len() as f64;
            assert!(share >= rate, "{teacher}: {same} of {}", decisions.len());
        }
    }

    /// DAgger's round labels the clone's own states with allowed teacher choices, and refitting
    /// on them makes the clone agree with the teacher more often on the states it reaches.
    #[test]
    fn a_dagger_round_raises_agreement_on_the_clones_own_states() {
        // idling allowed: work-conserving, the mask alone decides 98% of the weak clone's
        // states, too few contested ones left for a round to show
        let env = philly_mini_with(&[("window.work_conserving", "false")]);
        let (mut agent, device) = untrained_agent(&env, 2);
        let discount = (0.99, 3600.0);
        let demonstrations = demonstrate(&env, "sjf", &[0, 1], discount).unwrap();
        let mut scale = RewardScale::new(1);
        learn_reward_scale(&mut scale, &demonstrations);
        let weak = CloneSettings {
            epochs: 3,
            lr: 1e-3,
            value_coef: 0.5,
            seed: 2,
        };
        clone_teacher(&mut agent, &demonstrations, &[], &scale, &weak, &device);
        let (round, before) = corrections(&env, &mut agent, "sjf", &[5, 6], discount).unwrap();
        let labelled: Vec<&Decision> = round.iter().flat_map(|d| &d.decisions).collect();
        assert!(labelled.len() > 50, "{} decisions", labelled.len());
        assert!(
            labelled
                .iter()
                .all(|d| d.observation.action_mask[d.action[0]])
        );
        // where the mask leaves one choice, clone and teacher both take it: all the
        // disagreement is on the contested states
        let (n, c) = (labelled.len() as f64, before.contested_decisions as f64);
        assert!(c > 0.0 && c <= n);
        let agreed = before.contested_agreement * c + (n - c);
        assert!(
            (before.agreement * n - agreed).abs() < 1e-6,
            "{agreed} of {n}"
        );
        let refit = CloneSettings { epochs: 40, ..weak };
        clone_teacher(&mut agent, &demonstrations, &round, &scale, &refit, &device);
        let (_, after) = corrections(&env, &mut agent, "sjf", &[5, 6], discount).unwrap();
        let (before, after) = (before.agreement, after.agreement);
        assert!(
            after >= before + 0.05,
            "agreement on the clone's own states {before} before, {after} after"
        );
    }
}
