//! `schedlab bench network`: iterations per second of the all-time-feasible allocation
//! dynamics on a sparse graph of many computing centres, on one core, with the step-size rule
//! it runs at.

use std::time::Instant;

use clap::Args;
use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_env::network::{
    Dynamics, GraphKind, Quantizer, Weights, capacity_proportional, optimum, proportional,
    sampled_costs, switching::connected, total_cost, uniform,
};

use schedlab_experiments::stats::median;

#[derive(Args)]
pub struct BenchNetworkArgs {
    /// Computing centres.
    #[arg(long, default_value_t = 1000)]
    centres: usize,
    /// Mean neighbours per centre (an Erdős-Rényi graph, redrawn until connected).
    #[arg(long, default_value_t = 10.0)]
    degree: f64,
    /// Iterations per round.
    #[arg(long, default_value_t = 5000)]
    iterations: usize,
    /// Rounds; the median and best are reported.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

pub fn run(args: BenchNetworkArgs) -> anyhow::Result<()> {
    let n = args.centres;
    let mut rng = StdRng::seed_from_u64(args.seed);
    let p = (args.degree / (n.max(2) - 1) as f64).min(1.0);
    let graph = connected(
        GraphKind::ErdosRenyi { p },
        n,
        Weights::Metropolis,
        &mut rng,
    )?;
    let costs = sampled_costs(n, (16.0, 48.0), &mut rng);
    let demand = 12.0 * n as f64;
    let (best, _) = optimum(&costs, demand);
    let optimal = total_cost(&costs, &best);
    println!(
        "{n} centres, {} edges (Erdős-Rényi, mean degree {:.1}, Metropolis weights), one thread",
        graph.edges().len(),
        2.0 * graph.edges().len() as f64 / n as f64
    );
    let gap = |x: &[f64]| (total_cost(&costs, x) - optimal) / optimal;
    println!(
        "cost gap of the fixed splits: uniform {:.3e}, work-proportional {:.3e}, capacity-proportional (Rikos et al. 2021's fixed point) {:.3e}",
        gap(&uniform(n, demand)),
        gap(&proportional(&costs, demand)),
        gap(&capacity_proportional(&costs, demand))
    );
    for quantizer in [
        Quantizer::Exact,
        Quantizer::Log {
            rho: 0.05,
            smallest: 1e-6,
            largest: 1e3,
        },
    ] {
        let mut dynamics = Dynamics::new(&costs, quantizer);
        let mut x = uniform(n, demand);
        let mut rates = Vec::new();
        for _ in 0..args.rounds.max(1) {
            let start = Instant::now();
            for _ in 0..args.iterations {
                dynamics.step(&graph, &mut x)?;
            }
            rates.push(args.iterations as f64 / start.elapsed().as_secs_f64());
        }
        println!(
            "{:>6}: {:.0} iterations/s median, {:.0} best; step {:.3e} = 1 / (L {:.4} x Laplacian bound {:.3}); cost gap after {} iterations {:.2e}, |sum - demand| / demand {:.1e}",
            match quantizer {
                Quantizer::Exact => "exact",
                _ => "log",
            },
            median(rates.clone()),
            rates.iter().copied().fold(0.0, f64::max),
            dynamics.step_size(&graph),
            dynamics.lipschitz,
            graph.laplacian_bound(),
            args.iterations * args.rounds.max(1),
            gap(&x),
            (x.iter().sum::<f64>() - demand).abs() / demand
        );
    }
    Ok(())
}
