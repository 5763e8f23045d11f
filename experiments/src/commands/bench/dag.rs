//! `schedlab bench dag`: the DAG schedulers' speed on large instances: HEFT's time and every
//! list scheduler's, and how many plans per second the metaheuristics' decoder (the env's
//! executor) scores, on one core.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use schedlab_agents::dag::{Decoder, LIST_SCHEDULERS};
use schedlab_env::dag::{DagWorkload, Problem};

use schedlab_experiments::output::align;
use schedlab_experiments::paths::shipped_workload;
use schedlab_experiments::settings::parse_overrides;
use schedlab_experiments::stats::median;

#[derive(Args)]
pub struct BenchDagArgs {
    /// DAG workload (default: the shipped dag-layered.toml).
    #[arg(long)]
    workload: Option<PathBuf>,
    /// Tasks per instance (sets the generator's `tasks`).
    #[arg(long, default_value_t = 1000)]
    tasks: usize,
    /// Instances (episode seeds 0..N); times are medians.
    #[arg(long, default_value_t = 3)]
    instances: u64,
    /// Random plans the decoder scores per round.
    #[arg(long, default_value_t = 2000)]
    evaluations: usize,
    /// Rounds of `evaluations` plans per instance: the best round is the least disturbed by
    /// other work on the machine, the median the typical one.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// Plans decoded per second by the env's executor, one figure per round (at least one) of
/// `evaluations` decodings of 64 random plans of `problem` drawn from `seed`.
fn decoder_rates(
    problem: &Problem,
    seed: u64,
    rounds: usize,
    evaluations: usize,
) -> anyhow::Result<Vec<f64>> {
    let mut decoder = Decoder::new(problem);
    let mut rng = StdRng::seed_from_u64(seed);
    let plans: Vec<Vec<usize>> = (0..64)
        .map(|_| {
            decoder
                .fitting
                .iter()
                .map(|g| *g.choose(&mut rng).expect("fits"))
                .collect()
        })
        .collect();
    let mut rates = Vec::new();
    for _ in 0..rounds.max(1) {
        let start = Instant::now();
        let mut checksum = 0.0;
        for i in 0..evaluations {
            checksum += decoder.makespan_s(&plans[i % plans.len()]);
        }
        let seconds = start.elapsed().as_secs_f64();
        anyhow::ensure!(
            checksum.is_finite(),
            "a plan decoded to a non-finite makespan"
        );
        rates.push(evaluations as f64 / seconds);
    }
    Ok(rates)
}

pub fn run(args: BenchDagArgs) -> anyhow::Result<()> {
    let path = args
        .workload
        .unwrap_or_else(|| shipped_workload("dag-layered.toml"));
    let mut overrides = parse_overrides(&args.overrides)?;
    // the size lives in the section of the workload's source
    let section = DagWorkload::load(&path, &overrides)?.spec.dags.section();
    overrides.push((format!("dags.{section}.tasks"), args.tasks.to_string()));
    let workload = DagWorkload::load(&path, &overrides)?;
    let schedulers = LIST_SCHEDULERS;
    let mut times = vec![Vec::new(); schedulers.len()];
    let mut makespans = vec![Vec::new(); schedulers.len()];
    let mut rates = Vec::new();
    let mut sizes = Vec::new();
    for seed in 0..args.instances {
        let problem = workload.instance(seed);
        sizes.push(problem.len());
        for (k, (_, schedule)) in schedulers.iter().enumerate() {
            let start = Instant::now();
            let s = schedule(&problem);
            times[k].push(start.elapsed().as_secs_f64() * 1e3);
            makespans[k].push(s.makespan_s());
        }
        rates.extend(decoder_rates(
            &problem,
            seed,
            args.rounds,
            args.evaluations,
        )?);
    }
    println!(
        "{}: {} GPUs, instances of {:?} tasks (seeds 0..{}), one thread",
        workload.name(),
        workload.platform.gpus(),
        sizes,
        args.instances
    );
    let mut rows = vec![vec![
        "scheduler".to_owned(),
        "median ms".to_owned(),
        "mean makespan s".to_owned(),
    ]];
    for (k, (name, _)) in schedulers.iter().enumerate() {
        rows.push(vec![
            name.to_string(),
            format!("{:.2}", median(times[k].clone())),
            format!(
                "{:.1}",
                makespans[k].iter().sum::<f64>() / makespans[k].len() as f64
            ),
        ]);
    }
    println!("{}", align(&rows));
    let best = rates.iter().copied().fold(0.0, f64::max);
    println!(
        "decoder (the env's executor; WOA, GA): {:.0} plans/s in the best round, {:.0} the median ({} rounds of {} random plans per instance)",
        best,
        median(rates),
        args.rounds.max(1),
        args.evaluations
    );
    Ok(())
}
