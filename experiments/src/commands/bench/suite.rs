//! `schedlab bench suite`: how long scoring an entry on a suite's test split takes (its
//! episodes and the reference's, over `--threads`), after the build and the suite's check.

use std::time::Instant;

use clap::Args;
use schedlab_experiments::suite::{Split, Suite, score};

#[derive(Args)]
pub struct BenchSuiteArgs {
    /// A suite id or a suite's folder.
    #[arg(long, default_value = "philly-v1")]
    suite: String,
    /// The entry to score.
    #[arg(long, default_value = "fifo")]
    policy: String,
    /// Repetitions; the fastest counts.
    #[arg(long, default_value_t = 3)]
    repeats: u32,
}

pub fn run(args: BenchSuiteArgs) -> anyhow::Result<()> {
    let mut best = f64::INFINITY;
    let mut episodes = 0;
    for _ in 0..args.repeats.max(1) {
        let start = Instant::now();
        // opened each time: the manifest check is part of what a score costs
        let suite = Suite::open(&args.suite)?;
        episodes = score::score(&suite, &args.policy, Split::Test)?
            .episodes
            .len();
        best = best.min(start.elapsed().as_secs_f64());
    }
    println!(
        "{} on {}: {episodes} test episodes and the reference's, scored in {best:.2} s (fastest of {}, {} threads)",
        args.policy,
        args.suite,
        args.repeats.max(1),
        rayon::current_num_threads()
    );
    Ok(())
}
