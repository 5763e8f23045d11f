//! `schedlab bench solvers`: RAES's allocation problem at growing sizes, solved exactly (MIP)
//! and heuristically: the solve times and the heuristic's gap to the optimum where the exact
//! solver finishes within its time limit; then Gavel's allocation programs (max-min fairness,
//! and finish-time fairness by bisection) at growing window sizes: their solve times.

use std::time::Instant;

use clap::Args;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use schedlab_agents::jobs::gavel_lp::{LpCluster, LpJob, finish_time_fairness, max_min_fairness};
use schedlab_agents::raes::exact::{ExactError, SearchLimit, solve_exact};
use schedlab_agents::raes::heuristic::solve_heuristic;
use schedlab_agents::raes::problem::random_problem;

use schedlab_experiments::output::align;
use schedlab_experiments::stats::median;

#[derive(Args)]
pub struct BenchSolversArgs {
    /// Worker counts to solve.
    #[arg(long, value_delimiter = ',', default_value = "10,50,200,1000")]
    workers: Vec<usize>,
    /// Workers sharing a node (they compete for its capacity).
    #[arg(long, default_value_t = 4)]
    per_node: usize,
    /// Instances per size (seeds 0..N); times are medians, gaps means.
    #[arg(long, default_value_t = 3)]
    instances: u64,
    /// Seconds the exact solver may take per instance.
    #[arg(long, default_value_t = 20.0)]
    time_limit: f64,
    /// Jobs of Gavel's programs (the jobs env gives it its window's slots: 16 by default).
    #[arg(long, value_delimiter = ',', default_value = "4,16,64,256")]
    lp_jobs: Vec<usize>,
}

pub fn run(args: BenchSolversArgs) -> anyhow::Result<()> {
    let mut rows = vec![vec![
        "workers".to_owned(),
        "options".to_owned(),
        "heuristic ms".to_owned(),
        "exact ms".to_owned(),
        "gap %".to_owned(),
        "exact solved".to_owned(),
    ]];
    for &workers in &args.workers {
        let (mut heuristic_ms, mut exact_ms, mut gaps) = (Vec::new(), Vec::new(), Vec::new());
        let mut options = 0;
        for seed in 0..args.instances {
            let problem = random_problem(workers, args.per_node, seed);
            options = problem.workers.iter().map(|w| w.options.len()).sum();
            let start = Instant::now();
            let heuristic = solve_heuristic(&problem)
                .ok_or_else(|| anyhow::anyhow!("instance {seed}: the heuristic found nothing"))?;
            heuristic_ms.push(start.elapsed().as_secs_f64() * 1e3);
            let start = Instant::now();
            match solve_exact(&problem, SearchLimit::seconds(args.time_limit)) {
                Ok(exact) => {
                    exact_ms.push(start.elapsed().as_secs_f64() * 1e3);
                    gaps.push(
                        100.0 * (heuristic.objective - exact.objective)
                            / exact.objective.abs().max(1e-12),
                    );
                }
                Err(ExactError::Limit(_)) => {}
                Err(e) => return Err(e.into()),
            }
        }
        rows.push(vec![
            workers.to_string(),
            options.to_string(),
            format!("{:.2}", median(heuristic_ms)),
            if exact_ms.is_empty() {
                format!("> {:.0} s", args.time_limit)
            } else {
                format!("{:.1}", median(exact_ms.clone()))
            },
            if gaps.is_empty() {
                "-".to_owned()
            } else {
                format!("{:.3}", gaps.iter().sum::<f64>() / gaps.len() as f64)
            },
            format!("{}/{}", exact_ms.len(), args.instances),
        ]);
    }
    println!(
        "RAES allocation: {} workers per node, generated instances (seeds 0..{}), exact = microlp (limit {} s)",
        args.per_node, args.instances, args.time_limit
    );
    println!("{}", align(&rows));
    gavel_programs(&args)
}

/// Gavel's programs on generated windows of `lp_jobs` jobs on three models of 36 GPUs each.
fn gavel_programs(args: &BenchSolversArgs) -> anyhow::Result<()> {
    let mut rows = vec![vec![
        "jobs".to_owned(),
        "variables".to_owned(),
        "max-min ms".to_owned(),
        "finish-time ms".to_owned(),
    ]];
    for &jobs in &args.lp_jobs {
        let (mut max_min, mut finish_time) = (Vec::new(), Vec::new());
        for seed in 0..args.instances {
            let (window, cluster) = gavel_instance(jobs, seed);
            let start = Instant::now();
            std::hint::black_box(max_min_fairness(&window, &cluster));
            max_min.push(start.elapsed().as_secs_f64() * 1e3);
            let start = Instant::now();
            std::hint::black_box(finish_time_fairness(&window, &cluster));
            finish_time.push(start.elapsed().as_secs_f64() * 1e3);
        }
        rows.push(vec![
            jobs.to_string(),
            (3 * jobs).to_string(),
            format!("{:.2}", median(max_min)),
            format!("{:.1}", median(finish_time)),
        ]);
    }
    println!(
        "Gavel's allocation programs (agents/src/jobs/gavel_lp.rs): 3 models of 36 GPUs, generated windows (seeds 0..{}), microlp",
        args.instances
    );
    println!("{}", align(&rows));
    Ok(())
}

/// `jobs` jobs of 1, 2, 4 or 8 GPUs, speeds 0.2-2 per model, a third of them halfway done.
fn gavel_instance(jobs: usize, seed: u64) -> (Vec<LpJob>, LpCluster) {
    let mut rng = StdRng::seed_from_u64(seed);
    let window = (0..jobs)
        .map(|_| LpJob {
            gpus: f64::from(1u32 << rng.random_range(0..4)),
            speed: (0..3).map(|_| rng.random_range(0.2..2.0)).collect(),
            elapsed_s: if rng.random_bool(1.0 / 3.0) {
                3600.0
            } else {
                0.0
            },
            remaining_s: rng.random_range(600.0..36_000.0),
        })
        .collect();
    let cluster = LpCluster {
        capacity: vec![36.0; 3],
        totals: vec![36.0; 3],
        in_system: jobs,
    };
    (window, cluster)
}
