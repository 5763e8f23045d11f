//! `schedlab run`: episodes of one policy on one workload, printed as a table.

use std::path::PathBuf;

use serde_json::json;

use clap::Args;
use schedlab_experiments::output::{metrics_table, write_atomic};
use schedlab_experiments::play::{episode_bar, play_observed};
use schedlab_experiments::settings::Settings;
use schedlab_experiments::workloads::{Kind, with_kind};

#[derive(Args)]
pub struct RunArgs {
    /// Workload file (TOML), of any kind.
    #[arg(long)]
    workload: PathBuf,
    /// Scheduler (`schedlab policies` lists them; options inline as `raes:solver=heuristic`
    /// or by `--set`), or a training run folder.
    #[arg(long, alias = "agent", default_value = "static")]
    policy: String,
    /// Seed of the first episode; episode k uses seed + k.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    episodes: u64,
    /// Write `{"episodes": [metrics, ...]}` to this file (atomically).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write one CSV row per step to this file (atomically): on a single-job workload time,
    /// loss, iterations, reward, the cluster's peak background CPU share per round; on a jobs
    /// workload time, job counts, rejected choices and reward per decision step.
    #[arg(long)]
    rounds_csv: Option<PathBuf>,
    /// Write `{"seeds": [...], "actions": [[action, ...], ...]}` (every step's action of every
    /// episode) to this file (atomically), to replay the episodes elsewhere (the Python env).
    #[arg(long)]
    actions_json: Option<PathBuf>,
    /// `KEY=VALUE`, repeatable: dotted keys override the workload (`job.optimizer=sync_sgd`),
    /// plain keys are policy options (`solver=heuristic` for raes).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let policies = std::slice::from_ref(&args.policy);
    let (settings, loaded) = Settings::load(&args.overrides, &args.workload, policies)?;
    settings.announce();
    with_kind!(&loaded, |workload| run_kind(workload, &args, &settings))
}

fn run_kind<K: Kind>(workload: &K, args: &RunArgs, settings: &Settings) -> anyhow::Result<()> {
    let bar = episode_bar(
        args.episodes,
        format!("{} on {}", args.policy, workload.name()),
    )?;
    let mut rows = Vec::new();
    let mut step_log = format!("seed,{}\n", workload.step_columns());
    let mut actions: Vec<Vec<Vec<usize>>> = Vec::new();
    for seed in args.seed..args.seed + args.episodes {
        let mut episode_actions = Vec::new();
        let (metrics, _) = play_observed(
            workload,
            &args.policy,
            &settings.policy,
            seed,
            |action, step| {
                step_log += &format!("{seed},{}\n", workload.step_row(step));
                if args.actions_json.is_some() {
                    episode_actions.push(action.to_vec());
                }
            },
        )?;
        actions.push(episode_actions);
        rows.push((vec![seed.to_string()], metrics));
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!("{} on {}", args.policy, workload.describe());
    println!("{}", metrics_table(workload.columns(), &["seed"], &rows));
    let episodes: Vec<_> = rows.iter().map(|(_, m)| m.clone()).collect();
    if let Some(table) = workload.breakdown(&episodes) {
        println!("per tenant, over the episodes:\n{table}");
    }
    if let Some(path) = &args.rounds_csv {
        write_atomic(path, step_log.as_bytes())?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.json {
        // `agent` is the key earlier versions wrote; scripts read it
        let doc = json!({
            "workload": workload.name(),
            "agent": args.policy,
            "seeds": (args.seed..args.seed + args.episodes).collect::<Vec<_>>(),
            "episodes": rows.iter().map(|r| &r.1).collect::<Vec<_>>(),
        });
        write_atomic(path, serde_json::to_string_pretty(&doc)?.as_bytes())?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.actions_json {
        let doc = json!({
            "seeds": (args.seed..args.seed + args.episodes).collect::<Vec<_>>(),
            "actions": actions,
        });
        write_atomic(path, serde_json::to_string(&doc)?.as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
