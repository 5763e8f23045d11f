//! `schedlab predictors fit|eval`: demand predictors on real usage series, from env rollouts
//! (what the HB-ASGD workers used each round) or from the Alibaba v2018 trace (planned task
//! requests summed per machine). `fit` trains every predictor on the head of each series;
//! `eval` scores them side by side on the held-out tails.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use rayon::prelude::*;
use schedlab_agents::SingleJobContext;
use schedlab_env::cluster::{hash_task, load_v2018_tasks};
use schedlab_predictors::{NAMES, Series, heads, load, score, untrained};

use schedlab_experiments::output::align;
use schedlab_experiments::play::{episode_bar, play_observed};
use schedlab_experiments::workloads::{Kind, SingleJob};

#[derive(Subcommand)]
pub enum PredictorsCommand {
    /// Fit every predictor (last, ewma, ar, lstm) on the series' heads and save them in DIR.
    Fit(FitArgs),
    /// Score the predictors saved in DIR on the series' held-out tails.
    Eval(EvalArgs),
}

#[derive(Args)]
pub struct SourceArgs {
    /// `env:WORKLOAD.toml` (per-node usage of rollouts) or `trace:TRACE.csv[.gz]` (Alibaba
    /// v2018 batch tasks summed per machine).
    #[arg(long)]
    source: String,
    /// Share of each series held out for evaluation.
    #[arg(long, default_value_t = 0.2)]
    tail: f64,
    /// env: episodes to roll out (seeds 0..N).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    episodes: u64,
    /// env: the policy whose allocations the workers run under.
    #[arg(long, default_value = "random")]
    policy: String,
    /// trace: machines the tasks are spread over (by a hash of their names).
    #[arg(long, default_value_t = 16)]
    machines: usize,
    /// trace: seconds of trace time per step.
    #[arg(long, default_value_t = 300.0)]
    period: f64,
    /// env: override a workload key, e.g. `--set episode.max_rounds=60` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

#[derive(Args)]
pub struct FitArgs {
    #[command(flatten)]
    source: SourceArgs,
    #[arg(long)]
    out: PathBuf,
}

#[derive(Args)]
pub struct EvalArgs {
    dir: PathBuf,
    #[command(flatten)]
    source: SourceArgs,
}

/// Per node and episode: the used CPU, memory and GPU shares of each round (episodes in
/// parallel, series in seed order).
fn env_series(workload: &str, args: &SourceArgs) -> anyhow::Result<Vec<Series>> {
    let path = std::path::Path::new(workload);
    let loaded = schedlab_experiments::workloads::load(
        path,
        &schedlab_experiments::settings::parse_overrides(&args.overrides)?,
    )?;
    let single_job: &SingleJob = loaded.expect("predictors --source env:", path)?;
    let ctx = SingleJobContext::of(&single_job.env());
    let bar = episode_bar(args.episodes, format!("{} rollouts", args.policy))?;
    let episodes = (0..args.episodes)
        .into_par_iter()
        .map(|seed| {
            let mut rows: Vec<Vec<f32>> = vec![Vec::new(); ctx.nodes()];
            play_observed(single_job, &args.policy, &[], seed, |_, step| {
                for (n, row) in rows.iter_mut().enumerate() {
                    row.extend_from_slice(&ctx.last_round_shares(&step.observation, n)[..3]);
                }
            })?;
            bar.inc(1);
            Ok(rows
                .into_iter()
                .enumerate()
                .map(|(n, values)| Series::new(format!("episode {seed} node {n}"), 3, values))
                .collect::<Vec<_>>())
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    bar.finish_and_clear();
    Ok(episodes.concat())
}

/// Per machine: planned cores and memory (percent of a machine) of the tasks running at
/// each step of the trace's span.
fn trace_series(path: &str, args: &SourceArgs) -> anyhow::Result<Vec<Series>> {
    anyhow::ensure!(
        args.machines > 0 && args.period > 0.0,
        "need --machines > 0 and --period > 0"
    );
    let (tasks, stats) = load_v2018_tasks(std::path::Path::new(path))?;
    eprintln!("{path}: {stats}");
    let start = tasks.iter().map(|t| t.start).fold(f64::INFINITY, f64::min);
    let end = tasks.iter().map(|t| t.end).fold(0.0, f64::max);
    anyhow::ensure!(end > start, "{path}: no task has a positive duration");
    let steps = ((end - start) / args.period).ceil() as usize;
    let mut load = vec![vec![[0.0f32; 2]; steps]; args.machines];
    for task in &tasks {
        let machine = (hash_task(&task.job, &task.name, 0) % args.machines as u64) as usize;
        let first = ((task.start - start) / args.period).floor() as usize;
        let last = (((task.end - start) / args.period).ceil() as usize).min(steps);
        for step in &mut load[machine][first..last.max(first)] {
            step[0] += (task.plan_cpu / 100.0) as f32;
            step[1] += task.plan_mem as f32;
        }
    }
    Ok(load
        .into_iter()
        .enumerate()
        .map(|(m, steps)| Series::new(format!("machine {m}"), 2, steps.concat()))
        .collect())
}

fn series_of(args: &SourceArgs) -> anyhow::Result<Vec<Series>> {
    anyhow::ensure!((0.0..1.0).contains(&args.tail), "--tail must be in [0, 1)");
    match args.source.split_once(':') {
        Some(("env", path)) => env_series(path, args),
        Some(("trace", path)) => trace_series(path, args),
        _ => anyhow::bail!(
            "--source `{}`: expected env:WORKLOAD.toml or trace:TRACE.csv[.gz]",
            args.source
        ),
    }
}

pub fn run(command: PredictorsCommand) -> anyhow::Result<()> {
    match command {
        PredictorsCommand::Fit(args) => {
            let series = series_of(&args.source)?;
            let training = heads(&series, args.source.tail);
            for name in NAMES {
                let mut predictor = untrained(name)?;
                predictor.fit(&training)?;
                predictor.save(&args.out)?;
                println!("fitted {name} on {} series", training.len());
            }
            println!("saved in {}", args.out.display());
        }
        PredictorsCommand::Eval(args) => {
            let series = series_of(&args.source)?;
            let mut rows = vec![
                ["predictor", "MAE", "RMSE", "within ±10%", "points"]
                    .map(String::from)
                    .to_vec(),
            ];
            for name in NAMES {
                let predictor = load(&args.dir, name)?;
                let s = score(predictor.as_ref(), &series, args.source.tail);
                rows.push(vec![
                    name.to_owned(),
                    format!("{:.4}", s.mae),
                    format!("{:.4}", s.rmse),
                    format!("{:.1}%", 100.0 * s.within_10pct),
                    s.points.to_string(),
                ]);
            }
            println!(
                "{}: held-out last {:.0}% of {} series",
                args.source.source,
                100.0 * args.source.tail,
                series.len()
            );
            println!("{}", align(&rows));
        }
    }
    Ok(())
}
