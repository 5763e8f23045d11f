//! `schedlab compare` on a jobs workload: policies over seeds, mean ± std per metric.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use rayon::prelude::*;
use schedlab_agents::jobs::{registry, run_jobs_episode};
use schedlab_env::jobs::{JobsEnv, JobsMetrics, JobsWorkload};

use super::compare::compare_table;
use super::evaluate::episode_bar;
use crate::output::JOBS_METRICS;

/// One episode of `spec` on `workload` from `seed`.
pub fn play(workload: &Arc<JobsWorkload>, spec: &str, seed: u64) -> anyhow::Result<JobsMetrics> {
    let mut env = JobsEnv::new(workload.clone());
    let mut policy = registry::by_name(spec, &env)?;
    run_jobs_episode(&mut env, policy.as_mut(), seed)
        .with_context(|| format!("{spec} on {}, seed {seed}", workload.name))
}

pub fn run(
    path: &Path,
    policies: &[String],
    seeds: &[u64],
    seeds_text: &str,
) -> anyhow::Result<()> {
    let workload = crate::jobs::load(path)?;
    for spec in policies {
        // refuse a bad name or option before any episode runs
        registry::by_name(spec, &JobsEnv::new(workload.clone()))?;
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
            let metrics = play(&workload, &policies[p], seed);
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
