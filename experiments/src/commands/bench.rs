//! `schedlab bench env`: how close the environment's gradient throughput comes to a bare loop
//! that computes the same number of minibatch gradients of the same sizes on the same data.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use schedlab_agents::{Policy, PolicyContext, StaticPolicy};
use schedlab_env::{ClusterEnv, Scenario};

use super::parse_overrides;

#[derive(Args)]
pub struct BenchEnvArgs {
    /// Workload (default: the shipped small-4node.toml).
    #[arg(long)]
    workload: Option<PathBuf>,
    /// Episodes to time (seeds 0..episodes).
    #[arg(long, default_value_t = 20)]
    episodes: u64,
    /// Repetitions of each measurement; the fastest counts.
    #[arg(long, default_value_t = 5)]
    repeats: u32,
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// The shipped workloads folder: next to the current directory when run from a clone,
/// otherwise where this binary was built from.
pub fn shipped_workload(name: &str) -> PathBuf {
    let local = PathBuf::from("data/workloads").join(name);
    if local.is_file() {
        local
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../data/workloads")
            .join(name)
    }
}

struct EnvRun {
    seconds: f64,
    rounds: u64,
    gradients: u64,
    samples: u64,
}

fn time_env(scenario: &std::sync::Arc<Scenario>, episodes: u64) -> anyhow::Result<EnvRun> {
    let mut env = ClusterEnv::new(scenario.clone());
    let mut policy = StaticPolicy::new(PolicyContext::of(&env));
    let mut run = EnvRun {
        seconds: 0.0,
        rounds: 0,
        gradients: 0,
        samples: 0,
    };
    let start = Instant::now();
    for seed in 0..episodes {
        let (mut obs, _) = env.reset(seed)?;
        policy.reset(seed);
        loop {
            let step = env.step(&policy.act(&obs))?;
            run.rounds += 1;
            for w in &step.info.workers {
                run.gradients += w.gradients;
                run.samples += w.samples;
            }
            if step.terminated || step.truncated {
                break;
            }
            obs = step.observation;
        }
    }
    run.seconds = start.elapsed().as_secs_f64();
    Ok(run)
}

/// The same count of minibatch gradients and samples, each followed by an SGD step, in a
/// plain single-threaded loop.
fn time_bare(scenario: &Scenario, gradients: u64, samples: u64) -> f64 {
    let model = &*scenario.model;
    let data = &scenario.data.train;
    let job = &scenario.workload.job;
    let mut rng = StdRng::seed_from_u64(0);
    let mut params = model.init_params(&mut rng);
    let mut grad = vec![0.0f32; params.len()];
    let start = Instant::now();
    for k in 0..gradients {
        let batch = (samples / gradients + u64::from(k < samples % gradients)) as usize;
        let rows: Vec<usize> = (0..batch)
            .map(|_| rng.random_range(0..data.len()))
            .collect();
        grad.fill(0.0);
        model.accumulate_grad(&params, data, &rows, &mut grad);
        let inv = 1.0 / batch as f32;
        grad.iter_mut().for_each(|g| *g *= inv);
        model.add_l2(&params, job.l2 as f32, &mut grad);
        let lr = job.lr as f32;
        params.iter_mut().zip(&grad).for_each(|(p, g)| *p -= lr * g);
    }
    std::hint::black_box(&params);
    start.elapsed().as_secs_f64()
}

fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

pub fn run(args: BenchEnvArgs) -> anyhow::Result<()> {
    let path = args
        .workload
        .unwrap_or_else(|| shipped_workload("small-4node.toml"));
    let scenario = Scenario::load_with_overrides(&path, &parse_overrides(&args.overrides)?)?;
    println!(
        "workload {} ({}), {} episodes of the static policy, fastest of {} repetitions",
        scenario.workload.name,
        scenario.model.name(),
        args.episodes,
        args.repeats
    );
    // warm-up: page in data and code
    time_env(&scenario, 1)?;
    // the fastest of several alternating repetitions: timing noise only ever adds time
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let fastest = |a: EnvRun, b: EnvRun| if b.seconds < a.seconds { b } else { a };
    let mut one = single.install(|| time_env(&scenario, args.episodes))?;
    let mut all = time_env(&scenario, args.episodes)?;
    let mut bare = time_bare(&scenario, one.gradients, one.samples);
    for _ in 1..args.repeats {
        one = fastest(one, single.install(|| time_env(&scenario, args.episodes))?);
        all = fastest(all, time_env(&scenario, args.episodes)?);
        bare = bare.min(time_bare(&scenario, one.gradients, one.samples));
    }
    let per_s = |n: u64, s: f64| n as f64 / s;
    println!(
        "env, 1 thread:   {:.0} rounds/s, {:.0} gradients/s, {:.0} gradient samples/s ({} rounds, {} gradients in {:.3}s)",
        per_s(one.rounds, one.seconds),
        per_s(one.gradients, one.seconds),
        per_s(one.samples, one.seconds),
        one.rounds,
        one.gradients,
        one.seconds
    );
    println!(
        "env, {} threads: {:.0} rounds/s, {:.0} gradient samples/s",
        rayon::current_num_threads(),
        per_s(all.rounds, all.seconds),
        per_s(all.samples, all.seconds)
    );
    println!(
        "bare gradient loop, 1 thread: {:.0} gradient samples/s ({:.3}s)",
        per_s(one.samples, bare),
        bare
    );
    if let Some(mib) = peak_memory_mib() {
        println!("peak memory {mib:.1} MiB");
    }
    println!("ratio {:.3}", bare / one.seconds);
    Ok(())
}
