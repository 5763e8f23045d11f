//! `schedlab compare` on a jobs workload: policies over seeds, mean ± std per metric.

use std::path::Path;

use anyhow::Context;
use rayon::prelude::*;
use schedlab_agents::jobs::registry;
use schedlab_agents::{Policy, SchedulingEnv, run_episode};
use schedlab_env::jobs::{JobsEnv, JobsMetrics};

use super::compare::compare_table;
use super::evaluate::{episode_bar, trained_agent};
use crate::jobs::Jobs;
use crate::output::JOBS_METRICS;

/// A jobs policy by name, or the trained agent of a run folder (trained on a jobs workload
/// with the same window).
pub fn make_policy(spec: &str, env: &JobsEnv) -> anyhow::Result<Box<dyn Policy>> {
    match trained_agent(spec, &env.policy_context())? {
        Some(agent) => Ok(agent),
        None => Ok(registry::by_name(spec, env)?),
    }
}

/// One episode of `spec` on `jobs` from `seed`.
pub fn play(jobs: &Jobs, spec: &str, seed: u64) -> anyhow::Result<JobsMetrics> {
    let mut env = jobs.env();
    let mut policy = make_policy(spec, &env)?;
    run_episode(&mut env, policy.as_mut(), seed)
        .with_context(|| format!("{spec} on {}, seed {seed}", jobs.workload.name))
}

/// Every job's completion time (hours) in one episode of `spec` on `jobs` from `seed`; jobs
/// still in the system at the time limit count their time so far.
pub fn completion_hours(jobs: &Jobs, spec: &str, seed: u64) -> anyhow::Result<Vec<f64>> {
    let mut env = jobs.env();
    let mut policy = make_policy(spec, &env)?;
    run_episode(&mut env, policy.as_mut(), seed)
        .with_context(|| format!("{spec} on {}, seed {seed}", jobs.workload.name))?;
    Ok(env.completion_times().iter().map(|s| s / 3600.0).collect())
}

pub fn run(
    path: &Path,
    policies: &[String],
    seeds: &[u64],
    seeds_text: &str,
) -> anyhow::Result<()> {
    let jobs = crate::jobs::load(path)?;
    let workload = &jobs.workload;
    for spec in policies {
        // refuse a bad name, option or run folder before any episode runs
        make_policy(spec, &jobs.env())?;
    }
    let bar = episode_bar(
        (seeds.len() * policies.len()) as u64,
        format!("compare on {}", workload.name),
    )?;
    let cells: Vec<(usize, u64)> = (0..policies.len())
        .flat_map(|p| seeds.iter().map(move |&s| (p, s)))
        .collect();
    let played = cells
        .par_iter()
        .map(|&(p, seed)| {
            let metrics = play(&jobs, &policies[p], seed);
            bar.inc(1);
            metrics
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    bar.finish_and_clear();
    let results: Vec<(String, Vec<JobsMetrics>)> = policies
        .iter()
        .enumerate()
        .map(|(p, spec)| {
            (
                spec.clone(),
                played[p * seeds.len()..(p + 1) * seeds.len()].to_vec(),
            )
        })
        .collect();
    println!(
        "{} ({}, {} jobs on {} machines), seeds {seeds_text}, mean ± std, * best",
        workload.name,
        path.display(),
        workload.jobs.len(),
        workload.machine_count()
    );
    println!("{}", compare_table(&JOBS_METRICS, &results));
    Ok(())
}
