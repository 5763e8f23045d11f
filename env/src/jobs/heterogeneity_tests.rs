//! `[heterogeneity]` against Gavel's matrix as the file holds it (read here with serde_json,
//! apart from `throughputs.rs`), and the faults it refuses by name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::heterogeneity::ModelSpeeds;
use super::tests::{
    conserved_under_random_actions, job, play, random_workload, template, workload,
};
use super::throughputs::Throughputs;
use super::*;

pub(super) fn matrix_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/throughputs/gavel/simulation_throughputs.json")
}

/// The file's own figure: steps/s of `job_type` alone on `gpus` GPUs of `model`.
pub(super) fn figure(model: &str, job_type: &str, gpus: u32) -> f64 {
    let text = std::fs::read_to_string(matrix_path()).unwrap();
    let root: serde_json::Value = serde_json::from_str(&text).unwrap();
    root[model][format!("('{job_type}', {gpus})")]["null"]
        .as_f64()
        .unwrap_or_else(|| panic!("{model} {job_type} {gpus}"))
}

pub(super) const TYPES: [&str; 4] = [
    "ResNet-50 (batch size 64)",
    "Recommendation (batch size 2048)",
    "Transformer (batch size 128)",
    "A3C",
];
const T4_FACTOR: f64 = 0.871;

/// Machines 0-1 K80, 2-3 P100, 4-5 V100, 6 T4 (as a P100 at `T4_FACTOR`), 8 GPUs each; one
/// template per job type of `TYPES`, v100 the reference.
pub(super) fn heterogeneous(jobs: Vec<JobRecord>) -> JobsWorkload {
    let mut w = workload(jobs, 1, 8);
    let base = w.machines[0].clone();
    w.machines = [("K80", 2), ("P100", 2), ("V100", 2), ("T4", 1)]
        .map(|(model, count)| MachineSpec {
            name: model.to_lowercase(),
            count,
            gpu_model: model.into(),
            ..base.clone()
        })
        .to_vec();
    w.templates = TYPES
        .iter()
        .enumerate()
        .map(|(k, job_type)| Template {
            job_type: Some((*job_type).into()),
            ..template(&format!("t{k}"), 0.0)
        })
        .collect();
    let models: BTreeMap<String, ModelMapping> = [
        ("K80", "k80", 1.0),
        ("P100", "p100", 1.0),
        ("V100", "v100", 1.0),
        ("T4", "p100", T4_FACTOR),
    ]
    .into_iter()
    .map(|(name, measured, factor)| {
        let mapping = ModelMapping {
            measured: measured.into(),
            factor,
            why: String::new(),
        };
        (name.to_owned(), mapping)
    })
    .collect();
    w.heterogeneity = Some(Heterogeneity {
        throughputs: "gavel.json".into(),
        reference_model: "v100".into(),
        models,
        pairs: true,
        matrix: Some(Arc::new(Throughputs::read(&matrix_path()).unwrap())),
    });
    for j in &mut w.jobs {
        j.template = "t0".into();
    }
    w
}

/// `gpus` whole GPUs on `machine`, as one container.
fn on(machine: u32, gpus: usize) -> Container {
    let mut gpu_take = [0; MAX_GPUS];
    gpu_take[..gpus].fill(1000);
    Container {
        machine,
        cpu: 1000,
        mem: 1024,
        gpu_take,
        sharer: None,
    }
}

#[test]
fn a_jobs_speed_on_each_model_and_gpu_count_is_the_matrixs_ratio_to_the_reference() {
    let w = heterogeneous(vec![job("a", 0.0, 10.0, 1, 1000)]);
    w.validate(Path::new("het.toml")).unwrap();
    let speeds = ModelSpeeds::resolve(&w, w.heterogeneity.as_ref().unwrap()).unwrap();
    // (template, containers, model in the file, GPU count it is measured at, factor)
    let cases: Vec<(usize, Vec<Container>, &str, u32, f64)> = vec![
        (0, vec![on(0, 1)], "k80", 1, 1.0),
        (0, vec![on(2, 1)], "p100", 1, 1.0),
        (0, vec![on(4, 1)], "v100", 1, 1.0),
        (0, vec![on(2, 2)], "p100", 2, 1.0),
        (0, vec![on(2, 4)], "p100", 4, 1.0),
        (0, vec![on(0, 8)], "k80", 8, 1.0),
        (0, vec![on(2, 2), on(2, 1)], "p100", 2, 1.0),
        (0, vec![on(2, 2), on(3, 2)], "p100_unconsolidated", 4, 1.0),
        (2, vec![on(4, 2), on(5, 2)], "v100_unconsolidated", 4, 1.0),
        (2, vec![on(6, 4)], "p100", 4, T4_FACTOR),
        (1, vec![on(2, 1)], "p100", 1, 1.0),
        (1, vec![on(2, 4)], "p100", 1, 1.0),
        (3, vec![on(1, 1)], "k80", 1, 1.0),
        (3, vec![on(6, 1)], "p100", 1, T4_FACTOR),
    ];
    for (t, containers, model, gpus, factor) in cases {
        // types measured at 1 GPU only keep their 1-GPU ratio at any count
        let reference = figure("v100", TYPES[t], gpus);
        let expected = factor * figure(model, TYPES[t], gpus) / reference;
        let got = speeds.factor(t, &containers);
        assert!(
            (got - expected).abs() < 1e-12,
            "{} on {model} x{gpus}: {got} against {expected}",
            TYPES[t]
        );
    }
    // the rankings cross: recommendation is faster on a P100, ResNet-50 on a V100
    assert!(speeds.factor(1, &[on(2, 1)]) > 1.0);
    assert!(speeds.factor(0, &[on(2, 1)]) < 1.0);
    // a job on two models runs at the slower one's speed (the file has no spread K80 figure
    // of ResNet-50 at 2 GPUs, so the packed one stands); no GPUs, at the reference speed
    let mixed = speeds.factor(0, &[on(0, 1), on(4, 1)]);
    assert_eq!(
        mixed,
        figure("k80", TYPES[0], 2) / figure("v100", TYPES[0], 2)
    );
    assert_eq!(speeds.factor(0, &[on(0, 0)]), 1.0);
}

#[test]
fn a_job_on_a_p100_finishes_in_its_duration_times_the_matrixs_ratio() {
    let mut w = heterogeneous(vec![job("a", 0.0, 100.0, 1, 1000)]);
    w.jobs[0].template = "t1".into();
    w.machines = vec![w.machines[1].clone()];
    w.validate(Path::new("het.toml")).unwrap();
    let m = play(&mut JobsEnv::new(Arc::new(w)), 0);
    let expected = 100.0 * figure("v100", TYPES[1], 1) / figure("p100", TYPES[1], 1);
    assert!(
        (m.jct_avg_s - expected).abs() < 1e-6,
        "{m:?} against {expected}"
    );
}

#[test]
fn an_unmapped_model_a_template_without_a_type_and_an_unknown_type_are_named() {
    let refusal = |w: &JobsWorkload| w.validate(Path::new("het.toml")).unwrap_err().to_string();
    let mut w = heterogeneous(vec![job("a", 0.0, 10.0, 1, 1000)]);
    w.machines[3].gpu_model = "G2".into();
    let e = refusal(&w);
    assert!(
        e.contains("machines[3].gpu_model") && e.contains("`G2`"),
        "{e}"
    );

    let mut w = heterogeneous(vec![job("a", 0.0, 10.0, 1, 1000)]);
    w.templates[0].job_type = None;
    let e = refusal(&w);
    assert!(
        e.contains("templates[0].job_type") && e.contains("`t0`"),
        "{e}"
    );

    let mut w = heterogeneous(vec![job("a", 0.0, 10.0, 1, 1000)]);
    w.templates[2].job_type = Some("ResNet-51".into());
    let e = refusal(&w);
    assert!(
        e.contains("templates[2].job_type") && e.contains("ResNet-51"),
        "{e}"
    );

    let mut w = heterogeneous(vec![job("a", 0.0, 10.0, 1, 1000)]);
    w.heterogeneity
        .as_mut()
        .unwrap()
        .models
        .get_mut("T4")
        .unwrap()
        .measured = "t4".into();
    let e = refusal(&w);
    assert!(e.contains("heterogeneity.models.T4.measured"), "{e}");

    let mut w = heterogeneous(vec![job("a", 0.0, 10.0, 1, 1000)]);
    w.fidelity = Fidelity::Trained;
    for t in &mut w.templates {
        (t.workload, t.time_at_one_s) = ("job.toml".into(), 10.0);
    }
    let e = refusal(&w);
    assert!(
        e.contains("heterogeneity") && e.contains("surrogate"),
        "{e}"
    );
}

#[test]
fn a_workload_file_reads_its_matrix_beside_it_and_refuses_unknown_keys() {
    let folder = std::env::temp_dir().join(format!("schedlab-het-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut w = heterogeneous(vec![job("a", 0.0, 10.0, 1, 1000)]);
    w.heterogeneity.as_mut().unwrap().throughputs = matrix_path().display().to_string();
    let file = folder.join("het.toml");
    std::fs::write(&file, toml::to_string(&w).unwrap()).unwrap();
    let loaded = JobsWorkload::load(&file, &[]).unwrap();
    assert_eq!(loaded.heterogeneity, w.heterogeneity);

    let text = std::fs::read_to_string(&file).unwrap();
    let typo = text.replace("reference_model", "reference_modell");
    std::fs::write(&file, typo).unwrap();
    let e = JobsWorkload::load(&file, &[]).unwrap_err().to_string();
    assert!(e.contains("reference_modell"), "{e}");
    std::fs::remove_dir_all(&folder).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// On machines of four GPU models, with each job's type drawn and half the jobs
    /// constrained to some models: capacity and jobs are conserved, time never goes back, the
    /// return is minus the total JCT, no job beats its lower bound at its fastest model, and a
    /// constrained job never runs on another model (tests.rs says each check).
    #[test]
    fn the_envs_invariants_hold_on_gpu_models(seed in 0u64..10_000) {
        let mut rng = StdRng::seed_from_u64(seed);
        let random = random_workload(&mut rng);
        let mut w = heterogeneous(random.jobs.clone());
        w.episode = random.episode.clone();
        for machine in &mut w.machines {
            machine.gpus = 2;
        }
        let models = ["K80", "P100", "V100", "T4"];
        for j in &mut w.jobs {
            j.template = format!("t{}", rng.random_range(0..TYPES.len()));
            // half the jobs may run on one or two models only
            if rng.random_bool(0.5) {
                let first = rng.random_range(0..models.len());
                j.gpu_models = vec![models[first].into()];
                if rng.random_bool(0.5) {
                    j.gpu_models.push(models[(first + 1) % models.len()].into());
                }
            }
        }
        w.validate(Path::new("het.toml")).unwrap();
        conserved_under_random_actions(Arc::new(w), seed, &mut rng)?;
    }
}
