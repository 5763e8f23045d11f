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
    // the same workload with its GPU models as labels only, timed seed by seed beside it so
    // that a drift in the machine's speed falls on both
    let mut envs = vec![jobs.env()];
    if workload.heterogeneity.is_some() {
        let mut blind = (**workload).clone();
        blind.heterogeneity = None;
        envs.push(JobsEnv::new(Arc::new(blind)));
    }
    let mut timed = time_episodes(envs, &args)?.into_iter();
    let (best, metrics) = timed.next().expect("the workload's own env is timed");
    let off = timed.next();
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
    if let Some((off, blind)) = off {
        println!(
            "heterogeneity off: {:.0} jobs/s ({off:.3} s per episode; {} decision points, {} steps); on over off: {:.2}x the time",
            count / off,
            blind.decision_points,
            blind.steps,
            best / off
        );
    }
    if let Some(mib) = peak_memory_mib() {
        println!("peak memory {mib:.1} MiB");
    }
    Ok(())
}

/// Per env, the fastest of `args.repeats` episodes (seeds 0..) of `args.policy` and the last
/// episode's metrics; the envs take turns at each seed.
fn time_episodes(
    envs: Vec<JobsEnv>,
    args: &BenchClusterArgs,
) -> anyhow::Result<Vec<(f64, JobsMetrics)>> {
    let mut players = Vec::with_capacity(envs.len());
    for env in envs {
        let policy = schedlab_experiments::play::make_policy(&args.policy, &env, &[])?;
        players.push((env, policy));
    }
    let mut timed: Vec<Option<(f64, JobsMetrics)>> = vec![None; players.len()];
    for seed in 0..args.repeats.max(1) {
        for ((env, policy), timed) in players.iter_mut().zip(&mut timed) {
            let start = Instant::now();
            let metrics = schedlab_agents::run_episode(env, policy.as_mut(), seed)?;
            let seconds = start.elapsed().as_secs_f64();
            let best = timed
                .as_ref()
                .map_or(seconds, |(best, _)| best.min(seconds));
            *timed = Some((best, metrics));
        }
    }
    Ok(timed.into_iter().flatten().collect())
}
