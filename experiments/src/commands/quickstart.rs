//! `schedlab quickstart`: the README's main command. Trains PPO briefly on the shipped
//! small-4node workload, compares it with the baselines and says how to view the curves.

use std::path::PathBuf;

use clap::Args;
use schedlab_trainer::algorithms::AgentKind;
use schedlab_trainer::train::TrainSpec;

use super::compare::compare_table;
use schedlab_experiments::paths::shipped_workload;
use schedlab_experiments::play::{episode_bar, parse_seeds, play_seeds};
use schedlab_experiments::training::train_with_progress;
use schedlab_experiments::workloads::{Kind, SingleJob};

#[derive(Args)]
pub struct QuickstartArgs {
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Env rounds of PPO training.
    #[arg(long, default_value_t = 20_000)]
    steps: u64,
    #[arg(long, default_value = "runs")]
    out: PathBuf,
}

pub fn run(args: QuickstartArgs) -> anyhow::Result<()> {
    let workload = shipped_workload("small-4node.toml");
    let loaded = schedlab_experiments::workloads::load(&workload, &[])?;
    let single_job: &SingleJob = loaded.expect("quickstart", &workload)?;
    println!(
        "1/2 training PPO on {} for {} rounds",
        single_job.name(),
        args.steps
    );
    let spec = TrainSpec {
        workload_path: &workload,
        out: &args.out,
        seed: args.seed,
        steps: args.steps,
        checkpoint_every: (args.steps / 10).max(1),
        eval_every: (args.steps / 10).max(1),
        eval_episodes: 5,
        resume: None,
        stop: None,
        play_settings: &[],
        workload_settings: &[],
    };
    let run = train_with_progress(
        AgentKind::named("ppo"),
        &single_job.env(),
        AgentKind::named("ppo").default_config(schedlab_agents::EnvKind::SingleJob),
        &spec,
    )?;
    println!("   run folder: {}", run.path.display());
    let seeds = parse_seeds("0..4")?;
    let trained = run.path.display().to_string();
    let policies = [
        "static",
        "periodic",
        "greedy",
        "random",
        "raes",
        trained.as_str(),
    ];
    println!(
        "2/2 comparing with the baselines and raes on seeds 0..4 (ppo acts deterministically)"
    );
    let bar = episode_bar((policies.len() * seeds.len()) as u64, "compare".into())?;
    let results = policies
        .iter()
        .map(|p| {
            let name = if *p == trained {
                "ppo".to_owned()
            } else {
                p.to_string()
            };
            Ok((name, play_seeds(single_job, p, &[], &seeds, &bar)?))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    bar.finish_and_clear();
    println!("{}, seeds 0..4, mean ± std, * best", single_job.describe());
    println!("{}", compare_table(single_job.columns(), &results));
    println!(
        "view the training curves: tensorboard --logdir {}",
        run.path.display()
    );
    Ok(())
}
