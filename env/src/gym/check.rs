//! The shared env checker (after Gymnasium's `utils/env_checker`): plays seeded random walks
//! over allowed actions and verifies the [`Environment`] contract. Every kind of env must
//! pass it on every shipped workload (see ARCHITECTURE.md, "Add a kind of environment").

use std::hash::{Hash, Hasher};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::environment::{Environment, EpisodeSummary, StepInfo};
use super::spaces::{ActionSpace, Observation};
use crate::error::{EnvError, Result};

/// How hard to look.
#[derive(Debug, Clone, Copy)]
pub struct CheckOptions {
    /// The env seed of the walks (the second-seed walk uses `seed + 1`).
    pub seed: u64,
    /// Each walk stops after this many steps even if its episode has not ended (the
    /// declared `step_limit` when `None`; a walk past `step_limit` is a violation).
    pub max_steps: Option<usize>,
    /// Masked choices tried (and expected to be refused) per walk, at the first states
    /// that have one.
    pub masked_probes: usize,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            seed: 0,
            max_steps: None,
            masked_probes: 8,
        }
    }
}

/// What the checker saw.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// Steps of the first walk, and whether its episode ended within them.
    pub steps: usize,
    pub ended: bool,
    /// Masked choices that were refused.
    pub masked_refused: usize,
}

/// One walk's fingerprint: a digest per step of what the env returned.
struct Walk {
    digests: Vec<u64>,
    /// The episode's metrics as JSON, when it ended.
    metrics: Option<String>,
    ended: bool,
    masked_refused: usize,
}

fn violation(what: String) -> EnvError {
    EnvError::Contract(what)
}

/// Checks `env`'s contract; the first violation found is the error.
pub fn check_env<E: Environment>(env: &E, options: CheckOptions) -> Result<CheckReport> {
    let limit = env.step_limit();
    let max_steps = options.max_steps.unwrap_or(limit).min(limit);
    let seed = options.seed;
    let action_seed = seed ^ 0x5bd1_e995;
    let probed = walk(env, seed, action_seed, max_steps, options.masked_probes)?;
    let again = walk(env, seed, action_seed, max_steps, 0)?;
    if let Some(step) = first_difference(&probed, &again) {
        return Err(violation(format!(
            "seed {seed} twice (the first time with refused masked actions in between) gave different episodes from step {step}: either the env is not deterministic in its seed or a refused action changed it"
        )));
    }
    let other = walk(env, seed + 1, action_seed, max_steps, 0)?;
    if env.draws_from_seed() && first_difference(&again, &other).is_none() {
        return Err(violation(format!(
            "seeds {seed} and {} gave identical episodes over {} steps: reset ignores its seed",
            seed + 1,
            again.digests.len()
        )));
    }
    Ok(CheckReport {
        steps: probed.digests.len() - 1,
        ended: probed.ended,
        masked_refused: probed.masked_refused,
    })
}

fn first_difference(a: &Walk, b: &Walk) -> Option<usize> {
    let steps = a.digests.len().max(b.digests.len());
    (0..steps)
        .find(|&i| a.digests.get(i) != b.digests.get(i))
        .or_else(|| (a.metrics != b.metrics).then_some(steps))
}

fn digest(observation: &Observation, reward: f64, ends: (bool, bool)) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    observation
        .features
        .iter()
        .for_each(|f| f.to_bits().hash(&mut h));
    observation.action_mask.hash(&mut h);
    reward.to_bits().hash(&mut h);
    ends.hash(&mut h);
    h.finish()
}

/// Observation shape, finiteness and a choice in every dimension.
fn check_observation(env: &impl Environment, observation: &Observation, step: usize) -> Result<()> {
    let (obs_len, space) = (env.observation_space().len(), env.action_space());
    let at = |what: String| violation(format!("step {step}: {what}"));
    if observation.features.len() != obs_len {
        return Err(at(format!(
            "{} features, the observation space declares {obs_len}",
            observation.features.len()
        )));
    }
    if let Some(i) = observation.features.iter().position(|f| !f.is_finite()) {
        return Err(at(format!(
            "feature {i} is {} (observations must be finite)",
            observation.features[i]
        )));
    }
    if observation.action_mask.len() != space.mask_len() {
        return Err(at(format!(
            "a mask of {} entries, the action space declares {}",
            observation.action_mask.len(),
            space.mask_len()
        )));
    }
    if let Some(dim) = (0..space.dims()).find(|&d| !observation.mask_of(space, d).contains(&true)) {
        return Err(at(format!("{} has no allowed level", space.label(dim))));
    }
    Ok(())
}

/// A uniform choice among the allowed levels of every dimension.
fn random_action(space: &ActionSpace, observation: &Observation, rng: &mut StdRng) -> Vec<usize> {
    (0..space.dims())
        .map(|d| {
            let allowed = observation.allowed(space, d);
            allowed[rng.random_range(0..allowed.len())]
        })
        .collect()
}

/// `action` with one dimension moved to a masked level, if the observation masks any.
fn masked_variant(
    space: &ActionSpace,
    observation: &Observation,
    action: &[usize],
    rng: &mut StdRng,
) -> Option<Vec<usize>> {
    let masked: Vec<(usize, usize)> = (0..space.dims())
        .flat_map(|d| {
            let mask = observation.mask_of(space, d);
            (0..mask.len())
                .filter(move |&l| !mask[l])
                .map(move |l| (d, l))
        })
        .collect();
    if masked.is_empty() {
        return None;
    }
    let (dim, level) = masked[rng.random_range(0..masked.len())];
    let mut bad = action.to_vec();
    bad[dim] = level;
    Some(bad)
}

/// A malformed action (one entry short, a level past the last) is refused before anything
/// else.
fn check_malformed_refused<E: Environment>(
    env: &mut E,
    observation: &Observation,
    rng: &mut StdRng,
) -> Result<()> {
    let space = env.action_space().clone();
    let too_short = vec![0; space.dims().saturating_sub(1)];
    if env.step(&too_short).is_ok() {
        return Err(violation(format!(
            "an action of {} entries was accepted; the action space has {}",
            too_short.len(),
            space.dims()
        )));
    }
    let mut too_high = random_action(&space, observation, rng);
    too_high[0] = space.choices(0);
    if env.step(&too_high).is_ok() {
        return Err(violation(format!(
            "level {} of {} was accepted; it has {} levels",
            space.choices(0),
            space.label(0),
            space.choices(0)
        )));
    }
    Ok(())
}

/// The metrics' columns each name a field of their JSON, once, and read its value (a kind may
/// keep fields out of its columns: the jobs cluster's counts of jobs and steps).
fn check_columns<M: EpisodeSummary>(metrics: &M) -> Result<()> {
    let json =
        serde_json::to_value(metrics).map_err(|e| violation(format!("metrics to JSON: {e}")))?;
    let fields = json
        .as_object()
        .ok_or_else(|| violation("metrics are not a JSON object".into()))?;
    let mut named: Vec<&str> = M::COLUMNS.iter().map(|c| c.name).collect();
    named.sort_unstable();
    named.dedup();
    if named.len() != M::COLUMNS.len() {
        return Err(violation("two metric columns share a name".into()));
    }
    if let Some(unknown) = named.iter().find(|n| !fields.contains_key(**n)) {
        return Err(violation(format!(
            "metric column {unknown} names no field of the metrics"
        )));
    }
    for column in M::COLUMNS {
        let read = (column.value)(metrics);
        let field = &fields[column.name];
        let stored = field
            .as_f64()
            .or_else(|| field.as_bool().map(|b| f64::from(u8::from(b))));
        // a non-finite figure is written as null
        let same = stored.map_or(!read.is_finite(), |v| v == read);
        if !same {
            return Err(violation(format!(
                "metric column {} reads {read}, the metrics hold {field}",
                column.name
            )));
        }
    }
    Ok(())
}

/// At the step `step` that ended the episode: its info carries finite metrics, and a further
/// step is refused as `EpisodeOver`. Returns the metrics as text.
fn check_episode_end<E: Environment>(
    env: &mut E,
    info: &E::Info,
    action: &[usize],
    step: usize,
) -> Result<String> {
    let Some(metrics) = info.metrics() else {
        return Err(violation(format!(
            "step {step} ended the episode without metrics in its info"
        )));
    };
    if !metrics.episode_return().is_finite() {
        return Err(violation(format!(
            "the episode's return is {}",
            metrics.episode_return()
        )));
    }
    check_columns(metrics)?;
    let metrics = format!("{metrics:?}");
    match env.step(action) {
        Err(EnvError::EpisodeOver) => Ok(metrics),
        other => Err(violation(format!(
            "step after the end of the episode: expected EpisodeOver, got {}",
            match other {
                Ok(_) => "a step".to_owned(),
                Err(e) => e.to_string(),
            }
        ))),
    }
}

fn walk<E: Environment>(
    prototype: &E,
    seed: u64,
    action_seed: u64,
    max_steps: usize,
    masked_probes: usize,
) -> Result<Walk> {
    let mut env = prototype.fresh_copy();
    let space = env.action_space().clone();
    let mut rng = StdRng::seed_from_u64(action_seed);
    // the checker's own draws (which masked choice to try) must not shift the walk's actions
    let mut probe_rng = StdRng::seed_from_u64(action_seed ^ 1);
    let (mut observation, _) = env.reset(seed)?;
    check_observation(&env, &observation, 0)?;
    let mut digests = vec![digest(&observation, 0.0, (false, false))];
    let mut masked_refused = 0;
    if masked_probes > 0 {
        check_malformed_refused(&mut env, &observation, &mut probe_rng)?;
    }
    for step in 1..=max_steps {
        let action = random_action(&space, &observation, &mut rng);
        if masked_refused < masked_probes
            && let Some(bad) = masked_variant(&space, &observation, &action, &mut probe_rng)
        {
            if env.step(&bad).is_ok() {
                return Err(violation(format!(
                    "step {step}: a masked choice was accepted ({})",
                    space
                        .check(&bad, &observation.action_mask)
                        .expect_err("the variant is masked")
                )));
            }
            masked_refused += 1;
        }
        let out = env.step(&action)?;
        check_observation(&env, &out.observation, step)?;
        if !out.reward.is_finite() {
            return Err(violation(format!("step {step}: reward {}", out.reward)));
        }
        digests.push(digest(
            &out.observation,
            out.reward,
            (out.terminated, out.truncated),
        ));
        if out.terminated || out.truncated {
            let metrics = check_episode_end(&mut env, &out.info, &action, step)?;
            return Ok(Walk {
                digests,
                metrics: Some(metrics),
                ended: true,
                masked_refused,
            });
        }
        if out.info.metrics().is_some() {
            return Err(violation(format!(
                "step {step} set episode metrics but did not end the episode"
            )));
        }
        observation = out.observation;
    }
    if max_steps == prototype.step_limit() {
        return Err(violation(format!(
            "the episode did not end within its declared step limit of {max_steps}"
        )));
    }
    Ok(Walk {
        digests,
        metrics: None,
        ended: false,
        masked_refused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gym::{ObservationSpace, Step};
    use crate::single_job::{SingleJobEnv, SingleJobInfo, SingleJobMetrics};
    use crate::testkit::{scenario, two_node_workload};

    fn env() -> SingleJobEnv {
        SingleJobEnv::new(scenario(&two_node_workload("hb_asgd", "")))
    }

    #[test]
    fn the_single_job_env_keeps_the_contract() {
        let report = check_env(&env(), CheckOptions::default()).unwrap();
        assert!(report.ended && report.steps > 0, "{report:?}");
    }

    /// Wraps a good env and breaks one rule.
    struct Broken {
        inner: SingleJobEnv,
        flaw: Flaw,
    }

    #[derive(Clone, Copy)]
    enum Flaw {
        IgnoresSeed,
        LongerObservation,
        NeverEnds,
    }

    impl Environment for Broken {
        type Metrics = SingleJobMetrics;
        type Info = SingleJobInfo;
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
            match self.flaw {
                Flaw::NeverEnds => 3,
                _ => Environment::step_limit(&self.inner),
            }
        }
        fn reset(&mut self, seed: u64) -> Result<(Observation, SingleJobInfo)> {
            let (mut obs, info) = match self.flaw {
                Flaw::IgnoresSeed => self.inner.reset(7)?,
                _ => self.inner.reset(seed)?,
            };
            if let Flaw::LongerObservation = self.flaw {
                obs.features.push(0.0);
            }
            Ok((obs, info))
        }
        fn step(&mut self, action: &[usize]) -> Result<Step<SingleJobInfo>> {
            self.inner.step(action)
        }
        fn fresh_copy(&self) -> Self {
            Broken {
                inner: self.inner.fresh_copy(),
                flaw: self.flaw,
            }
        }
    }

    fn violation_of(flaw: Flaw) -> String {
        let broken = Broken { inner: env(), flaw };
        match check_env(&broken, CheckOptions::default()) {
            Err(EnvError::Contract(what)) => what,
            other => panic!("expected a contract violation, got {other:?}"),
        }
    }

    #[test]
    fn an_env_whose_reset_ignores_the_seed_is_caught() {
        let what = violation_of(Flaw::IgnoresSeed);
        assert!(what.contains("reset ignores its seed"), "{what}");
    }

    #[test]
    fn an_observation_longer_than_declared_is_caught() {
        let what = violation_of(Flaw::LongerObservation);
        assert!(what.contains("the observation space declares"), "{what}");
    }

    #[test]
    fn an_episode_past_its_declared_limit_is_caught() {
        let what = violation_of(Flaw::NeverEnds);
        assert!(
            what.contains("did not end within its declared step limit of 3"),
            "{what}"
        );
    }

    /// Metrics whose columns are sound (`FLAW` 0), read another field (1) or name none (2).
    #[derive(Debug, Clone, serde::Serialize)]
    struct Figures<const FLAW: u8> {
        time_s: f64,
        done: bool,
    }

    impl<const FLAW: u8> EpisodeSummary for Figures<FLAW> {
        const COLUMNS: &'static [crate::gym::MetricColumn<Self>] = {
            use crate::gym::columns::{Better, column};
            match FLAW {
                0 => &[
                    column("time_s", |m: &Self| m.time_s, 1, Better::Lower),
                    column(
                        "done",
                        |m: &Self| f64::from(u8::from(m.done)),
                        0,
                        Better::Higher,
                    )
                    .as_flag(),
                ],
                1 => &[column("time_s", |m: &Self| -m.time_s, 1, Better::Lower)],
                _ => &[column("makespan_s", |m: &Self| m.time_s, 1, Better::Lower)],
            }
        };
        fn episode_return(&self) -> f64 {
            -self.time_s
        }
        fn curves(&self) -> Vec<(&'static str, f64)> {
            vec![("time_s", self.time_s)]
        }
    }

    fn figures<const FLAW: u8>() -> Figures<FLAW> {
        Figures {
            time_s: 3.0,
            done: true,
        }
    }

    #[test]
    fn metric_columns_that_misread_or_name_no_field_are_caught() {
        assert!(check_columns(&figures::<0>()).is_ok());
        let misread = check_columns(&figures::<1>()).unwrap_err().to_string();
        assert!(misread.contains("time_s reads -3"), "{misread}");
        let unnamed = check_columns(&figures::<2>()).unwrap_err().to_string();
        assert!(unnamed.contains("makespan_s names no field"), "{unnamed}");
    }
}
