use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::*;

fn costs(n: usize, seed: u64) -> Vec<CentreCost> {
    sampled_costs(n, (32.0, 32.0), &mut StdRng::seed_from_u64(seed))
}

fn log_quantizer(rho: f64) -> Quantizer {
    Quantizer::Log {
        rho,
        smallest: 1e-6,
        largest: 1e3,
    }
}

#[test]
fn the_log_quantizer_is_exact_on_powers_of_its_base_and_bounded_elsewhere() {
    for rho in [0.01, 0.1, 0.5] {
        let q = log_quantizer(rho);
        for k in -25..=13 {
            let z = (k as f64 * rho).exp();
            if (1e-6..=1e3).contains(&z) {
                assert_eq!(q.quantize(z), z, "rho {rho}, k {k}");
                assert_eq!(q.quantize(-z), -z);
            }
        }
        let mut rng = StdRng::seed_from_u64(1);
        for _ in 0..1000 {
            let z: f64 = rng.random_range(-500.0..500.0);
            let relative = (q.quantize(z) - z).abs() / z.abs();
            assert!(
                relative <= (rho / 2.0).exp() - 1.0 + 1e-12,
                "{z}: {relative}"
            );
        }
        assert_eq!(q.quantize(0.0), 0.0);
        assert_eq!(q.uniform_twin().bits(), q.bits());
    }
    // ln(1e9) / 0.1 = 207.2 -> 209 levels -> 8 index bits, a sign and a zero flag
    assert_eq!(log_quantizer(0.1).bits(), 10);
    let uniform = Quantizer::Uniform {
        bits: 4,
        largest: 7.0,
    };
    assert_eq!(uniform.quantize(2.4), 2.0);
    assert_eq!(uniform.quantize(100.0), 7.0);
}

#[test]
fn spectra_tell_connected_graphs_and_bound_their_largest_eigenvalue() {
    let ring = graph::ring(8, Weights::Unit);
    let spectrum = ring.laplacian_spectrum();
    assert!(spectrum[0].abs() < 1e-12);
    // a ring's algebraic connectivity is 2 (1 - cos(2 pi / n))
    let expected = 2.0 * (1.0 - (2.0 * std::f64::consts::PI / 8.0).cos());
    assert!((spectrum[1] - expected).abs() < 1e-9, "{spectrum:?}");
    assert!(ring.laplacian_bound() >= spectrum[7] - 1e-12);
    let split = Graph::new(4, &[(0, 1), (2, 3)], Weights::Metropolis);
    assert!(!split.is_connected());
    assert!(split.laplacian_spectrum()[1].abs() < 1e-12);
    let mut rng = StdRng::seed_from_u64(3);
    let g = switching::connected(
        GraphKind::ErdosRenyi { p: 0.3 },
        30,
        Weights::Metropolis,
        &mut rng,
    )
    .unwrap();
    assert!(g.is_connected() && g.laplacian_spectrum()[1] > 1e-9);
    assert!(
        g.laplacian_bound() <= 2.0,
        "Metropolis weighted degrees stay below 1"
    );
    let err = switching::connected(GraphKind::ErdosRenyi { p: 0.0 }, 5, Weights::Unit, &mut rng)
        .unwrap_err()
        .to_string();
    assert!(err.contains("disconnected"), "{err}");
}

#[test]
fn dropout_keeps_every_window_of_a_period_connected_through_the_base_graph() {
    let mut seq = GraphSequence::new(
        GraphKind::Geometric { radius: 0.5 },
        15,
        Weights::Metropolis,
        Switching::Dropout { p: 0.7, period: 4 },
        9,
    )
    .unwrap();
    let base: Vec<(usize, usize)> = seq.base().edges().iter().map(|e| (e.0, e.1)).collect();
    let mut out_run = vec![0usize; base.len()];
    let mut thinned = false;
    for _ in 0..200 {
        seq.advance().unwrap();
        let now: Vec<(usize, usize)> = seq.current().edges().iter().map(|e| (e.0, e.1)).collect();
        assert!(now.iter().all(|e| base.contains(e)));
        thinned |= now.len() < base.len();
        for (k, e) in base.iter().enumerate() {
            out_run[k] = if now.contains(e) { 0 } else { out_run[k] + 1 };
            assert!(out_run[k] < 4, "edge {e:?} out 4 iterations in a row");
        }
    }
    assert!(thinned);
}

#[test]
fn the_optimum_equalises_marginal_costs_and_meets_the_demand() {
    let c = costs(9, 4);
    let (x, lambda) = optimum(&c, 120.0);
    assert!((x.iter().sum::<f64>() - 120.0).abs() < 1e-9);
    for (cost, &xi) in c.iter().zip(&x) {
        assert!(
            (cost.marginal(xi) - lambda).abs() < 1e-7,
            "{} vs {lambda}",
            cost.marginal(xi)
        );
    }
    // no feasible move lowers the cost: shift a little between any two centres
    let best = total_cost(&c, &x);
    for (i, j) in [(0, 1), (3, 7), (8, 2)] {
        let mut y = x.clone();
        y[i] += 0.01;
        y[j] -= 0.01;
        assert!(total_cost(&c, &y) > best);
    }
}

#[test]
fn fixed_splits_meet_the_demand_and_the_optimum_beats_them() {
    let c = costs(7, 8);
    let demand = 84.0;
    let (best, _) = optimum(&c, demand);
    for split in [
        uniform(7, demand),
        proportional(&c, demand),
        capacity_proportional(&c, demand),
    ] {
        assert!((split.iter().sum::<f64>() - demand).abs() < 1e-9);
        assert!(total_cost(&c, &split) >= total_cost(&c, &best));
    }
    // equal capacities: Rikos et al.'s fixed point is the uniform split
    assert_eq!(capacity_proportional(&c, demand), uniform(7, demand));
}

fn run(
    n: usize,
    seed: u64,
    kind: GraphKind,
    switching: Switching,
    quantizer: Quantizer,
    iterations: usize,
    mut each: impl FnMut(&[f64]),
) -> Vec<f64> {
    let c = costs(n, seed);
    let demand = 12.0 * n as f64;
    let mut seq = GraphSequence::new(kind, n, Weights::Metropolis, switching, seed).unwrap();
    let mut dynamics = Dynamics::new(&c, quantizer);
    let mut x = uniform(n, demand);
    for _ in 0..iterations {
        dynamics.step(seq.current(), &mut x).unwrap();
        each(&x);
        seq.advance().unwrap();
    }
    x
}

fn kinds() -> impl Strategy<Value = GraphKind> {
    prop_oneof![
        Just(GraphKind::Ring),
        (0.3..0.8f64).prop_map(|radius| GraphKind::Geometric { radius }),
        (0.2..0.9f64).prop_map(|p| GraphKind::ErdosRenyi { p }),
    ]
}

fn switchings() -> impl Strategy<Value = Switching> {
    prop_oneof![
        Just(Switching::Static),
        (1..20usize).prop_map(|every| Switching::Redraw { every }),
        (0.0..0.9f64, 1..6usize).prop_map(|(p, period)| Switching::Dropout { p, period }),
    ]
}

fn quantizers() -> impl Strategy<Value = Quantizer> {
    prop_oneof![
        Just(Quantizer::Exact),
        (0.01..1.0f64).prop_map(log_quantizer),
        (0.01..1.0f64).prop_map(|rho| log_quantizer(rho).uniform_twin()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// All-time feasibility: the demand is met at every iteration.
    #[test]
    fn the_demand_is_met_at_every_iteration(
        n in 2..14usize,
        seed in 0..1000u64,
        kind in kinds(),
        switching in switchings(),
        quantizer in quantizers(),
    ) {
        let demand = 12.0 * n as f64;
        run(n, seed, kind, switching, quantizer, 400, |x| {
            let sum: f64 = x.iter().sum();
            assert!((sum - demand).abs() <= 1e-9 * demand, "{sum} against {demand}");
        });
    }
}

fn gap(n: usize, seed: u64, x: &[f64]) -> f64 {
    let c = costs(n, seed);
    let (best, _) = optimum(&c, 12.0 * n as f64);
    let optimal = total_cost(&c, &best);
    (total_cost(&c, x) - optimal) / optimal.abs()
}

#[test]
fn unquantised_dynamics_reach_the_centralised_optimum_on_static_and_switching_graphs() {
    for (seed, kind, switching) in [
        (0, GraphKind::ErdosRenyi { p: 0.5 }, Switching::Static),
        (1, GraphKind::Ring, Switching::Redraw { every: 5 }),
        (
            2,
            GraphKind::Geometric { radius: 0.6 },
            Switching::Dropout { p: 0.5, period: 3 },
        ),
    ] {
        let x = run(8, seed, kind, switching, Quantizer::Exact, 60_000, |_| {});
        let g = gap(8, seed, &x);
        // the reference optimum is itself a bisection: a gap of -1e-15 is a tie
        assert!((-1e-12..1e-6).contains(&g), "seed {seed}: gap {g}");
    }
}

#[test]
fn log_quantised_dynamics_settle_nearer_the_optimum_as_rho_shrinks() {
    let gaps: Vec<f64> = [0.8, 0.2, 0.05]
        .iter()
        .map(|&rho| {
            (0..4)
                .map(|seed| {
                    let x = run(
                        8,
                        seed,
                        GraphKind::ErdosRenyi { p: 0.5 },
                        Switching::Static,
                        log_quantizer(rho),
                        60_000,
                        |_| {},
                    );
                    gap(8, seed, &x)
                })
                .sum::<f64>()
                / 4.0
        })
        .collect();
    assert!(gaps[0] > gaps[1] && gaps[1] > gaps[2], "{gaps:?}");
    assert!(gaps[2] < 1e-3, "{gaps:?}");
}

/// A real data set, standardised, with the model of its task: diabetes with ridge regression,
/// breast cancer with a linear SVM.
fn real(
    name: &str,
) -> (
    std::sync::Arc<crate::data::Dataset>,
    std::sync::Arc<crate::model::LinearModel>,
) {
    use crate::data::{FeatureScaling, NaPolicy, load_csv, prepare};
    use crate::model::{LinearLoss, LinearModel};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/datasets");
    let (file, classification, loss) = match name {
        "diabetes" => ("diabetes/diabetes.csv", false, LinearLoss::Squared),
        _ => ("breast_cancer/breast_cancer.csv", true, LinearLoss::Hinge),
    };
    let (x, y, _) = load_csv(&root.join(file), "target", &[], NaPolicy::Error).unwrap();
    let prepared = prepare(
        (x, y),
        None,
        classification,
        0.2,
        0,
        FeatureScaling::Standard,
    )
    .unwrap();
    let data = prepared.train;
    let model = LinearModel::new(loss, data.features.cols(), data.task).unwrap();
    (std::sync::Arc::new(data), std::sync::Arc::new(model))
}

/// Ridge regression by consensus reaches the centralised optimum's loss on static and
/// switching graphs, the trackers keep the sum of the local gradients, and the centres agree.
#[test]
fn consensus_ridge_regression_reaches_the_centralised_loss_and_tracks_the_gradient() {
    let (data, model) = real("diabetes");
    let l2 = 0.01;
    let params = vec![0.0f32; crate::model::Model::num_params(&*model)];
    // the centralised optimum by plain gradient descent
    let mut central = params.clone();
    centralised_descent(&*model, &data, l2, 0.05, 20_000, &mut central);
    let (best, _) = centralised_objective(&*model, &data, &central, l2);
    for switching in [Switching::Static, Switching::Dropout { p: 0.4, period: 3 }] {
        let mut seq =
            GraphSequence::new(GraphKind::Ring, 6, Weights::Metropolis, switching, 5).unwrap();
        let mut training = ConsensusTraining::new(
            model.clone(),
            data.clone(),
            shards(data.len(), &[1.0; 6], 1),
            l2,
            // the trackers follow the mean gradient: a step n times the centralised one
            0.3,
            Quantizer::Exact,
            &params,
        );
        for _ in 0..20_000 {
            training.step(seq.current());
            let (trackers, grads) = training.tracking_sums();
            for (t, g) in trackers.iter().zip(&grads) {
                assert!((t - g).abs() < 1e-4 * (1.0 + g.abs()), "{t} against {g}");
            }
            seq.advance().unwrap();
        }
        let (loss, _) = centralised_objective(&*model, &data, &training.mean_params(), l2);
        assert!(
            (loss - best) / best < 1e-3,
            "{switching:?}: {loss} against {best}"
        );
        assert!(
            training.disagreement() < 1e-2,
            "{}",
            training.disagreement()
        );
    }
}

/// A linear SVM on breast cancer trained by log-quantised consensus classifies about as well
/// as the centralised one.
#[test]
fn a_log_quantised_consensus_svm_classifies_like_the_centralised_one() {
    let (data, model) = real("breast_cancer");
    let l2 = 0.01;
    let params = vec![0.0f32; crate::model::Model::num_params(&*model)];
    let accuracy = |p: &[f32]| model.score(p, &data);
    let mut central = params.clone();
    centralised_descent(&*model, &data, l2, 0.05, 3000, &mut central);
    let seq = GraphSequence::new(
        GraphKind::ErdosRenyi { p: 0.5 },
        8,
        Weights::Metropolis,
        Switching::Static,
        2,
    )
    .unwrap();
    let mut training = ConsensusTraining::new(
        model.clone(),
        data.clone(),
        shards(data.len(), &[1.0; 8], 3),
        l2,
        0.05,
        log_quantizer(0.05),
        &params,
    );
    let mut bits = 0;
    for _ in 0..3000 {
        bits += training.step(seq.current());
    }
    let (ours, theirs) = (accuracy(&training.mean_params()), accuracy(&central));
    assert!(theirs > 0.95, "{theirs}");
    assert!(ours > theirs - 0.02, "{ours} against {theirs}");
    assert!(bits > 0);
}
