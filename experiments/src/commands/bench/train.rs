//! `schedlab bench train`: how fast the learned agents train on a workload, as env steps and
//! gradient steps per wall-clock second, for each agent, after one warm-up update.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use schedlab_agents::SchedulingEnv;
use schedlab_trainer::algorithms::AgentKind;

use super::peak_memory_mib;
use schedlab_experiments::paths::shipped_workload;
use schedlab_experiments::settings::parse_overrides;
use schedlab_experiments::workloads::{Kind, with_kind};

#[derive(Args)]
pub struct BenchTrainArgs {
    /// Workload of any kind (default: the shipped Philly training family).
    #[arg(long)]
    workload: Option<PathBuf>,
    /// Learned agents to time, comma-separated.
    #[arg(long, default_value = "ppo,dqn")]
    agents: String,
    /// Wall-clock seconds of training timed per agent (after the warm-up update).
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    /// A hyperparameter for every agent that has it, e.g. `--set envs=8` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    hyperparameters: Vec<String>,
}

pub fn run(args: BenchTrainArgs) -> anyhow::Result<()> {
    let path = args
        .workload
        .unwrap_or_else(|| shipped_workload("philly-train.toml"));
    let loaded = schedlab_experiments::workloads::load(&path, &[])?;
    let overrides = parse_overrides(&args.hyperparameters)?;
    println!(
        "{} ({}), {} threads, device {:?}; {:.0} s per agent after one warm-up update",
        loaded.name(),
        path.display(),
        rayon::current_num_threads(),
        schedlab_experiments::device::agents(),
        args.seconds
    );
    for name in args.agents.split(',').map(str::trim) {
        let kind = AgentKind::from_name(name).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown learned agent `{name}`; available: {}",
                AgentKind::NAMES.join(", ")
            )
        })?;
        let known = kind.default_config(loaded.env_kind());
        let pairs: Vec<(String, String)> = overrides
            .iter()
            .filter(|(key, _)| known.get(key).is_some())
            .cloned()
            .collect();
        let config = kind.configure(loaded.env_kind(), &pairs)?;
        let line = with_kind!(&loaded, |w| time_agent(
            kind,
            &w.env(),
            &config,
            args.seconds
        ))?;
        println!("{name}: {line}");
    }
    if let Some(mib) = peak_memory_mib() {
        println!("peak memory {mib:.1} MiB");
    }
    Ok(())
}

fn time_agent<E: SchedulingEnv>(
    kind: AgentKind,
    prototype: &E,
    config: &serde_json::Value,
    seconds: f64,
) -> anyhow::Result<String> {
    let mut learner = kind.learner(prototype, config, 0, schedlab_experiments::device::agents())?;
    let warm = learner.update()?;
    let (steps_at_start, start) = (warm.env_steps, Instant::now());
    let (mut gradient_steps, mut updates, mut episodes) = (0u64, 0u64, 0usize);
    while start.elapsed().as_secs_f64() < seconds {
        let stats = learner.update()?;
        gradient_steps += stats.gradient_steps;
        updates += 1;
        episodes += stats.finished.len();
    }
    let elapsed = start.elapsed().as_secs_f64();
    let env_steps = learner.env_steps() - steps_at_start;
    Ok(format!(
        "{:.0} env steps/s, {:.1} gradient steps/s ({env_steps} env steps, {gradient_steps} gradient steps in {updates} updates, {episodes} episodes ended, {elapsed:.1} s)",
        env_steps as f64 / elapsed,
        gradient_steps as f64 / elapsed,
    ))
}
