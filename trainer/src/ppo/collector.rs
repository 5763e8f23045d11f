//! Where an update's experience comes from: rollouts of a vectorised env, episodes carried
//! across updates (trainer/src/ppo/rollout.rs), or whole episodes of single copies, beside a
//! baseline heuristic's copies where one plays (trainer/src/ppo/windows.rs).

use schedlab_agents::{Policy, SchedulingEnv, registry};
use schedlab_env::{Environment, Observation, VecEnv};

use super::config::PpoConfig;
use crate::errors::PlayError;
use crate::learner::LearnerError;
use crate::training_env::{EpisodePlan, TrainingEnv};

/// Where an update's experience comes from.
pub(super) enum Collector<E> {
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

/// An env copy and the baseline heuristic that plays on it.
pub(super) type HeuristicCopy<E> = (E, Box<dyn Policy>);

impl<E: SchedulingEnv> Collector<TrainingEnv<E>> {
    /// The collector `config`'s baseline asks for, its copies made from `training` (the
    /// heuristic's from `prototype`); a vectorised env's copies reset from `seed`.
    pub(super) fn new(
        prototype: &E,
        training: &TrainingEnv<E>,
        config: &PpoConfig,
        seed: u64,
    ) -> Result<Self, LearnerError> {
        Ok(
            if config.baseline.same_window >= 2 || !config.baseline.heuristic.is_empty() {
                Collector::Windows {
                    copies: (0..config.envs).map(|_| training.fresh_copy()).collect(),
                    heuristic: heuristic_copies(prototype, config).map_err(|e| {
                        LearnerError::setting("baseline_heuristic", &config.baseline.heuristic, e)
                    })?,
                    rounds: 0,
                }
            } else {
                let mut envs = VecEnv::new(training, config.envs, seed);
                let observations = envs.reset()?;
                Collector::Rollouts { envs, observations }
            },
        )
    }

    /// Every copy's next episodes, the heuristic's too, reset under `plan`.
    pub(super) fn set_plan(&mut self, plan: &EpisodePlan) {
        match self {
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
    }
}

/// One env copy and one built `baseline_heuristic` per training copy (none without one). The
/// heuristic plays every decision itself (no forced ones skipped: its plan spans them), under
/// the copies' plan, so it plays the same window cut at the same time.
fn heuristic_copies<E: SchedulingEnv>(
    prototype: &E,
    config: &PpoConfig,
) -> Result<Vec<HeuristicCopy<TrainingEnv<E>>>, PlayError> {
    let heuristic = &config.baseline.heuristic;
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
