//! `schedlab eval`: a policy on saved workloads over seeds, one row per episode.

use std::path::PathBuf;

use clap::Args;
use schedlab_env::Scenario;

use super::Settings;
use super::evaluate::{episode_bar, parse_seeds, play_seeds};
use crate::output::{METRICS, metrics_table, write_atomic};

#[derive(Args)]
pub struct EvalArgs {
    /// Policy name (static, periodic, greedy, random, raes[:KEY=VALUE...]) or a training run
    /// folder.
    #[arg(long)]
    policy: String,
    /// Workload files (repeat the flag or list several).
    #[arg(long, num_args = 1.., required = true)]
    workload: Vec<PathBuf>,
    /// Seeds: `0..4` (inclusive), `7` or `1,5,9`.
    #[arg(long, default_value = "0..4")]
    seeds: String,
    /// Write the rows as JSON (atomically).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the rows as CSV (atomically).
    #[arg(long)]
    csv: Option<PathBuf>,
    /// `KEY=VALUE`, repeatable: dotted keys override the workload (`job.optimizer=sync_sgd`),
    /// plain keys are policy options (`solver=heuristic` for raes).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    let seeds = parse_seeds(&args.seeds)?;
    let settings = Settings::parse(&args.overrides, std::slice::from_ref(&args.policy))?;
    let scenarios = args
        .workload
        .iter()
        .map(|p| Scenario::load_with_overrides(p, &settings.workload))
        .collect::<Result<Vec<_>, _>>()?;
    let bar = episode_bar(
        (seeds.len() * scenarios.len()) as u64,
        format!("{} ", args.policy),
    )?;
    let mut rows = Vec::new();
    for scenario in &scenarios {
        let metrics = play_seeds(scenario, &args.policy, &settings.policy, &seeds, &bar)?;
        for (seed, m) in seeds.iter().zip(metrics) {
            rows.push((
                vec![
                    args.policy.clone(),
                    scenario.workload.name.clone(),
                    seed.to_string(),
                ],
                m,
            ));
        }
    }
    bar.finish_and_clear();
    println!("{}", metrics_table(&["policy", "workload", "seed"], &rows));
    if let Some(path) = &args.json {
        let doc: Vec<serde_json::Value> = rows
            .iter()
            .map(|(labels, m)| {
                serde_json::json!({"policy": labels[0], "workload": labels[1], "seed": labels[2].parse::<u64>().unwrap_or_default(), "metrics": m})
            })
            .collect();
        write_atomic(
            path,
            serde_json::to_string_pretty(&serde_json::json!({ "rows": doc }))?.as_bytes(),
        )?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.csv {
        let mut csv = String::from("policy,workload,seed");
        METRICS.iter().for_each(|m| csv += &format!(",{}", m.name));
        csv.push('\n');
        for (labels, m) in &rows {
            csv += &labels.join(",");
            METRICS
                .iter()
                .for_each(|c| csv += &format!(",{}", (c.value)(m)));
            csv.push('\n');
        }
        write_atomic(path, csv.as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
