use serde_json::json;

use super::Settings;
use super::evaluate::{episode_bar, play};
use crate::RunArgs;
use crate::output::{metrics_table, write_atomic};
use schedlab_env::Scenario;

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let settings = Settings::parse(&args.overrides, std::slice::from_ref(&args.agent))?;
    let scenario = Scenario::load_with_overrides(&args.workload, &settings.workload)?;
    let bar = episode_bar(
        args.episodes,
        format!("{} on {}", args.agent, scenario.workload.name),
    )?;
    let total_cores: f64 = scenario.nodes.iter().map(|n| n.cpu_cores).sum();
    let mut rows = Vec::new();
    let mut round_log = String::from(
        "seed,round,time_s,iterations,val_loss,train_loss,lr_factor,reward,background_cpu_peak\n",
    );
    for seed in args.seed..args.seed + args.episodes {
        let metrics = play(&scenario, &args.agent, &settings.policy, seed, |step| {
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
        })?;
        rows.push((vec![seed.to_string()], metrics));
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "{} on {} ({})",
        args.agent,
        scenario.workload.name,
        scenario.path.display()
    );
    println!("{}", metrics_table(&["seed"], &rows));
    if let Some(path) = &args.rounds_csv {
        write_atomic(path, round_log.as_bytes())?;
        println!("wrote {}", path.display());
    }
    if let Some(path) = &args.json {
        let doc = json!({
            "workload": scenario.workload.name,
            "agent": args.agent,
            "seeds": (args.seed..args.seed + args.episodes).collect::<Vec<_>>(),
            "episodes": rows.iter().map(|r| &r.1).collect::<Vec<_>>(),
        });
        write_atomic(path, serde_json::to_string_pretty(&doc)?.as_bytes())?;
        println!("wrote {}", path.display());
    }
    Ok(())
}
