//! `schedlab bench train`: how fast the learned agents train on a workload, as env steps and
//! gradient steps per wall-clock second, for each agent, after one warm-up update.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use schedlab_agents::SchedulingEnv;
use schedlab_trainer::algorithms::AgentKind;

use super::peak_memory_mib;
use schedlab_experiments::paths::shipped_workload;
use schedlab_experiments::settings::{Settings, parse_overrides};
use schedlab_experiments::workloads::{Kind, with_kind};

#[derive(Args)]
pub struct BenchTrainArgs {
    /// Workload of any kind (default: the shipped Philly training family).
    #[arg(long)]
    workload: Option<PathBuf>,
    /// Learned agents to time, comma-separated.
    #[arg(long, default_value = "ppo,dqn")]
    agents: String,
    /// Env copies to time each agent with, comma-separated (default: each agent's `envs`).
    #[arg(long, value_delimiter = ',')]
    envs: Vec<usize>,
    /// Wall-clock seconds of training timed per agent (after the warm-up update).
    #[arg(long, default_value_t = 20.0)]
    seconds: f64,
    /// A hyperparameter for every agent that has it (`--set hidden=128`), or with a dot a
    /// workload setting (`--set window.interface=one-choice`); repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    hyperparameters: Vec<String>,
}

/// Times every agent at every env count and thread count (`--threads 1,2,4`; none: the pool
/// the command runs on) and prints one row each, with its speed-up over the first count.
pub fn run(args: BenchTrainArgs, thread_counts: &[usize]) -> anyhow::Result<()> {
    let path = args
        .workload
        .unwrap_or_else(|| shipped_workload("philly-train.toml"));
    let settings = Settings::split(parse_overrides(&args.hyperparameters)?);
    let loaded = schedlab_experiments::workloads::load(&path, &settings.workload)?;
    let overrides = settings.policy;
    let thread_counts = if thread_counts.is_empty() {
        vec![rayon::current_num_threads()]
    } else {
        thread_counts.to_vec()
    };
    println!(
        "{} ({}), device {}, {} cores; {:.0} s per row after one warm-up update",
        loaded.name(),
        path.display(),
        schedlab_experiments::device::name(),
        std::thread::available_parallelism().map_or(1, usize::from),
        args.seconds
    );
    println!(
        "agent  envs  threads  env steps/s  gradient steps/s  speed-up  (steps, updates, episodes ended, seconds)"
    );
    for name in args.agents.split(',').map(str::trim) {
        let kind = AgentKind::from_name(name).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown learned agent `{name}`; available: {}",
                AgentKind::names().collect::<Vec<_>>().join(", ")
            )
        })?;
        let known = kind.default_config(loaded.env_kind());
        let mut pairs: Vec<(String, String)> = overrides
            .iter()
            .filter(|(key, _)| known.get(key).is_some())
            .cloned()
            .collect();
        let env_counts: Vec<Option<usize>> = if args.envs.is_empty() {
            vec![None]
        } else {
            args.envs.iter().copied().map(Some).collect()
        };
        for envs in env_counts {
            if let Some(envs) = envs {
                pairs.retain(|(key, _)| key != "envs");
                pairs.push(("envs".into(), envs.to_string()));
            }
            let config = kind.configure(loaded.env_kind(), &pairs)?;
            let shown_envs = config.get("envs").map_or("-".into(), ToString::to_string);
            let mut first_rate = None;
            for &threads in &thread_counts {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()?;
                let timed = pool.install(|| {
                    with_kind!(&loaded, |w| time_agent(
                        kind,
                        &w.env(),
                        &config,
                        args.seconds
                    ))
                })?;
                let speed_up =
                    timed.env_steps_per_s / *first_rate.get_or_insert(timed.env_steps_per_s);
                println!(
                    "{name:<6} {shown_envs:>5} {threads:>8} {:>12.0} {:>17.1} {speed_up:>8.2}x  ({})",
                    timed.env_steps_per_s, timed.gradient_steps_per_s, timed.detail
                );
            }
        }
    }
    if let Some(mib) = peak_memory_mib() {
        println!("peak memory {mib:.1} MiB");
    }
    Ok(())
}

/// What timing one agent gave.
struct Timed {
    env_steps_per_s: f64,
    gradient_steps_per_s: f64,
    detail: String,
}

fn time_agent<E: SchedulingEnv>(
    kind: AgentKind,
    prototype: &E,
    config: &serde_json::Value,
    seconds: f64,
) -> anyhow::Result<Timed> {
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
    Ok(Timed {
        env_steps_per_s: env_steps as f64 / elapsed,
        gradient_steps_per_s: gradient_steps as f64 / elapsed,
        detail: format!("{env_steps}, {updates}, {episodes}, {elapsed:.1}"),
    })
}
