//! `schedlab bench cluster`: how fast the jobs cluster simulates a trace in surrogate mode,
//! as simulated jobs per wall-clock second, and the process's peak memory; on a workload with
//! `[heterogeneity]`, also with it off, and the ratio of the two.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use schedlab_env::jobs::{JobsEnv, JobsMetrics};

use clap::Args;

use super::peak_memory_mib;
use schedlab_experiments::paths::shipped_workload;

#[derive(Args)]
pub struct BenchClusterArgs {
    /// Jobs workload (default: the shipped openb slice, 5,720 pods on 1,523 nodes).
    #[arg(long)]
    workload: Option<PathBuf>,
    /// Scheduler to time.
    #[arg(long, default_value = "fifo:placement=best-fit")]
    policy: String,
    /// Repetitions (seeds 0..repeats); the fastest counts.
    #[arg(long, default_value_t = 3)]
    repeats: u64,
}

use schedlab_experiments::workloads::{Jobs, Kind};

pub fn run(args: BenchClusterArgs) -> anyhow::Result<()> {
    let path = args
        .workload
        .clone()
        .unwrap_or_else(|| shipped_workload("openb-slice.toml"));
    let loading = Instant::now();
    let loaded = schedlab_experiments::workloads::load(&path, &[])?;
    let jobs: &Jobs = loaded.expect("bench cluster", &path)?;
    let workload = &jobs.workload;
    let load_s = loading.elapsed().as_secs_f64();
    let (best, metrics) = time_episodes(jobs.env(), &args)?;
    println!(
        "{}: {} jobs on {} machines, {} with {} ({:?} fidelity), one thread",
        workload.name,
        workload.jobs.len(),
        workload.machine_count(),
        path.display(),
        args.policy,
        workload.fidelity
    );
    let count = workload.jobs.len() as f64;
    println!(
        "{:.0} jobs/s ({:.3} s per episode, fastest of {}; {} decision points, {} steps, {} finished); loading {:.3} s",
        count / best,
        best,
        args.repeats.max(1),
        metrics.decision_points,
        metrics.steps,
        metrics.finished,
        load_s
    );
    if workload.heterogeneity.is_some() {
        // the same workload with its GPU models as labels only
        let mut blind = (**workload).clone();
        blind.heterogeneity = None;
        let (off, _) = time_episodes(JobsEnv::new(Arc::new(blind)), &args)?;
        println!(
            "heterogeneity off: {:.0} jobs/s ({off:.3} s per episode); on over off: {:.2}x the time",
            count / off,
            best / off
        );
    }
    if let Some(mib) = peak_memory_mib() {
        println!("peak memory {mib:.1} MiB");
    }
    Ok(())
}

/// The fastest of `args.repeats` episodes (seeds 0..) of `args.policy` on `env`, and the
/// last episode's metrics.
fn time_episodes(mut env: JobsEnv, args: &BenchClusterArgs) -> anyhow::Result<(f64, JobsMetrics)> {
    let mut policy = schedlab_experiments::play::make_policy(&args.policy, &env, &[])?;
    let mut best = f64::INFINITY;
    let mut last = None;
    for seed in 0..args.repeats.max(1) {
        let start = Instant::now();
        let metrics = schedlab_agents::run_episode(&mut env, policy.as_mut(), seed)?;
        best = best.min(start.elapsed().as_secs_f64());
        last = Some(metrics);
    }
    Ok((best, last.expect("at least one repeat")))
}
