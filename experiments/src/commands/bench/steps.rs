//! `schedlab bench steps`: raw env steps per second through the gym contract, one env and a
//! vectorised batch, with the first allowed level of every action dimension. It is the native
//! figure to set beside the Python binding's (`examples/steps_per_second.py` takes the same
//! actions), so the difference is what crossing into Python costs.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use schedlab_env::{ActionSpace, Environment, Observation, VecEnv};

use schedlab_experiments::workloads::{Kind, with_kind};

#[derive(Args)]
pub struct BenchStepsArgs {
    /// Workload of any kind.
    #[arg(long)]
    workload: PathBuf,
    /// Copies in the vectorised env.
    #[arg(long, default_value_t = 8)]
    copies: usize,
    /// Wall-clock seconds timed for each of the two measurements.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
}

pub fn run(args: BenchStepsArgs) -> anyhow::Result<()> {
    anyhow::ensure!(args.copies > 0, "--copies must be at least 1");
    let loaded = schedlab_experiments::workloads::load(&args.workload, &[])?;
    let (single, episodes, vector) = with_kind!(&loaded, |w| {
        let env = w.env();
        let (single, episodes) = single_env_rate(env.fresh_copy(), args.seconds)?;
        (
            single,
            episodes,
            vector_env_rate(&env, args.copies, args.seconds)?,
        )
    });
    println!(
        "{} ({}), first allowed actions, {} threads",
        loaded.name(),
        args.workload.display(),
        rayon::current_num_threads()
    );
    println!("single env: {single:.0} steps/s ({episodes} episodes ended)");
    println!("vector env ({} copies): {vector:.0} steps/s", args.copies);
    Ok(())
}

/// The lowest allowed level of every dimension.
fn first_allowed(space: &ActionSpace, observation: &Observation) -> Vec<usize> {
    (0..space.dims())
        .map(|dim| {
            observation
                .mask_of(space, dim)
                .iter()
                .position(|&allowed| allowed)
                .expect("the env contract allows a level of every dimension")
        })
        .collect()
}

/// Steps per second of one env over seeds 0, 1, ..., and the episodes that ended.
fn single_env_rate<E: Environment>(mut env: E, seconds: f64) -> anyhow::Result<(f64, u64)> {
    let space = env.action_space().clone();
    let (mut steps, mut episodes) = (0u64, 0u64);
    let start = Instant::now();
    let (mut observation, _) = env.reset(0)?;
    while start.elapsed().as_secs_f64() < seconds {
        let step = env.step(&first_allowed(&space, &observation))?;
        steps += 1;
        observation = if step.terminated || step.truncated {
            episodes += 1;
            env.reset(episodes)?.0
        } else {
            step.observation
        };
    }
    Ok((steps as f64 / start.elapsed().as_secs_f64(), episodes))
}

/// Steps per second summed over `copies` envs stepped together (same-step autoreset).
fn vector_env_rate<E: Environment>(
    prototype: &E,
    copies: usize,
    seconds: f64,
) -> anyhow::Result<f64> {
    let space = prototype.action_space().clone();
    let mut envs = VecEnv::new(prototype, copies, 0);
    let mut observations = envs.reset()?;
    let mut steps = 0u64;
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < seconds {
        let actions: Vec<Vec<usize>> = observations
            .iter()
            .map(|observation| first_allowed(&space, observation))
            .collect();
        observations = envs.step(&actions)?.observations;
        steps += copies as u64;
    }
    Ok(steps as f64 / start.elapsed().as_secs_f64())
}
