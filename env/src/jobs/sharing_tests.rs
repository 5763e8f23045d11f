//! GPU sharing at the matrix's pair throughputs: the speeds in a pair read from the file,
//! the pairs it marks as not fitting kept apart, and the partner's speed-up when one leaves.

use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::heterogeneity::ModelSpeeds;
use super::heterogeneity_tests::{TYPES, figure, heterogeneous, matrix_path};
use super::tests::{conserved_under_random_actions, job, play, random_allowed, random_workload};
use super::*;

/// The file's pair figure: steps/s of `job_type` and of `other` sharing one GPU of `model`.
fn pair_figure(model: &str, job_type: &str, other: &str) -> (f64, f64) {
    static FILE: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    let root = FILE.get_or_init(|| {
        serde_json::from_str(&std::fs::read_to_string(matrix_path()).unwrap()).unwrap()
    });
    let pair = &root[model][format!("('{job_type}', 1)")][format!("('{other}', 1)")];
    let at = |k: usize| {
        pair[k]
            .as_f64()
            .unwrap_or_else(|| panic!("{model} {job_type} {other}"))
    };
    (at(0), at(1))
}

const HALF: [u32; 3] = [1000, 1024, 500];

/// Two half-GPU containers placed best-fit within `label`'s machines, of jobs 0 and 1
/// of templates `a` and `b`: both land on one GPU.
fn share(w: &JobsWorkload, label: &str, a: usize, b: usize) -> (Cluster, Container, Container) {
    let speeds = ModelSpeeds::resolve(w, w.heterogeneity.as_ref().unwrap()).unwrap();
    let mut cluster =
        Cluster::new(&w.machines, &[HALF]).with_sharing(speeds.sharing_rules().unwrap());
    let models = cluster.models(&[label.to_owned()]).unwrap();
    let mut put = |job: u32, kind: usize| {
        let within = Within {
            models,
            sharer: Some(Sharer {
                job,
                kind: kind as u16,
            }),
        };
        cluster.place(HALF, 1, Placement::BestFit, within).unwrap()[0]
    };
    let (first, second) = (put(0, a), put(1, b));
    (cluster, first, second)
}

#[test]
fn a_jobs_speed_sharing_a_gpu_is_the_matrixs_pair_figure_over_the_reference() {
    let w = heterogeneous(vec![job("a", 0.0, 10.0, 1, 500)]);
    w.validate(Path::new("het.toml")).unwrap();
    let speeds = ModelSpeeds::resolve(&w, w.heterogeneity.as_ref().unwrap()).unwrap();
    // (machines' label, model in the file, factor, templates sharing)
    let cases = [
        ("K80", "k80", 1.0, 0, 1),
        ("K80", "k80", 1.0, 1, 1),
        ("K80", "k80", 1.0, 3, 2),
        ("K80", "k80", 1.0, 2, 2),
        ("P100", "p100", 1.0, 0, 0),
        ("P100", "p100", 1.0, 0, 2),
        ("P100", "p100", 1.0, 1, 3),
        ("V100", "v100", 1.0, 0, 1),
        ("V100", "v100", 1.0, 2, 3),
        ("V100", "v100", 1.0, 3, 3),
        ("T4", "p100", 0.871, 2, 1),
        ("T4", "p100", 0.871, 3, 0),
    ];
    for (label, model, factor, a, b) in cases {
        let (cluster, first, second) = share(&w, label, a, b);
        assert_eq!(
            (first.machine, first.gpu_take),
            (second.machine, second.gpu_take),
            "one GPU"
        );
        let (here, there) = pair_figure(model, TYPES[a], TYPES[b]);
        assert!(here > 0.0 && there > 0.0, "{model}: the pair fits");
        for (template, container, measured) in [(a, first, here), (b, second, there)] {
            let got = speeds.factor(template, &[container])
                * speeds.sharing_factor(&cluster, template, &[container]);
            let expected = factor * measured / figure("v100", TYPES[template], 1);
            assert!(
                (got - expected).abs() < 1e-12,
                "{} beside the other on {label}: {got} against {expected}",
                TYPES[template]
            );
        }
        // alone on its GPU a job runs at its speed alone
        let (mut cluster, first, second) = share(&w, label, a, b);
        cluster.release(&second);
        assert_eq!(speeds.sharing_factor(&cluster, a, &[first]), 1.0);
    }
}

#[test]
fn a_pair_the_matrix_marks_as_not_fitting_never_shares_a_gpu() {
    // ResNet-50 and Transformer are 0.0 together on a K80, and fit on a P100
    assert_eq!(pair_figure("k80", TYPES[0], TYPES[2]), (0.0, 0.0));
    let mut w = heterogeneous(vec![
        job("r", 0.0, 100.0, 1, 500),
        job("t", 0.0, 100.0, 1, 500),
    ]);
    w.jobs[1].template = "t2".into();
    w.machines = vec![w.machines[0].clone(), w.machines[1].clone()];
    for m in &mut w.machines {
        (m.count, m.gpus) = (1, 1);
    }
    w.jobs
        .iter_mut()
        .for_each(|j| j.gpu_models = vec!["K80".into()]);
    w.validate(Path::new("het.toml")).unwrap();
    let mut env = JobsEnv::new(Arc::new(w.clone()));
    let m = play(&mut env, 0);
    // one after the other on the K80's one GPU, though half of it stays free
    let alone = |t: usize| 100.0 * figure("v100", TYPES[t], 1) / figure("k80", TYPES[t], 1);
    // in queue order: ResNet-50 first, the Transformer when it is done
    let expected = (2.0 * alone(0) + alone(2)) / 2.0;
    assert!(
        (m.jct_avg_s - expected).abs() < 1e-6 * expected,
        "{} against {expected}",
        m.jct_avg_s
    );
    // on the P100 they share
    w.jobs
        .iter_mut()
        .for_each(|j| j.gpu_models = vec!["P100".into()]);
    let mut env = JobsEnv::new(Arc::new(w));
    let (observation, _) = env.reset(0).unwrap();
    let space = env.action_space().clone();
    let scaling = &env.workload().scaling;
    let mut action = vec![0; space.dims()];
    for slot in 0..space.units() {
        action[space.dim(slot, observe::FIELD_SIZE)] = scaling.requested_size_level();
    }
    for slot in 0..2 {
        action[space.dim(slot, observe::FIELD_WORKERS)] = scaling.requested_workers_level();
    }
    for (d, level) in action.iter().enumerate() {
        assert!(
            observation.allowed(&space, d).contains(level),
            "dimension {d}"
        );
    }
    env.step(&action).unwrap();
    assert_eq!(env.machines_of(0), env.machines_of(1));
    assert_eq!(env.machines_of(0), vec![1]);
}

#[test]
fn when_a_partner_finishes_the_job_left_on_the_gpu_speeds_up_to_its_speed_alone() {
    // two half-GPU jobs on one V100 (the reference): each at its pair speed until the first
    // finishes, the other alone after
    let mut w = heterogeneous(vec![
        job("r", 0.0, 100.0, 1, 500),
        job("t", 0.0, 200.0, 1, 500),
    ]);
    w.jobs[1].template = "t2".into();
    w.machines = vec![w.machines[2].clone()];
    (w.machines[0].count, w.machines[0].gpus) = (1, 1);
    w.validate(Path::new("het.toml")).unwrap();
    let (here, there) = pair_figure("v100", TYPES[0], TYPES[2]);
    let rates = [
        here / figure("v100", TYPES[0], 1),
        there / figure("v100", TYPES[2], 1),
    ];
    let work = [100.0, 200.0];
    let first = if work[0] / rates[0] <= work[1] / rates[1] {
        0
    } else {
        1
    };
    let t1 = work[first] / rates[first];
    let t2 = t1 + (work[1 - first] - t1 * rates[1 - first]);
    let m = play(&mut JobsEnv::new(Arc::new(w.clone())), 0);
    assert!(
        (m.jct_avg_s - (t1 + t2) / 2.0).abs() < 1e-6,
        "{} against {}",
        m.jct_avg_s,
        (t1 + t2) / 2.0
    );
    // with pairs off they run at their speeds alone
    w.heterogeneity.as_mut().unwrap().pairs = false;
    let m = play(&mut JobsEnv::new(Arc::new(w)), 0);
    assert!((m.jct_avg_s - 150.0).abs() < 1e-9, "{}", m.jct_avg_s);
}

/// The model in the file each machine of [`heterogeneous`] runs as.
fn measured_of(label: &str) -> &'static str {
    match label {
        "K80" => "k80",
        "V100" => "v100",
        _ => "p100",
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Under random actions on shared GPUs, the env's invariants hold (tests.rs) and no GPU
    /// ever holds two jobs whose pair the matrix marks as not fitting.
    #[test]
    fn jobs_sharing_a_gpu_always_fit_together(seed in 0u64..10_000) {
        let mut rng = StdRng::seed_from_u64(seed);
        let random = random_workload(&mut rng);
        let mut w = heterogeneous(random.jobs.clone());
        w.episode = random.episode.clone();
        for machine in &mut w.machines {
            machine.gpus = 1;
        }
        for j in &mut w.jobs {
            j.template = format!("t{}", rng.random_range(0..TYPES.len()));
            j.gpu_milli = j.gpu_milli.min([250, 500][rng.random_range(0..2)]);
        }
        w.validate(Path::new("het.toml")).unwrap();
        let w = Arc::new(w);
        conserved_under_random_actions(w.clone(), seed, &mut rng)?;
        let labels: Vec<&str> = w
            .machines
            .iter()
            .flat_map(|m| std::iter::repeat_n(m.gpu_model.as_str(), m.count))
            .collect();
        let mut env = JobsEnv::new(w.clone());
        let (mut observation, _) = env.reset(seed).unwrap();
        let space = env.action_space().clone();
        loop {
            let step = env.step(&random_allowed(&space, &observation, &mut rng)).unwrap();
            // per GPU, its jobs and their templates
            let mut on_gpu: std::collections::BTreeMap<(u32, usize), Vec<(usize, usize)>> =
                Default::default();
            for (k, job) in w.jobs.iter().enumerate() {
                let template: usize = job.template[1..].parse().unwrap();
                for c in env.containers_of(k) {
                    for gpu in (0..MAX_GPUS).filter(|&g| c.gpu_take[g] > 0) {
                        on_gpu.entry((c.machine, gpu)).or_default().push((k, template));
                    }
                }
            }
            for ((machine, _), jobs) in &on_gpu {
                let model = measured_of(labels[*machine as usize]);
                for (x, &(j, a)) in jobs.iter().enumerate() {
                    for &(_, b) in jobs[x + 1..].iter().filter(|(other, _)| *other != j) {
                        let (here, there) = pair_figure(model, TYPES[a], TYPES[b]);
                        prop_assert!(here > 0.0 && there > 0.0, "{} beside {} on {model}", TYPES[a], TYPES[b]);
                    }
                }
            }
            if step.info.metrics.is_some() {
                break;
            }
            observation = step.observation;
        }
    }
}
