//! `schedlab templates fit`: a model template's speed-up curve fitted from real HB-ASGD runs
//! of a single-job workload, for the jobs cluster's surrogate; `schedlab templates gavel`:
//! one template per job type of a measured throughput matrix
//! (`schedlab_experiments::traces::gavel_templates`).
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
use schedlab_env::jobs::throughputs::Throughputs;
use schedlab_env::jobs::trained;
use schedlab_env::jobs::{Template, speedup};

use schedlab_experiments::output::write_atomic;
use schedlab_experiments::play::{episode_bar, parse_seeds};
use schedlab_experiments::traces::gavel_templates;
use schedlab_experiments::traces::template_fit::{Run, fit, real_run};

#[derive(Subcommand)]
pub enum TemplatesCommand {
    /// Fit a template from real runs of a single-job workload.
    Fit(FitArgs),
    /// One template per job type of a throughput matrix in Gavel's format.
    Gavel(GavelArgs),
}

#[derive(Args)]
pub struct GavelArgs {
    /// The matrix (Gavel's JSON), e.g. data/throughputs/gavel/simulation_throughputs.json.
    #[arg(long)]
    throughputs: PathBuf,
    /// The model whose measured scaling the templates' curves follow.
    #[arg(long, default_value = "v100")]
    reference: String,
    /// Folder to write the templates into, one TOML file each.
    #[arg(short, long)]
    out: PathBuf,
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

pub fn run(command: TemplatesCommand) -> anyhow::Result<()> {
    let args = match command {
        TemplatesCommand::Fit(args) => args,
        TemplatesCommand::Gavel(args) => return gavel(&args),
    };
    anyhow::ensure!(
        args.workers.iter().all(|&n| n >= 1),
        "--workers must be at least 1"
    );
    let most = args.workers.iter().copied().max().unwrap_or(1);
    let scenario = trained::load_template(&args.workload, most)?;
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
    print_fit(&runs, (sigma, kappa, scale));
    let out_dir = schedlab_experiments::traces::templates::output_dir(&args.out)?;
    let template = Template {
        workload: schedlab_experiments::traces::templates::relative_path(&out_dir, &args.workload)?
            .display()
            .to_string(),
        time_at_one_s: scale,
        job_type: None,
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

/// Each run's time beside the fitted curve's, as a table.
fn print_fit(runs: &[Run], (sigma, kappa, scale): (f64, f64, f64)) {
    println!("workers  size  time_s  reached  surrogate_s");
    for r in runs {
        let predicted = scale / speedup(sigma, kappa, r.workers as f64, r.size);
        println!(
            "{:>7}  {:>4.2}  {:>6.1}  {:>7}  {:>11.1}",
            r.workers, r.size, r.time_s, r.reached, predicted
        );
    }
}

/// `templates gavel`: every template into `args.out`, atomically, and a line each.
fn gavel(args: &GavelArgs) -> anyhow::Result<()> {
    let matrix = Throughputs::read(&args.throughputs)?;
    anyhow::ensure!(
        matrix.has_model(&args.reference),
        "--reference {}: not a model of {}",
        args.reference,
        args.throughputs.display()
    );
    let source = format!(
        "schedlab templates gavel --throughputs {} --reference {}",
        args.throughputs.display(),
        args.reference
    );
    std::fs::create_dir_all(&args.out)?;
    for template in gavel_templates::templates(&matrix, &args.reference, &source) {
        let file = args.out.join(format!("{}.toml", template.name));
        write_atomic(&file, toml::to_string(&template)?.as_bytes())?;
        println!(
            "wrote {}: contention {:.2}",
            file.display(),
            template.contention
        );
    }
    Ok(())
}
