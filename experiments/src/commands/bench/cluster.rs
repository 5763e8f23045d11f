//! `schedlab bench cluster`: how fast the jobs cluster simulates a trace in surrogate mode,
//! as simulated jobs per wall-clock second, and the process's peak memory.

use std::path::PathBuf;
use std::time::Instant;

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
        .unwrap_or_else(|| shipped_workload("openb-slice.toml"));
    let loading = Instant::now();
    let loaded = schedlab_experiments::workloads::load(&path, &[])?;
    let jobs: &Jobs = loaded.expect("bench cluster", &path)?;
    let workload = &jobs.workload;
    let load_s = loading.elapsed().as_secs_f64();
    let mut env = jobs.env();
    let mut policy = schedlab_experiments::play::make_policy(&args.policy, &env, &[])?;
    let mut best = f64::INFINITY;
    let mut last = None;
    for seed in 0..args.repeats.max(1) {
        let start = Instant::now();
        let metrics = schedlab_agents::run_episode(&mut env, policy.as_mut(), seed)?;
        best = best.min(start.elapsed().as_secs_f64());
        last = Some(metrics);
    }
    let metrics = last.expect("at least one repeat");
    let jobs = workload.jobs.len() as f64;
    println!(
        "{}: {} jobs on {} machines, {} with {} ({:?} fidelity), one thread",
        workload.name,
        workload.jobs.len(),
        workload.machine_count(),
        path.display(),
        args.policy,
        workload.fidelity
    );
    println!(
        "{:.0} jobs/s ({:.3} s per episode, fastest of {}; {} decision points, {} steps, {} finished); loading {:.3} s",
        jobs / best,
        best,
        args.repeats.max(1),
        metrics.decision_points,
        metrics.steps,
        metrics.finished,
        load_s
    );
    if let Some(mib) = peak_memory_mib() {
        println!("peak memory {mib:.1} MiB");
    }
    Ok(())
}
