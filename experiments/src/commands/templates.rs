//! `schedlab templates fit`: a model template's speed-up curve fitted from real HB-ASGD runs
//! of a single-job workload, for the jobs cluster's surrogate.
//!
//! The workload's nodes are replaced by copies of its first node (the jobs cluster places a
//! job's containers on like machines). For n workers and the primary resource (GPU on nodes
//! with GPUs, else CPU) one ladder level below, at and above the middle (the rest stays at
//! the middle), it runs the real training loop to the target loss and fits
//! `T(n, s) = C / S(n * s^k)`, `S(x) = x / (1 + sigma (x - 1))`, by least squares on `ln T`
//! over a grid of `sigma` (the contention) and `k`; `s` is the primary size over the middle
//! one.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use rayon::prelude::*;
use schedlab_env::jobs::real;
use schedlab_env::jobs::{MAX_CONTENTION, Template, speedup};
use schedlab_env::{Scenario, SingleJobEnv};

use schedlab_experiments::output::write_atomic;
use schedlab_experiments::play::{episode_bar, parse_seeds};

#[derive(Subcommand)]
pub enum TemplatesCommand {
    /// Fit a template from real runs of a single-job workload.
    Fit(FitArgs),
}

#[derive(Args)]
pub struct FitArgs {
    /// Single-job workload (TOML) whose job the template stands for.
    #[arg(long)]
    workload: PathBuf,
    /// Template name.
    #[arg(long)]
    name: String,
    /// Worker counts to run (at most the workload's nodes).
    #[arg(long, value_delimiter = ',', default_value = "1,2,4")]
    workers: Vec<usize>,
    #[arg(long, default_value = "0..1")]
    seeds: String,
    /// Where to write the template (TOML).
    #[arg(short, long)]
    out: PathBuf,
}

/// One real run's configuration and outcome.
#[derive(Debug, Clone)]
pub struct Run {
    pub workers: usize,
    pub size: f64,
    pub time_s: f64,
    pub reached: bool,
    /// `[cpu, mem, gpu]` used / allocated resource-seconds (1 for a resource never allocated).
    pub utilisation: [f64; 3],
}

pub fn run(command: TemplatesCommand) -> anyhow::Result<()> {
    let TemplatesCommand::Fit(args) = command;
    anyhow::ensure!(
        args.workers.iter().all(|&n| n >= 1),
        "--workers must be at least 1"
    );
    let most = args.workers.iter().copied().max().unwrap_or(1);
    let scenario = real::load_template(&args.workload, most)?;
    let seeds = parse_seeds(&args.seeds)?;
    let configs: Vec<(usize, i32, u64)> = args
        .workers
        .iter()
        .flat_map(|&n| [-1, 0, 1].map(move |o| (n, o)))
        .flat_map(|(n, o)| seeds.iter().map(move |&s| (n, o, s)))
        .collect();
    let bar = episode_bar(
        configs.len() as u64,
        format!("real runs of {}", scenario.workload.name),
    )?;
    let runs = configs
        .par_iter()
        .map(|&(n, o, seed)| {
            let run = real_run(&scenario, n, o, seed);
            bar.inc(1);
            run
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    bar.finish_and_clear();
    let reached: Vec<&Run> = runs.iter().filter(|r| r.reached).collect();
    anyhow::ensure!(
        reached.len() >= 3,
        "only {} of {} runs reached the target loss; raise episode.max_rounds",
        reached.len(),
        runs.len()
    );
    let (sigma, kappa, scale, rmse) = fit(&reached);
    let middle: Vec<&Run> = reached.iter().copied().filter(|r| r.size == 1.0).collect();
    let utilisation: [f64; 3] = std::array::from_fn(|r| {
        let mean =
            middle.iter().map(|m| m.utilisation[r]).sum::<f64>() / middle.len().max(1) as f64;
        mean.clamp(0.01, 1.0)
    });
    println!("workers  size  time_s  reached  surrogate_s");
    for r in &runs {
        let predicted = scale / speedup(sigma, kappa, r.workers as f64, r.size);
        println!(
            "{:>7}  {:>4.2}  {:>6.1}  {:>7}  {:>11.1}",
            r.workers, r.size, r.time_s, r.reached, predicted
        );
    }
    let out_dir = schedlab_experiments::traces::templates::output_dir(&args.out)?;
    let template = Template {
        workload: schedlab_experiments::traces::templates::relative_path(&out_dir, &args.workload)?
            .display()
            .to_string(),
        time_at_one_s: scale,
        name: args.name.clone(),
        contention: sigma,
        size_exponent: kappa,
        utilisation,
        fitted_from: format!(
            "schedlab templates fit --workload {} --workers {} --seeds {}: {} of {} real runs reached the target; ln-time RMSE {rmse:.3}; utilisation of the middle-size runs",
            args.workload.display(),
            args.workers
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(","),
            args.seeds,
            reached.len(),
            runs.len()
        ),
    };
    write_atomic(&args.out, toml::to_string(&template)?.as_bytes())?;
    println!(
        "wrote {}: contention {sigma:.3}, size_exponent {kappa:.3}, utilisation {utilisation:.3?}, ln-time RMSE {rmse:.3}",
        args.out.display()
    );
    Ok(())
}

/// Least squares on `ln T` over a grid; returns `(sigma, kappa, C, rmse)`.
pub fn fit(runs: &[&Run]) -> (f64, f64, f64, f64) {
    let mut best = (0.0, 0.0, 1.0, f64::INFINITY);
    for si in 0..=(MAX_CONTENTION * 100.0) as usize {
        for ki in 0..=150 {
            let (sigma, kappa) = (si as f64 / 100.0, ki as f64 / 100.0);
            // ln T = ln C - ln S: ln C is the mean residual
            let residual: Vec<f64> = runs
                .iter()
                .map(|r| r.time_s.ln() + speedup(sigma, kappa, r.workers as f64, r.size).ln())
                .collect();
            let ln_c = residual.iter().sum::<f64>() / residual.len() as f64;
            let rmse = (residual.iter().map(|v| (v - ln_c).powi(2)).sum::<f64>()
                / residual.len() as f64)
                .sqrt();
            if rmse < best.3 - 1e-12 {
                best = (sigma, kappa, ln_c.exp(), rmse);
            }
        }
    }
    best
}

/// One real episode: `workers` containers on like nodes, the primary resource `offset`
/// ladder levels from the middle.
pub fn real_run(
    scenario: &std::sync::Arc<Scenario>,
    workers: usize,
    offset: i32,
    seed: u64,
) -> anyhow::Result<Run> {
    let mut env = SingleJobEnv::new(scenario.clone());
    let (levels, size) = real::template_levels(scenario, offset);
    let (mut observation, _) = env.reset(seed)?;
    let round_s = scenario.workload.episode.round_interval_s;
    let (mut used, mut allocated) = ([0.0; 3], [0.0; 3]);
    loop {
        let step = env.step(&real::action_for(&env, &observation, workers, levels))?;
        for (w, a) in step.info.workers.iter().zip(&step.info.allocation) {
            used[0] += w.cpu_used_s;
            used[1] += w.mem_used_gb_s;
            used[2] += w.gpu_used_s;
            (0..3).for_each(|r| allocated[r] += a[r] * round_s);
        }
        if let Some(m) = step.info.metrics {
            let utilisation = std::array::from_fn(|r| {
                if allocated[r] > 0.0 {
                    used[r] / allocated[r]
                } else {
                    1.0
                }
            });
            return Ok(Run {
                workers,
                size,
                time_s: m.completion_time_s,
                reached: m.target_reached,
                utilisation,
            });
        }
        observation = step.observation;
    }
}
