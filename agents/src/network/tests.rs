use std::path::Path;
use std::sync::Arc;

use schedlab_env::network::{NetworkEnv, NetworkMetrics, NetworkWorkload, capacity_proportional};

use crate::context::SchedulingEnv;
use crate::{registry, run_episode};

fn workload(iterations: usize) -> Arc<NetworkWorkload> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/network-diabetes-ridge.toml");
    let overrides = [("episode.iterations".to_owned(), iterations.to_string())];
    Arc::new(NetworkWorkload::load(&path, &overrides).unwrap())
}

fn play(w: &Arc<NetworkWorkload>, spec: &str, seed: u64) -> (NetworkMetrics, Vec<f64>) {
    let mut env = NetworkEnv::new(w.clone());
    let mut policy = registry::build(spec, &env.context(), &[]).unwrap();
    let metrics = run_episode(&mut env, policy.as_mut(), seed).unwrap();
    (metrics, env.allocation().unwrap().to_vec())
}

/// The dynamics close most of the uniform split's gap; the local step closes it faster; the
/// oracle reaches the optimum.
#[test]
fn consensus_closes_the_gap_of_the_even_split() {
    let w = workload(2000);
    for seed in 0..3 {
        let (uniform, _) = play(&w, "uniform", seed);
        let (theory, _) = play(&w, "consensus", seed);
        let (local, _) = play(&w, "consensus:step=local", seed);
        let (oracle, _) = play(&w, "optimum", seed);
        assert!(
            theory.cost_gap < 0.5 * uniform.cost_gap,
            "{theory:?} {uniform:?}"
        );
        assert!(
            local.cost_gap < 0.1 * theory.cost_gap,
            "{local:?} {theory:?}"
        );
        assert!(oracle.cost_gap < 1e-6, "{oracle:?}");
        for m in [&uniform, &theory, &local, &oracle] {
            assert!(m.residual_max <= 1e-9, "{m:?}");
        }
    }
}

/// `rikos` reaches the capacity-proportional split by averaging excesses along the ring.
#[test]
fn rikos_reaches_the_capacity_proportional_split() {
    let w = workload(3000);
    let (_, x) = play(&w, "rikos", 1);
    let target = capacity_proportional(&w.costs(1), w.demand());
    for (xi, ti) in x.iter().zip(&target) {
        assert!((xi - ti).abs() < 1e-3, "{xi} against {ti}");
    }
}
