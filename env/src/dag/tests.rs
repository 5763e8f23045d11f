use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::*;
use crate::gym::{CheckOptions, Environment, Observation, check_env};

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/workloads")
        .join(name)
}

fn layered_workload(overrides: &[(&str, &str)]) -> DagWorkload {
    let overrides: Vec<(String, String)> = overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    DagWorkload::load(&shipped("dag-layered.toml"), &overrides).unwrap()
}

/// Min-EFT placement in the env's order: HEFT.
fn heft_by_hand(problem: &Problem) -> Schedule {
    let mut builder = Builder::new(problem);
    for t in env_order(problem) {
        let g = builder.best_gpu(problem, t);
        builder.place(problem, t, g);
    }
    builder.into_schedule()
}

#[test]
fn the_env_order_with_least_finish_times_is_heft_on_the_published_example() {
    let (dag, platform) = topcuoglu_example();
    let problem = Problem::new(dag, &platform).unwrap();
    let rank = upward_rank(&problem);
    // Topcuoglu et al. 2002, Table 2: rank_u of n1 and n10
    assert!(
        (rank[0] - 108.0).abs() < 1e-9 && (rank[9] - 14.666_666_666_666_666).abs() < 1e-9,
        "{rank:?}"
    );
    let order: Vec<String> = env_order(&problem)
        .iter()
        .map(|&t| problem.tasks[t].name.clone())
        .collect();
    assert_eq!(
        order,
        ["n1", "n3", "n4", "n2", "n5", "n6", "n9", "n7", "n8", "n10"]
    );
    let schedule = heft_by_hand(&problem);
    schedule.validate(&problem).unwrap();
    assert_eq!(schedule.makespan_s(), 80.0);
    assert!(lower_bound_s(&problem) <= 80.0);
}

#[test]
fn a_cycle_is_refused_naming_its_tasks() {
    let (mut dag, platform) = topcuoglu_example();
    // n10 -> n1 closes a loop through every path
    dag.edges.push(Edge {
        from: 9,
        to: 0,
        data_mb: 1.0,
    });
    let err = Problem::new(dag, &platform).unwrap_err().to_string();
    assert!(err.starts_with("the dependencies form a cycle: n"), "{err}");
    let names: Vec<&str> = err
        .trim_start_matches("the dependencies form a cycle: ")
        .split(" -> ")
        .collect();
    assert_eq!(names.first(), names.last(), "{err}");
    assert!(names.contains(&"n1") && names.contains(&"n10"), "{err}");
}

#[test]
fn a_task_no_gpu_can_hold_is_refused_by_name() {
    let (mut dag, platform) = topcuoglu_example();
    dag.tasks[3].memory_gb = 64.0;
    let err = Problem::new(dag, &platform).unwrap_err().to_string();
    assert_eq!(
        err,
        "task `n4`: needs 64 GB, more than any GPU holds (16 GB)"
    );
}

#[test]
fn a_misspelt_workload_field_is_named() {
    let path = shipped("dag-layered.toml");
    let err = DagWorkload::load(&path, &[("dags.layered.taks".into(), "5".into())])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("dag-layered.toml") && err.contains("taks"),
        "{err}"
    );
    let err = DagWorkload::load(
        &path,
        &[("platform.machines.0.gpu_type".into(), "A100".into())],
    );
    assert!(err.is_err());
}

/// Any assignment played in any topological order keeps every rule, and no schedule beats
/// the critical-path bound.
#[test]
fn random_plans_on_random_dags_are_valid_and_above_the_lower_bound() {
    for seed in 0..40u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let tasks = rng.random_range(2..120);
        let source = if seed % 2 == 0 {
            "layered"
        } else {
            "fork-join"
        };
        let w = match source {
            "layered" => layered_workload(&[
                ("dags.layered.tasks", &tasks.to_string()),
                ("dags.layered.ccr", "2.0"),
            ]),
            _ => {
                let mut w = layered_workload(&[]);
                w.spec.dags = DagSource::ForkJoin {
                    tasks,
                    width: rng.random_range(1..9),
                    ccr: 0.5,
                    task: TaskDraw::default(),
                };
                w
            }
        };
        let problem = w.instance(seed);
        assert_eq!(problem.len(), tasks);
        let bound = lower_bound_s(&problem);
        let mut builder = Builder::new(&problem);
        for order in [env_order(&problem), topological(&problem)] {
            let assignment: Vec<usize> = (0..problem.len())
                .map(|t| {
                    loop {
                        let g = rng.random_range(0..problem.gpus());
                        if problem.fits(t, g) {
                            break g;
                        }
                    }
                })
                .collect();
            let makespan = builder.play(&problem, &order, &assignment);
            builder
                .schedule()
                .validate(&problem)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(
                makespan >= bound * (1.0 - 1e-12),
                "seed {seed}: {makespan} < {bound}"
            );
        }
        let heft = heft_by_hand(&problem);
        heft.validate(&problem).unwrap();
        assert!(heft.makespan_s() >= bound * (1.0 - 1e-12));
    }
}

#[test]
fn validation_catches_an_early_start_and_an_overlap() {
    let (dag, platform) = topcuoglu_example();
    let problem = Problem::new(dag, &platform).unwrap();
    let good = heft_by_hand(&problem);
    let mut early = good.clone();
    // n2 before n1's data can reach it
    early.start[1] = 0.0;
    early.finish[1] = problem.exec_s(1, early.gpu[1]);
    assert!(
        early
            .validate(&problem)
            .unwrap_err()
            .to_string()
            .contains("before n1's data")
    );
    let mut overlap = good.clone();
    let (a, b) = (0..10)
        .flat_map(|a| (0..10).map(move |b| (a, b)))
        .find(|&(a, b)| {
            a != b && good.gpu[a] == good.gpu[b] && problem.preds(b).iter().all(|&(p, _)| p != a)
        })
        .unwrap();
    overlap.start[b] = overlap.start[a];
    overlap.finish[b] = overlap.start[b] + problem.exec_s(b, overlap.gpu[b]);
    assert!(overlap.validate(&problem).is_err());
}

#[test]
fn the_dag_env_keeps_the_contract_and_its_return_is_minus_the_makespan() {
    for name in ["dag-layered.toml", "dag-alibaba.toml"] {
        let w = Arc::new(DagWorkload::load(&shipped(name), &[]).unwrap());
        let env = DagEnv::new(Arc::clone(&w));
        let report = check_env(&env, CheckOptions::default()).unwrap();
        assert!(report.ended, "{name}: {report:?}");
        let mut env = env.fresh_copy();
        let (mut obs, _) = env.reset(5).unwrap();
        let space = env.action_space().clone();
        let mut total = 0.0;
        loop {
            // the GPU of least earliest finish: the EFT-gap feature is 0 there
            let gpu_group = env.observation_space().group("gpu").clone();
            let gpu = (0..space.choices(0))
                .filter(|&g| obs.action_mask[g])
                .min_by(|&a, &b| {
                    gpu_group.block(&obs.features, a)[5]
                        .total_cmp(&gpu_group.block(&obs.features, b)[5])
                })
                .unwrap();
            let step = env.step(&[gpu]).unwrap();
            total += step.reward;
            if let Some(m) = step.info.metrics.clone() {
                assert!((total + m.makespan_s).abs() < 1e-6 * m.makespan_s, "{name}");
                assert!((m.episode_return - total).abs() < 1e-9);
                assert!(
                    m.slr >= 1.0 - 1e-12 && m.gpu_utilisation <= 1.0 + 1e-12,
                    "{m:?}"
                );
                let problem = env.problem().unwrap().clone();
                env.schedule().unwrap().validate(&problem).unwrap();
                assert_eq!(m.makespan_s, heft_by_hand(&problem).makespan_s(), "{name}");
                break;
            }
            obs = step.observation;
        }
    }
}

/// With `ready_tasks = K` the env keeps the contract; choosing slot 0 (the env's next task)
/// with the least-EFT GPU plays HEFT's schedule, as the default interface does, and random
/// allowed (task, GPU) pairs place every task once in valid schedules at or above the lower
/// bound, the same seed the same way.
#[test]
fn choosing_among_ready_tasks_keeps_the_contract_and_slot_zero_is_heft() {
    for name in ["dag-layered.toml", "dag-alibaba.toml"] {
        let w = Arc::new(
            DagWorkload::load(&shipped(name), &[("ready_tasks".into(), "4".into())]).unwrap(),
        );
        let env = DagEnv::new(Arc::clone(&w));
        let report = check_env(&env, CheckOptions::default()).unwrap();
        assert!(report.ended, "{name}: {report:?}");
        let gpus = w.platform.gpus();
        let pairs = env.observation_space().group("task x gpu").clone();
        assert_eq!(pairs.count, 4 * gpus);
        assert_eq!(env.action_space().mask_len(), 4 * gpus);
        let mut env = env.fresh_copy();
        let play = |env: &mut DagEnv, seed: u64, choose: &mut dyn FnMut(&Observation) -> usize| {
            let (mut obs, _) = env.reset(seed).unwrap();
            loop {
                let step = env.step(&[choose(&obs)]).unwrap();
                if let Some(m) = step.info.metrics {
                    let problem = env.problem().unwrap().clone();
                    env.schedule().unwrap().validate(&problem).unwrap();
                    assert!(m.slr >= 1.0 - 1e-12, "{m:?}");
                    return (m.makespan_s, problem);
                }
                obs = step.observation;
            }
        };
        // slot 0's GPU of least EFT: the EFT-gap feature is 0 there
        let (makespan, problem) = play(&mut env, 5, &mut |obs| {
            (0..gpus)
                .filter(|&g| obs.action_mask[g])
                .min_by(|&a, &b| {
                    pairs.block(&obs.features, a)[5].total_cmp(&pairs.block(&obs.features, b)[5])
                })
                .unwrap()
        });
        assert_eq!(makespan, heft_by_hand(&problem).makespan_s(), "{name}");
        let random = |seed: u64| {
            let mut rng = StdRng::seed_from_u64(seed);
            move |obs: &Observation| loop {
                let a = rng.random_range(0..obs.action_mask.len());
                if obs.action_mask[a] {
                    break a;
                }
            }
        };
        let (first, _) = play(&mut env, 6, &mut random(1));
        let (again, _) = play(&mut env, 6, &mut random(1));
        assert_eq!(first, again);
        // a choice outside the window's allowed pairs is refused
        let (mut obs, _) = env.reset(7).unwrap();
        assert!(env.step(&[obs.action_mask.len()]).is_err());
        let refused = loop {
            if let Some(a) = obs.action_mask.iter().position(|&a| !a) {
                break a;
            }
            let allowed = obs.action_mask.iter().position(|&a| a).unwrap();
            obs = env.step(&[allowed]).unwrap().observation;
        };
        assert!(env.step(&[refused]).is_err(), "{name}");
    }
}

#[test]
fn alibaba_draws_hold_whole_trace_jobs_and_the_same_seed_gives_the_same_instance() {
    let w = DagWorkload::load(&shipped("dag-alibaba.toml"), &[]).unwrap();
    assert!(w.trace_jobs.len() > 1000, "{}", w.trace_jobs.len());
    assert!(
        w.notes.iter().any(|n| n.contains("DAG jobs")),
        "{:?}",
        w.notes
    );
    assert_eq!(w.platform.machines(), 6);
    let a = w.instance(3);
    let b = w.instance(3);
    let c = w.instance(4);
    assert!(a.len() >= 200 && a.len() <= w.max_tasks());
    assert_eq!(a.tasks, b.tasks);
    assert_ne!(a.tasks, c.tasks);
    // every task of a drawn job comes along: the tasks of a job are its trace job's
    for (j, name) in a.jobs.iter().enumerate() {
        let trace = w.trace_jobs.iter().find(|t| &t.name == name).unwrap();
        assert_eq!(
            a.tasks.iter().filter(|t| t.job == j).count(),
            trace.tasks.len()
        );
    }
    // data on an edge follows the CCR rule: within [0.5, 1.5] x ccr x the parent's mean time
    let per_mb = a.mean_per_mb_s();
    for t in 0..a.len() {
        for &(p, data) in a.preds(t) {
            let ratio = data * per_mb / (0.5 * a.tasks[p].work_s * mean_inverse_speed(&w.platform));
            assert!((0.5 - 1e-9..=1.5 + 1e-9).contains(&ratio), "{ratio}");
        }
    }
}

/// A period of the trace: only jobs arriving in `[arrival_from_s, arrival_until_s)` are drawn,
/// so a training period and a later one share no job; an empty or reversed period is refused
/// naming the key.
#[test]
fn an_arrival_period_draws_only_its_jobs() {
    let load = |overrides: &[(&str, &str)]| {
        let overrides: Vec<(String, String)> = overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        DagWorkload::load(&shipped("dag-alibaba-16gpu.toml"), &overrides)
    };
    let all = load(&[]).unwrap();
    let early = load(&[("dags.alibaba.arrival_until_s", "345600.0")]).unwrap();
    let later = load(&[("dags.alibaba.arrival_from_s", "345600.0")]).unwrap();
    assert_eq!(
        early.trace_jobs.len() + later.trace_jobs.len(),
        all.trace_jobs.len()
    );
    assert!(early.trace_jobs.iter().all(|j| j.arrival_s < 345600.0));
    assert!(later.trace_jobs.iter().all(|j| j.arrival_s >= 345600.0));
    assert!(
        later
            .notes
            .iter()
            .any(|n| n.contains("arrive in [345600, inf)"))
    );
    for seed in 0..20 {
        let names = |w: &DagWorkload| w.instance(seed).jobs;
        let (early_jobs, later_jobs) = (names(&early), names(&later));
        assert!(early_jobs.iter().all(|n| !later_jobs.contains(n)));
        assert!(
            later_jobs
                .iter()
                .all(|n| later.trace_jobs.iter().any(|j| &j.name == n))
        );
    }
    let empty = load(&[("dags.alibaba.arrival_from_s", "1e9")]).unwrap_err();
    assert!(
        empty.to_string().contains("dags.alibaba.arrival_from_s"),
        "{empty}"
    );
    let reversed = load(&[
        ("dags.alibaba.arrival_from_s", "10.0"),
        ("dags.alibaba.arrival_until_s", "5.0"),
    ])
    .unwrap_err();
    assert!(
        reversed
            .to_string()
            .contains("dags.alibaba.arrival_until_s"),
        "{reversed}"
    );
}

/// A mixed workload draws each episode from one of its two sources, the second with
/// probability `share`, the same seed the same way; share 0 and 1 take one source only.
#[test]
fn a_mix_draws_each_source_by_its_share() {
    let load = |share: &str| {
        DagWorkload::load(
            &shipped("dag-mixed.toml"),
            &[("mix.share".to_owned(), share.to_owned())],
        )
        .unwrap()
    };
    let from_trace = |w: &DagWorkload, seed: u64| {
        let jobs = w.instance(seed).jobs;
        jobs.iter()
            .all(|n| w.trace_jobs.iter().any(|j| &j.name == n))
            && !jobs.is_empty()
    };
    let half = load("0.5");
    let traced = (0..200).filter(|&s| from_trace(&half, s)).count();
    assert!((70..=130).contains(&traced), "{traced} of 200");
    for seed in 0..20 {
        assert_eq!(half.instance(seed).tasks, half.instance(seed).tasks);
        assert!(!from_trace(&load("0.0"), seed));
        assert!(from_trace(&load("1.0"), seed));
    }
    // the generated episodes are dag-layered's instances of 100 tasks
    assert!((0..20).any(|s| !from_trace(&half, s) && half.instance(s).len() == 100));
    assert!(half.max_tasks() >= 200);
    let err = DagWorkload::load(
        &shipped("dag-mixed.toml"),
        &[("mix.share".to_owned(), "1.5".to_owned())],
    )
    .unwrap_err();
    assert!(err.to_string().contains("mix.share"), "{err}");
}

fn mean_inverse_speed(platform: &Platform) -> f64 {
    (0..platform.gpus())
        .map(|g| 1.0 / platform.speed(g, "M"))
        .sum::<f64>()
        / platform.gpus() as f64
}
