use std::path::Path;
use std::sync::Arc;

use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_env::Environment;
use schedlab_env::dag::{DagEnv, DagWorkload, Problem, lower_bound_s, topcuoglu_example};

use super::*;
use crate::context::SchedulingEnv;
use crate::{registry, run_episode};
use schedlab_env::EnvKind;

fn example() -> Problem {
    let (dag, platform) = topcuoglu_example();
    Problem::new(dag, &platform).unwrap()
}

fn workload(tasks: usize) -> Arc<DagWorkload> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/dag-layered.toml");
    let overrides = [("dags.layered.tasks".to_owned(), tasks.to_string())];
    Arc::new(DagWorkload::load(&path, &overrides).unwrap())
}

#[test]
fn heft_and_cpop_give_the_published_schedule_lengths() {
    let problem = example();
    let heft = heft(&problem);
    heft.validate(&problem).unwrap();
    assert_eq!(heft.makespan_s(), 80.0);
    let cpop = cpop(&problem);
    cpop.validate(&problem).unwrap();
    assert_eq!(cpop.makespan_s(), 86.0);
    // the critical path n1 n2 n9 n10 runs on P2 (Topcuoglu et al. 2002, Fig. 5)
    for t in [0, 1, 8, 9] {
        assert_eq!(cpop.gpu[t], 1, "task n{}", t + 1);
    }
    for schedule in [peft(&problem), min_min(&problem), max_min(&problem)] {
        schedule.validate(&problem).unwrap();
        assert!(schedule.makespan_s() >= lower_bound_s(&problem));
    }
}

/// Every DAG scheduler, through the env, on random DAGs: a valid schedule, never below the
/// critical-path bound, and the same plan for the same seed.
#[test]
fn every_scheduler_plays_valid_plans_and_the_same_seed_gives_the_same_plan() {
    let names = registry::names(EnvKind::Dag);
    assert!(names.len() >= 9, "{names:?}");
    for (k, tasks) in [12usize, 40, 90].into_iter().enumerate() {
        let env = DagEnv::new(workload(tasks));
        for name in &names {
            // WORL-RTGS guided by HEFT: a trained guide needs the command line's loader
            let options = [
                ("evaluations".to_owned(), "300".to_owned()),
                ("guide".to_owned(), "heft".to_owned()),
            ];
            let mut policy = registry::build(name, &env.context(), &options).unwrap();
            let mut plays = Vec::new();
            for _ in 0..2 {
                let mut env = env.fresh_copy();
                let metrics = run_episode(&mut env, policy.as_mut(), k as u64).unwrap();
                let problem = env.problem().unwrap().clone();
                let schedule = env.schedule().unwrap().clone();
                schedule
                    .validate(&problem)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(
                    metrics.makespan_s >= lower_bound_s(&problem) * (1.0 - 1e-12),
                    "{name}"
                );
                assert_eq!(metrics.makespan_s, schedule.makespan_s());
                plays.push(schedule.gpu);
            }
            assert_eq!(plays[0], plays[1], "{name} with {tasks} tasks");
        }
    }
}

#[test]
fn heft_through_the_env_is_heft() {
    let w = workload(80);
    let mut env = DagEnv::new(w.clone());
    let mut policy = registry::build("heft", &env.context(), &[]).unwrap();
    let metrics = run_episode(&mut env, policy.as_mut(), 9).unwrap();
    assert_eq!(metrics.makespan_s, heft(&w.instance(9)).makespan_s());
}

/// One whale's step worked by hand from the published equations.
#[test]
fn the_whale_update_follows_the_published_equations() {
    let (x, best, random) = ([0.2, 0.6], [0.5, 0.1], [0.9, 0.3]);
    // A = 2 a r1 - a = -0.5 (|A| < 1), C = 2 r2 = 1: encircle the best
    let d = WoaDraws {
        a: 1.0,
        r1: 0.25,
        r2: 0.5,
        p: 0.3,
        l: 0.0,
    };
    let moved = woa_move(&x, &best, &random, d);
    let expected = [0.5 + 0.5 * 0.3, 0.1 + 0.5 * 0.5];
    assert!(
        moved
            .iter()
            .zip(expected)
            .all(|(m, e)| (m - e).abs() < 1e-12),
        "{moved:?}"
    );
    // A = 2 * 2 * 0.9 - 2 = 1.6 (|A| >= 1), C = 0.4: search around the random whale
    let d = WoaDraws {
        a: 2.0,
        r1: 0.9,
        r2: 0.2,
        p: 0.1,
        l: 0.0,
    };
    let moved = woa_move(&x, &best, &random, d);
    let expected = [
        0.9 - 1.6 * (0.4f64 * 0.9 - 0.2).abs(),
        0.3 - 1.6 * (0.4f64 * 0.3 - 0.6).abs(),
    ];
    assert!((moved[0] - expected[0]).abs() < 1e-12, "{moved:?}");
    assert_eq!(
        moved[1], 0.0,
        "clamped at the lower bound from {}",
        expected[1]
    );
    // spiral: |X* - X| e^l cos(2 pi l) + X* with l = 0.5: cos(pi) = -1
    let d = WoaDraws {
        a: 1.0,
        r1: 0.5,
        r2: 0.5,
        p: 0.7,
        l: 0.5,
    };
    let moved = woa_move(&x, &best, &random, d);
    let e = 0.5f64.exp();
    assert!((moved[0] - (0.5 - 0.3 * e)).abs() < 1e-12, "{moved:?}");
    assert_eq!(moved[1], 0.0);
}

/// The search keeps its best: seeded with HEFT's plan, WOA never returns a worse one.
#[test]
fn a_whale_search_seeded_with_heft_never_ends_worse() {
    let w = workload(60);
    for seed in 0..3 {
        let problem = w.instance(seed);
        let heft_plan = heft(&problem).gpu;
        let mut decoder = Decoder::new(&problem);
        let heft_makespan = decoder.makespan_s(&heft_plan);
        assert_eq!(decoder.gpus_of(&decoder.position_of(&heft_plan)), heft_plan);
        let woa = Woa {
            budget: SearchBudget {
                population: 10,
                evaluations: 200,
                search_seed: 0,
            },
            initial: vec![heft_plan],
        };
        let (best, curve) = woa.search(&mut decoder, &mut StdRng::seed_from_u64(seed));
        assert!(best.makespan_s <= heft_makespan);
        assert!(curve.windows(2).all(|w| w[1] <= w[0]), "{curve:?}");
        assert_eq!(decoder.evaluations, 1 + 10 + 19 * 10);
    }
}

#[test]
fn plan_distance_and_finish_time_gap() {
    use plan_distance::{GapSlope, ftg, pearson, spd, spearman};
    assert_eq!(spd(&[0, 1, 2, 3], &[0, 1, 2, 3]), 0.0);
    assert_eq!(spd(&[0, 1, 2, 3], &[0, 2, 2, 0]), 0.5);
    assert_eq!(ftg(100.0, 125.0), 0.25);
    assert_eq!(ftg(125.0, 100.0), 0.25);
    let mut slope = GapSlope::default();
    assert_eq!(slope.slope(), None);
    slope.add(0.1, 0.05);
    slope.add(0.2, 0.1);
    assert!((slope.slope().unwrap() - 0.5).abs() < 1e-12);
    let line: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 3.0 * i as f64 + 1.0)).collect();
    assert!((pearson(&line) - 1.0).abs() < 1e-12);
    // monotone but not linear: Spearman 1, Pearson below
    let curve: Vec<(f64, f64)> = (1..10).map(|i| (i as f64, (i as f64).powi(4))).collect();
    assert!((spearman(&curve) - 1.0).abs() < 1e-12);
    assert!(pearson(&curve) < 0.99);
}

/// The study's perturbed plans are at the asked distance from their base, and moving no task
/// (the base itself) gives no gap.
#[test]
fn perturbed_plans_sit_at_the_asked_distance() {
    use plan_distance::perturbation_pairs;
    let problem = workload(50).instance(4);
    let mut decoder = Decoder::new(&problem);
    let base = heft(&problem).gpu;
    let pairs = perturbation_pairs(
        &mut decoder,
        &base,
        &[0.1, 0.5],
        3,
        &mut StdRng::seed_from_u64(1),
    );
    assert_eq!(pairs.len(), 6);
    // every 50-task plan moves 5 then 25 tasks (each fits more than one of 16 GPUs)
    for (k, (spd, ftg)) in pairs.iter().enumerate() {
        assert_eq!(*spd, if k < 3 { 0.1 } else { 0.5 }, "{pairs:?}");
        assert!(*ftg >= 0.0);
    }
}

/// A guide's greedy episode is its plan; with ε the episodes differ and stay valid.
#[test]
fn guide_episodes_follow_the_guide_unless_exploring() {
    let w = workload(40);
    let env = DagEnv::new(w.clone());
    let ctx = env.context();
    let problem = w.instance(3);
    let mut guide = Guide::new(w.clone(), registry::build("heft", &ctx, &[]).unwrap());
    let mut rng = StdRng::seed_from_u64(0);
    assert_eq!(guide.rollout(3, 0.0, &mut rng), heft(&problem).gpu);
    let explored = guide.rollout(3, 0.5, &mut rng);
    assert_ne!(explored, heft(&problem).gpu);
    assert!(
        explored
            .iter()
            .enumerate()
            .all(|(t, &g)| problem.fits(t, g))
    );
}

/// WORL-RTGS keeps the guide's greedy plan in its first population and its best: it never
/// ends worse than its guide, and stays within its evaluation budget.
#[test]
fn worl_rtgs_never_ends_worse_than_its_guide_and_keeps_its_budget() {
    let w = workload(60);
    let env = DagEnv::new(w.clone());
    let ctx = env.context();
    for seed in 0..3 {
        let problem = w.instance(seed);
        let guide = registry::build("round-robin", &ctx, &[]).unwrap();
        let mut planner = WorlRtgs {
            budget: SearchBudget {
                population: 10,
                evaluations: 400,
                search_seed: 0,
            },
            guided: 0.5,
            epsilon: 0.1,
            refresh_every: 3,
            refresh: 0.2,
            steer: true,
            guide: Guide::new(w.clone(), guide),
        };
        let mut decoder = Decoder::new(&problem);
        let mut greedy = Guide::new(
            w.clone(),
            registry::build("round-robin", &ctx, &[]).unwrap(),
        );
        let guide_makespan =
            decoder.makespan_s(&greedy.rollout(seed, 0.0, &mut StdRng::seed_from_u64(0)));
        decoder.evaluations = 0;
        let (best, curve) = planner.search(&mut decoder, seed, &mut StdRng::seed_from_u64(seed));
        assert!(
            best.makespan_s <= guide_makespan,
            "{} > {guide_makespan}",
            best.makespan_s
        );
        assert!(best.makespan_s < curve[0] || curve[0] == best.makespan_s);
        assert!(curve.windows(2).all(|w| w[1] <= w[0]), "{curve:?}");
        assert!(decoder.evaluations <= 400, "{}", decoder.evaluations);
        assert!(decoder.evaluations > 300, "{}", decoder.evaluations);
    }
}

/// A context with a loader resolves the loader's names first, then the registry's; a failed
/// load names the spec.
#[test]
fn a_context_resolves_trained_agents_through_its_loader() {
    let env = DagEnv::new(workload(20));
    let loader = crate::TrainedLoader(Arc::new(|spec: &str, ctx: &crate::EnvContext| match spec {
        "my-agent" => Some(Ok(
            Box::new(crate::RandomPolicy::new(ctx.common().clone())) as Box<dyn crate::Policy>
        )),
        "broken" => Some(Err(crate::PolicyError::Trained {
            spec: spec.to_owned(),
            message: "model-0.bpk: truncated".to_owned(),
        })),
        _ => None,
    }));
    let ctx = env.context().with_trained(loader);
    assert_eq!(ctx.resolve("my-agent").unwrap().name(), "random");
    assert_eq!(ctx.resolve("heft").unwrap().name(), "heft");
    let err = ctx.resolve("broken").err().unwrap().to_string();
    assert_eq!(err, "trained agent `broken`: model-0.bpk: truncated");
    let err = registry::build("worl-rtgs:guide=heft:epsilon=1.5", &ctx, &[])
        .err()
        .unwrap()
        .to_string();
    assert_eq!(
        err,
        "scheduler `worl-rtgs`: option `epsilon=1.5`: expected a number in [0, 1]"
    );
    let err = registry::build("worl-rtgs:guide=nowhere", &ctx, &[])
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("option `guide=nowhere`") && err.contains("unknown scheduler `nowhere`"),
        "{err}"
    );
}
