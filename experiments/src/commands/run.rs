use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use schedlab_agents::{PolicyContext, by_name, run_episode_observed};
use schedlab_env::{ClusterEnv, Scenario};
use serde_json::json;

use super::parse_overrides;
use crate::RunArgs;
use crate::output::{metrics_table, write_atomic};

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let scenario =
        Scenario::load_with_overrides(&args.workload, &parse_overrides(&args.overrides)?)?;
    let mut env = ClusterEnv::new(scenario.clone());
    let mut policy = by_name(&args.agent, PolicyContext::of(&env))?;
    let bar = ProgressBar::new(args.episodes).with_style(ProgressStyle::with_template(
        "{msg} [{bar:30}] {pos}/{len} episodes, {elapsed} elapsed, ~{eta} left",
    )?);
    bar.set_message(format!("{} on {}", policy.name(), scenario.workload.name));
    let total_cores: f64 = scenario.nodes.iter().map(|n| n.cpu_cores).sum();
    let mut rows = Vec::new();
    let mut round_log = String::from(
        "seed,round,time_s,iterations,val_loss,train_loss,lr_factor,reward,background_cpu_peak\n",
    );
    for k in 0..args.episodes {
        let seed = args.seed + k;
        let metrics = run_episode_observed(&mut env, policy.as_mut(), seed, |step| {
            let i = &step.info;
            let background: f64 = i.background_peak.iter().map(|p| p[0]).sum();
            round_log += &format!(
                "{seed},{},{},{},{},{},{},{},{}\n",
                i.round,
                i.time_s,
                i.iterations,
                i.val_loss,
                i.train_loss,
                i.lr_factor,
                step.reward,
                background / total_cores
            );
        })
        .with_context(|| format!("episode with seed {seed}"))?;
        rows.push((seed, metrics));
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "{} on {} ({})",
        policy.name(),
        scenario.workload.name,
        scenario.path.display()
    );
    println!("{}", metrics_table(&rows));
    if let Some(path) = &args.rounds_csv {
        write_atomic(path, round_log.as_bytes())?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.json {
        let doc = json!({
            "workload": scenario.workload.name,
            "agent": policy.name(),
            "seeds": rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            "episodes": rows.iter().map(|r| &r.1).collect::<Vec<_>>(),
        });
        write_atomic(path, serde_json::to_string_pretty(&doc)?.as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
