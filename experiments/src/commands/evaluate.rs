//! Playing policies over seeds: what `run`, `eval` and `compare` share.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use schedlab_agents::{Policy, PolicyContext, by_name, run_episode_observed};
use schedlab_env::{ClusterEnv, EpisodeMetrics, Info, Scenario, Step};
use schedlab_trainer::run::load_agent;

/// Parses `0..4` (inclusive: 0,1,2,3,4), `3` or `1,5,9`.
pub fn parse_seeds(text: &str) -> anyhow::Result<Vec<u64>> {
    let number = |s: &str| {
        s.trim()
            .parse::<u64>()
            .with_context(|| format!("seeds `{text}`: `{s}` is not a seed"))
    };
    if let Some((a, b)) = text.split_once("..") {
        let (a, b) = (number(a)?, number(b)?);
        anyhow::ensure!(a <= b, "seeds `{text}`: the range is empty");
        return Ok((a..=b).collect());
    }
    text.split(',').map(number).collect()
}

/// A progress bar over episodes.
pub fn episode_bar(total: u64, message: String) -> anyhow::Result<ProgressBar> {
    let bar = ProgressBar::new(total).with_style(ProgressStyle::with_template(
        "{msg} [{bar:30}] {pos}/{len} episodes, {elapsed} elapsed, ~{eta} left",
    )?);
    bar.set_message(message);
    Ok(bar)
}

/// A progress bar over env rounds, with a message for rates and returns.
pub fn step_bar(total: u64, message: String) -> anyhow::Result<ProgressBar> {
    let bar = ProgressBar::new(total).with_style(ProgressStyle::with_template(
        "{msg} [{bar:30}] {pos}/{len} rounds, {elapsed} elapsed, ~{eta} left",
    )?);
    bar.set_message(message);
    Ok(bar)
}

/// Where `raes` finds fitted predictors unless told: the ones shipped in the repository.
const SHIPPED_PREDICTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/predictors");

/// The trained agent of the run folder `spec` names (acting deterministically), or `None`
/// when `spec` is not a run folder.
pub fn trained_agent(spec: &str, ctx: &PolicyContext) -> anyhow::Result<Option<Box<dyn Policy>>> {
    let run = Path::new(spec);
    if !run.join("manifest.json").is_file() {
        return Ok(None);
    }
    Ok(Some(load_agent(run, ctx, &crate::device::agents())?))
}

/// A policy by name (with `options` it accepts), or the trained agent of a run folder.
pub fn make_policy(
    spec: &str,
    ctx: PolicyContext,
    options: &[(String, String)],
) -> anyhow::Result<Box<dyn Policy>> {
    if let Some(agent) = trained_agent(spec, &ctx)? {
        return Ok(agent);
    }
    let defaults = [("predictor_dir".to_owned(), SHIPPED_PREDICTORS.to_owned())];
    let options: Vec<(String, String)> = defaults.into_iter().chain(options.to_vec()).collect();
    Ok(by_name(spec, ctx, &options)?)
}

/// Plays one episode of a policy (see [`make_policy`]) with a fresh env, handing each step to
/// `observe`.
pub fn play(
    scenario: &Arc<Scenario>,
    policy: &str,
    options: &[(String, String)],
    seed: u64,
    observe: impl FnMut(&Step<Info>),
) -> anyhow::Result<EpisodeMetrics> {
    let mut env = ClusterEnv::new(scenario.clone());
    let mut policy = make_policy(policy, PolicyContext::of(&env), options)?;
    run_episode_observed(&mut env, policy.as_mut(), seed, observe).with_context(|| {
        format!(
            "{} on {}, seed {seed}",
            policy.name(),
            scenario.workload.name
        )
    })
}

/// Every seed's episode, in parallel (one env each); results in seed order.
pub fn play_seeds(
    scenario: &Arc<Scenario>,
    policy: &str,
    options: &[(String, String)],
    seeds: &[u64],
    bar: &ProgressBar,
) -> anyhow::Result<Vec<EpisodeMetrics>> {
    seeds
        .par_iter()
        .map(|&seed| {
            let metrics = play(scenario, policy, options, seed, |_| {});
            bar.inc(1);
            metrics
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_parse_as_inclusive_ranges_lists_or_single_values() {
        assert_eq!(parse_seeds("0..4").unwrap(), vec![0, 1, 2, 3, 4]);
        assert_eq!(parse_seeds("7").unwrap(), vec![7]);
        assert_eq!(parse_seeds("1, 5,9").unwrap(), vec![1, 5, 9]);
        assert!(parse_seeds("4..1").is_err());
        assert!(parse_seeds("a..3").unwrap_err().to_string().contains("`a`"));
    }
}
