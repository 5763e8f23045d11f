//! `schedlab bench env`: how close the environment's gradient throughput comes to a bare loop
//! that computes the same number of minibatch gradients of the same sizes on the same data.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use schedlab_agents::{Policy, SingleJobContext, StaticPolicy};
use schedlab_env::{Scenario, SingleJobEnv};

use super::peak_memory_mib;
use schedlab_experiments::paths::shipped_workload;
use schedlab_experiments::settings::parse_overrides;

#[derive(Args)]
pub struct BenchEnvArgs {
    /// Workload (default: the shipped small-4node.toml).
    #[arg(long)]
    workload: Option<PathBuf>,
    /// Episodes to time (seeds 0..episodes).
    #[arg(long, default_value_t = 100)]
    episodes: u64,
    /// Repetitions of each measurement; the fastest counts.
    #[arg(long, default_value_t = 5)]
    repeats: u32,
    #[arg(long = "set", value_name = "KEY=VALUE")]
    overrides: Vec<String>,
}

/// One timed episode and the work it did.
struct EnvRun {
    seconds: f64,
    rounds: u64,
    samples: u64,
    /// Full validation passes the episode made.
    validations: u64,
    /// Every gradient's batch size, as far as the per-round worker reports tell: a worker's
    /// samples in a round spread evenly over its gradients of that round.
    batches: Vec<usize>,
}

fn time_episode(
    env: &mut SingleJobEnv,
    policy: &mut StaticPolicy,
    seed: u64,
) -> anyhow::Result<EnvRun> {
    let mut run = EnvRun {
        seconds: 0.0,
        rounds: 0,
        samples: 0,
        validations: 0,
        batches: Vec::new(),
    };
    let mut reports = Vec::new();
    let start = Instant::now();
    let (mut obs, _) = env.reset(seed)?;
    policy.reset(seed);
    loop {
        let step = env.step(&policy.act(&obs))?;
        run.rounds += 1;
        reports.extend(step.info.workers.iter().map(|w| (w.gradients, w.samples)));
        if step.terminated || step.truncated {
            break;
        }
        obs = step.observation;
    }
    run.seconds = start.elapsed().as_secs_f64();
    run.validations = env.validations();
    for (gradients, samples) in reports {
        run.samples += samples;
        run.batches.extend(
            (0..gradients)
                .map(|k| (samples / gradients + u64::from(k < samples % gradients)) as usize),
        );
    }
    Ok(run)
}

/// The same minibatch gradients (count and sizes) on the same data, each followed by an SGD
/// step, in a plain single-threaded loop.
fn time_bare(scenario: &Scenario, batches: &[usize]) -> f64 {
    let model = &*scenario.model;
    let data = &scenario.data.train;
    let job = &scenario.workload.job;
    let mut rng = StdRng::seed_from_u64(0);
    let mut params = model.init_params(&mut rng);
    let mut grad = vec![0.0f32; params.len()];
    let start = Instant::now();
    for &batch in batches {
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

/// Seconds one full validation pass takes at the initial parameters (fastest of `repeats`).
fn time_validation(scenario: &Scenario, repeats: u32) -> f64 {
    let params = scenario.model.init_params(&mut StdRng::seed_from_u64(0));
    (0..repeats.max(1))
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(scenario.model.mean_loss(&params, &scenario.data.validation));
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

pub fn run(args: BenchEnvArgs) -> anyhow::Result<()> {
    let path = args
        .workload
        .unwrap_or_else(|| shipped_workload("small-4node.toml"));
    let loaded = schedlab_experiments::workloads::load(&path, &parse_overrides(&args.overrides)?)?;
    let scenario = loaded
        .expect::<schedlab_experiments::workloads::SingleJob>("bench env", &path)?
        .scenario
        .clone();
    println!(
        "workload {} ({}), {} episodes of the static policy, fastest of {} repetitions",
        scenario.workload.name,
        scenario.model.name(),
        args.episodes,
        args.repeats
    );
    let mut env = SingleJobEnv::new(scenario.clone());
    let mut policy = StaticPolicy::new(SingleJobContext::of(&env));
    // warm-up: page in data and code
    time_episode(&mut env, &mut policy, 0)?;
    // Each episode is timed in the env and then as a bare loop right after it, so both see the
    // same machine; of the repetitions the fastest counts (timing noise only ever adds time).
    let single = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let (mut env_s, mut bare_s) = (
        vec![f64::INFINITY; args.episodes as usize],
        vec![f64::INFINITY; args.episodes as usize],
    );
    let (mut rounds, mut samples, mut gradients, mut validations) = (0, 0, 0, 0);
    for repeat in 0..args.repeats {
        for seed in 0..args.episodes {
            let run = single.install(|| time_episode(&mut env, &mut policy, seed))?;
            let k = seed as usize;
            env_s[k] = env_s[k].min(run.seconds);
            // on the same one thread: beside it, the loop's matrix products split over the
            // whole pool (burn-flex's rayon feature) and the ratio read 0.64 for 0.82
            let bare = single.install(|| time_bare(&scenario, &run.batches));
            bare_s[k] = bare_s[k].min(bare);
            if repeat == 0 {
                (rounds, samples, gradients, validations) = (
                    rounds + run.rounds,
                    samples + run.samples,
                    gradients + run.batches.len() as u64,
                    validations + run.validations,
                );
            }
        }
    }
    let (one, bare): (f64, f64) = (env_s.iter().sum(), bare_s.iter().sum());
    let start = Instant::now();
    for seed in 0..args.episodes {
        time_episode(&mut env, &mut policy, seed)?;
    }
    let all = start.elapsed().as_secs_f64();
    let per_s = |n: u64, s: f64| n as f64 / s;
    println!(
        "env, 1 thread:   {:.0} rounds/s, {:.0} gradients/s, {:.0} gradient samples/s ({rounds} rounds, {gradients} gradients in {one:.3}s)",
        per_s(rounds, one),
        per_s(gradients, one),
        per_s(samples, one),
    );
    println!(
        "env, {} threads: {:.0} rounds/s, {:.0} gradient samples/s",
        rayon::current_num_threads(),
        per_s(rounds, all),
        per_s(samples, all)
    );
    println!(
        "bare gradient loop, 1 thread: {:.0} gradient samples/s ({bare:.3}s)",
        per_s(samples, bare)
    );
    if let Some(mib) = peak_memory_mib() {
        println!("peak memory {mib:.1} MiB");
    }
    println!("ratio {:.3}", bare / one);
    print_validation_share(&single, &scenario, args.repeats, validations, (one, bare));
    Ok(())
}

/// What the event loop alone would reach: the validation passes timed apart, on the same one
/// thread, and their share of the env's one-thread time `one` (against the bare loop's `bare`).
fn print_validation_share(
    single: &rayon::ThreadPool,
    scenario: &Scenario,
    repeats: u32,
    validations: u64,
    (one, bare): (f64, f64),
) {
    let pass = single.install(|| time_validation(scenario, repeats));
    // timed apart, the passes can come out longer than the episodes that made them
    let validating = (validations as f64 * pass).min(one);
    let without = if validating < one {
        format!("{:.3}", bare / (one - validating))
    } else {
        "n/a".to_owned()
    };
    println!(
        "validation: {validations} passes over {} rows, {:.3} ms each, about {:.0}% of the env's one-thread time; ratio without them about {without}",
        scenario.data.validation.len(),
        pass * 1e3,
        100.0 * validating / one,
    );
}
