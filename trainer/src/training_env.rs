//! The env copies a learner trains on: the workload's env playing the episodes the training
//! plan asks for. Two ingredients of learning from scratch on long, heavy-tailed episodes:
//!
//! - **A curriculum on episode length** (Mao et al., "Learning Scheduling Algorithms for Data
//!   Processing Clusters", SIGCOMM 2019, Decima): each episode is cut at a virtual time drawn
//!   from an exponential distribution whose mean grows over training, so early updates see
//!   many short episodes rather than a few that an untrained policy lets grow pathological. A
//!   cut is a truncation: GAE bootstraps from the critic there, and same-window returns stop
//!   there, as Decima's do. A cut episode ends without metrics in its info: its figures would
//!   describe part of a window, so training curves count whole episodes only.
//! - **Trajectory filtering** (Zhang et al., "RLScheduler: An Automated HPC Batch Job
//!   Scheduler Using Reinforcement Learning", SC 2020): for the first part of training,
//!   episodes play only windows whose cost under a heuristic is not extreme, because rare
//!   catastrophic windows swamp the gradient; afterwards every window. RLScheduler ranks job
//!   sequences by SJF's bounded slowdown; here the cost is the heuristic's negated episode
//!   return on a pool of drawn windows, and a window is kept when its cost is at most a
//!   quantile of the pool's (a reconstruction: the paper gives a range, not a quantile).
//!
//! And, where asked, **decisions without a choice are skipped**: a state whose mask allows one
//! action only is stepped with it at once, so the learner sees only the states where it has a
//! choice, as Decima invokes its agent only at scheduling events. On a jobs window whose last
//! long job runs for days, nearly every round is a forced `advance`; each would fill the
//! rollout with a row the policy cannot change. The step returned then spans the skipped rounds:
//! its reward is their rewards discounted back to the decision (a semi-Markov transition), and
//! the learner discounts what follows by the whole span, from the clock in its info.
//!
//! And, where asked, **only some choices are offered** (`starts_only`, `grow_only`,
//! agents/src/jobs/restricted.rs): the observations' masks leave out the others, so the
//! learner's rollouts and its greedy play choose among the same choices.
//!
//! All of it is a function of the episode's seed and of the plan the trainer sets between
//! updates, so a run is the same for the same seed at any thread count.

use std::sync::Arc;

use rayon::prelude::*;
use schedlab_agents::jobs::ChoiceRestriction;
use schedlab_agents::learned::gae::step_discount;
use schedlab_agents::rollout::run_episode;
use schedlab_agents::{EnvContext, SchedulingEnv, registry};
use schedlab_env::{
    ActionSpace, EnvError, Environment, EpisodeSummary, Observation, ObservationSpace, Step,
    StepInfo, episode_seed,
};

use crate::errors::PlayError;

/// Which episodes copies reset from now on play.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EpisodePlan {
    /// Mean length (virtual seconds) at which episodes are cut; None: never cut.
    pub cut_mean_s: Option<f64>,
    /// The windows (episode seeds) episodes draw from; None: the seed as given.
    pub windows: Option<Arc<Vec<u64>>>,
}

/// A workload's env under an [`EpisodePlan`].
pub struct TrainingEnv<E> {
    inner: E,
    plan: EpisodePlan,
    /// The plan the current episode was reset under (what a checkpoint records to replay it).
    episode_plan: EpisodePlan,
    /// Where the current episode is cut (virtual seconds), if it is.
    cut_at_s: Option<f64>,
    /// The current episode was cut: it is over until the next reset.
    was_cut: bool,
    /// `(gamma, discount_time_s)` when forced decisions are skipped.
    skip_forced: Option<(f64, f64)>,
    /// The virtual clock of the last observation handed out (where a decision is taken).
    clock_s: f64,
    /// The restriction of the one-choice choices offered, if any.
    restriction: Option<ChoiceRestriction>,
}

impl<E: Environment> TrainingEnv<E> {
    pub fn new(inner: E, plan: EpisodePlan) -> Self {
        TrainingEnv {
            inner,
            plan,
            episode_plan: EpisodePlan::default(),
            cut_at_s: None,
            was_cut: false,
            skip_forced: None,
            clock_s: 0.0,
            restriction: None,
        }
    }

    /// Offers only the choices `restriction` leaves (a skipped forced state is then one
    /// where the restriction leaves one choice).
    pub fn restricted_to(mut self, restriction: Option<ChoiceRestriction>) -> Self {
        self.restriction = restriction;
        self
    }

    fn restrict(&self, observation: &mut Observation) {
        if let Some(restriction) = &self.restriction {
            restriction.apply(observation);
        }
    }

    /// A step of the inner env, its observation restricted as asked.
    fn inner_step(&mut self, action: &[usize]) -> schedlab_env::Result<Step<E::Info>> {
        let mut step = self.inner.step(action)?;
        self.restrict(&mut step.observation);
        Ok(step)
    }

    /// Steps every state that allows one action only at once, discounting the rewards of the
    /// skipped rounds by `gamma` per `discount_time_s` virtual seconds (which must be > 0: a
    /// per-step discount would not know how many rounds a step spans).
    pub fn skipping_forced(mut self, gamma: f64, discount_time_s: f64) -> Self {
        assert!(discount_time_s > 0.0, "skipping needs a discount per time");
        self.skip_forced = Some((gamma, discount_time_s));
        self
    }

    /// Takes effect from the next reset.
    pub fn set_plan(&mut self, plan: EpisodePlan) {
        self.plan = plan;
    }

    /// The plan the current episode was reset under.
    pub fn episode_plan(&self) -> &EpisodePlan {
        &self.episode_plan
    }
}

/// A draw of the unit exponential distribution from `seed` (inverse CDF of a uniform in
/// (0, 1] taken from the seed's mixed bits).
pub fn unit_exponential(seed: u64) -> f64 {
    let bits = episode_seed(seed, 0xc07, 0) >> 11;
    let uniform = (bits as f64 + 1.0) / (1u64 << 53) as f64;
    -uniform.ln()
}

impl<E: Environment> Environment for TrainingEnv<E> {
    type Metrics = E::Metrics;
    type Info = E::Info;

    fn workload_name(&self) -> &str {
        self.inner.workload_name()
    }
    fn action_space(&self) -> &ActionSpace {
        self.inner.action_space()
    }
    fn observation_space(&self) -> &ObservationSpace {
        self.inner.observation_space()
    }
    fn step_limit(&self) -> usize {
        self.inner.step_limit()
    }
    fn draws_from_seed(&self) -> bool {
        self.inner.draws_from_seed()
    }

    fn reset(&mut self, seed: u64) -> schedlab_env::Result<(Observation, Self::Info)> {
        let window = match &self.plan.windows {
            Some(windows) => {
                windows[(episode_seed(seed, 0xf11, 0) % windows.len() as u64) as usize]
            }
            None => seed,
        };
        let (mut observation, info) = self.inner.reset(window)?;
        self.restrict(&mut observation);
        self.cut_at_s = self
            .plan
            .cut_mean_s
            .map(|mean| info.time_s() + mean * unit_exponential(seed));
        self.was_cut = false;
        self.clock_s = info.time_s();
        self.episode_plan = self.plan.clone();
        Ok((observation, info))
    }

    fn step(&mut self, action: &[usize]) -> schedlab_env::Result<Step<Self::Info>> {
        if self.was_cut {
            return Err(EnvError::EpisodeOver);
        }
        let mut step = self.inner_step(action)?;
        loop {
            if step.terminated || step.truncated {
                break;
            }
            if self.cut_at_s.is_some_and(|cut| step.info.time_s() >= cut) {
                step.truncated = true;
                self.was_cut = true;
                break;
            }
            let (Some((gamma, unit_s)), Some(forced)) = (
                self.skip_forced,
                only_action(self.inner.action_space(), &step.observation),
            ) else {
                break;
            };
            // the skipped round's reward, discounted back to the decision
            let discount = step_discount(gamma, unit_s, step.info.time_s() - self.clock_s);
            let next = self.inner_step(&forced)?;
            step = Step {
                reward: step.reward + f64::from(discount) * next.reward,
                ..next
            };
        }
        self.clock_s = step.info.time_s();
        Ok(step)
    }

    fn fresh_copy(&self) -> Self {
        TrainingEnv {
            skip_forced: self.skip_forced,
            restriction: self.restriction.clone(),
            ..TrainingEnv::new(self.inner.fresh_copy(), self.plan.clone())
        }
    }
}

impl<E: SchedulingEnv> SchedulingEnv for TrainingEnv<E> {
    fn context(&self) -> EnvContext {
        self.inner.context()
    }
}

/// The one action `observation` allows, if it allows only one.
fn only_action(space: &ActionSpace, observation: &Observation) -> Option<Vec<usize>> {
    (0..space.dims())
        .map(|dim| {
            let mut allowed = observation.mask_of(space, dim).iter().enumerate();
            let first = allowed.find(|(_, ok)| **ok)?.0;
            allowed.all(|(_, ok)| !*ok).then_some(first)
        })
        .collect()
}

/// The seeds of `pool` whose episode under `heuristic` (a registry spec) costs at most the
/// `quantile` of the pool's costs (nearest rank), in pool order. Episodes play in parallel;
/// the result depends on the seeds only.
pub fn filtered_windows<E: SchedulingEnv>(
    prototype: &E,
    heuristic: &str,
    pool: &[u64],
    quantile: f64,
) -> Result<Vec<u64>, PlayError> {
    let copies: Vec<(u64, E)> = pool.iter().map(|&s| (s, prototype.fresh_copy())).collect();
    let costs: Vec<f64> = copies
        .into_par_iter()
        .map(|(seed, mut env)| {
            let mut policy = registry::build(heuristic, &env.context(), &[]).map_err(|source| {
                PlayError::Build {
                    what: format!("trajectory filter heuristic `{heuristic}`"),
                    source,
                }
            })?;
            let metrics = run_episode(&mut env, policy.as_mut(), seed).map_err(|source| {
                PlayError::Episode {
                    what: format!("trajectory filter `{heuristic}`"),
                    seed,
                    source,
                }
            })?;
            Ok(-metrics.episode_return())
        })
        .collect::<Result<_, PlayError>>()?;
    let threshold = nearest_rank(&costs, quantile);
    Ok(pool
        .iter()
        .zip(&costs)
        .filter(|&(_, &cost)| cost <= threshold)
        .map(|(&seed, _)| seed)
        .collect())
}

/// The `quantile` of `values` by nearest rank: the smallest value with at least that share of
/// the values at or below it.
fn nearest_rank(values: &[f64], quantile: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = (quantile * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use schedlab_env::check_env;
    use schedlab_env::gym::CheckOptions;
    use schedlab_env::jobs::{JobsEnv, JobsWorkload};

    use super::*;

    /// philly-mini through the one-choice interface.
    fn philly_mini() -> JobsEnv {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/philly-mini.toml");
        let one_choice = [("window.interface".to_string(), "one-choice".to_string())];
        JobsEnv::new(Arc::new(JobsWorkload::load(&path, &one_choice).unwrap()))
    }

    fn first_allowed<E: Environment>(env: &E, observation: &Observation) -> Vec<usize> {
        let space = env.action_space();
        (0..space.dims())
            .map(|dim| observation.allowed(space, dim)[0])
            .collect()
    }

    #[test]
    fn unit_exponential_draws_have_mean_one_and_depend_on_the_seed_only() {
        let draws: Vec<f64> = (0..20_000).map(unit_exponential).collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        assert!((mean - 1.0).abs() < 0.03, "mean {mean}");
        assert!(draws.iter().all(|d| d.is_finite() && *d >= 0.0));
        assert_eq!(unit_exponential(7), unit_exponential(7));
        assert_ne!(unit_exponential(7), unit_exponential(8));
    }

    #[test]
    fn nearest_rank_picks_the_smallest_value_covering_the_share() {
        let values = [5.0, 1.0, 4.0, 2.0, 3.0];
        assert_eq!(nearest_rank(&values, 0.0), 1.0);
        assert_eq!(nearest_rank(&values, 0.4), 2.0);
        assert_eq!(nearest_rank(&values, 0.41), 3.0);
        assert_eq!(nearest_rank(&values, 1.0), 5.0);
    }

    /// Plays `seed` with the first allowed action everywhere; the step count, the last clock,
    /// whether the episode ended truncated and whether its last info held metrics.
    fn play_first_allowed<E: Environment>(env: &mut E, seed: u64) -> (usize, f64, bool, bool) {
        let (mut observation, _) = env.reset(seed).unwrap();
        for steps in 1.. {
            let action = first_allowed(env, &observation);
            let step = env.step(&action).unwrap();
            if step.terminated || step.truncated {
                let has_metrics = step.info.metrics().is_some();
                return (steps, step.info.time_s(), step.truncated, has_metrics);
            }
            observation = step.observation;
        }
        unreachable!()
    }

    #[test]
    fn a_cut_episode_ends_at_the_first_step_past_its_drawn_time_and_is_over_until_reset() {
        let (_, whole_end, _, _) = play_first_allowed(&mut philly_mini(), 3);
        let mean = whole_end / 8.0;
        let plan = EpisodePlan {
            cut_mean_s: Some(mean),
            windows: None,
        };
        let mut env = TrainingEnv::new(philly_mini(), plan);
        let mut cut_somewhere = false;
        for seed in 0..6 {
            let start = env.reset(seed).unwrap().1.time_s();
            let cut = start + mean * unit_exponential(seed);
            let (steps, end, truncated, has_metrics) = play_first_allowed(&mut env, seed);
            if truncated && end < whole_end {
                cut_somewhere = true;
                assert!(
                    !has_metrics,
                    "seed {seed}: a cut episode has no whole-window metrics"
                );
                assert!(
                    end >= cut,
                    "seed {seed}: cut at {end} before its time {cut}"
                );
                assert!(matches!(env.step(&[0]), Err(EnvError::EpisodeOver)));
            }
            // the same seed cuts the same episode at the same step
            assert_eq!(
                play_first_allowed(&mut env, seed),
                (steps, end, truncated, has_metrics)
            );
        }
        assert!(
            cut_somewhere,
            "a mean of an eighth of an episode cut none of 6"
        );
    }

    #[test]
    fn the_training_env_keeps_the_env_contract_with_windows_and_skipped_decisions() {
        let plan = EpisodePlan {
            cut_mean_s: None,
            windows: Some(Arc::new(vec![11, 12, 13])),
        };
        let env = TrainingEnv::new(philly_mini(), plan).skipping_forced(0.99, 3600.0);
        for seed in 0..3 {
            check_env(
                &env,
                CheckOptions {
                    seed,
                    ..CheckOptions::default()
                },
            )
            .unwrap();
        }
    }

    /// Plays `seed` with the first allowed action; per step the clock before it, its reward
    /// and whether its observation left a choice; and the episode's metrics.
    fn decisions<E: Environment>(env: &mut E, seed: u64) -> (Vec<(f64, f64, bool)>, E::Metrics) {
        let (mut observation, info) = env.reset(seed).unwrap();
        let mut clock = info.time_s();
        let mut steps = Vec::new();
        loop {
            let action = first_allowed(env, &observation);
            let step = env.step(&action).unwrap();
            let choice = only_action(env.action_space(), &step.observation).is_none();
            steps.push((clock, step.reward, choice));
            clock = step.info.time_s();
            if let Some(metrics) = step.info.metrics() {
                return (steps, metrics.clone());
            }
            observation = step.observation;
        }
    }

    #[test]
    fn skipping_forced_decisions_keeps_the_episode_and_its_discounted_return() {
        let (gamma, unit_s) = (0.99, 3600.0);
        let discounted = |steps: &[(f64, f64, bool)]| -> f64 {
            let start = steps[0].0;
            steps
                .iter()
                .map(|&(clock, reward, _)| {
                    f64::from(step_discount(gamma, unit_s, clock - start)) * reward
                })
                .sum()
        };
        for seed in 0..3 {
            let (raw, raw_metrics) = decisions(&mut philly_mini(), seed);
            let mut skipping = TrainingEnv::new(philly_mini(), EpisodePlan::default())
                .skipping_forced(gamma, unit_s);
            let (kept, kept_metrics) = decisions(&mut skipping, seed);
            assert_eq!(
                serde_json::to_string(&raw_metrics).unwrap(),
                serde_json::to_string(&kept_metrics).unwrap(),
                "seed {seed}: the same episode"
            );
            let forced = raw.iter().filter(|s| !s.2).count();
            assert!(forced > 0, "seed {seed}: philly-mini has forced rounds");
            assert!(kept.len() < raw.len());
            // every step handed out but the last leaves a choice
            assert!(kept[..kept.len() - 1].iter().all(|s| s.2), "seed {seed}");
            let (a, b) = (discounted(&raw), discounted(&kept));
            assert!(
                (a - b).abs() <= 1e-4 * a.abs(),
                "seed {seed}: {a} against {b}"
            );
        }
    }

    #[test]
    fn filtered_windows_keep_the_cheaper_share_of_the_pool_and_repeat() {
        let env = philly_mini();
        let pool: Vec<u64> = (100..120).collect();
        let kept = filtered_windows(&env, "fifo", &pool, 0.75).unwrap();
        assert_eq!(kept, filtered_windows(&env, "fifo", &pool, 0.75).unwrap());
        assert!(kept.len() >= 15 && kept.len() < pool.len(), "kept {kept:?}");
        let cost = |seed: u64| {
            let mut env = env.fresh_copy();
            let mut fifo = registry::build("fifo", &env.context(), &[]).unwrap();
            -run_episode(&mut env, fifo.as_mut(), seed)
                .unwrap()
                .episode_return()
        };
        let worst_kept = kept.iter().map(|&s| cost(s)).fold(f64::MIN, f64::max);
        for dropped in pool.iter().filter(|s| !kept.contains(s)) {
            assert!(
                cost(*dropped) > worst_kept,
                "seed {dropped} dropped but cheaper"
            );
        }
        let unknown = filtered_windows(&env, "nope", &pool, 0.75)
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("`nope`"), "{unknown}");
    }
}
