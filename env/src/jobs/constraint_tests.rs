//! GPU-model constraints (`gpu_models` of a job): the mask and the forced starts keep a
//! constrained job off other models, and a constraint no machine can meet is named at load.

use std::path::Path;
use std::sync::Arc;

use super::tests::{job, play, workload};
use super::*;

/// One `T4` and one `P100` machine of one GPU each; every job wants one whole GPU.
fn two_models(jobs: Vec<JobRecord>) -> JobsWorkload {
    // `workload` validates on unlabelled machines: the constraints come back after
    let constraints: Vec<Vec<String>> = jobs.iter().map(|j| j.gpu_models.clone()).collect();
    let mut w = workload(
        jobs.into_iter()
            .map(|j| JobRecord {
                gpu_models: Vec::new(),
                ..j
            })
            .collect(),
        1,
        1,
    );
    for (j, models) in w.jobs.iter_mut().zip(constraints) {
        j.gpu_models = models;
    }
    let base = w.machines[0].clone();
    w.machines = ["T4", "P100"]
        .map(|model| MachineSpec {
            gpu_model: model.into(),
            ..base.clone()
        })
        .to_vec();
    w
}

fn on(models: &[&str], mut j: JobRecord) -> JobRecord {
    j.gpu_models = models.iter().map(|m| (*m).into()).collect();
    j
}

/// `a` takes the P100 first; `b`, constrained to it, waits for it though the T4 is idle, and
/// the forced starts of the work-conserving window leave it waiting as well.
#[test]
fn a_constrained_job_waits_for_its_model_while_another_is_idle() {
    let w = two_models(vec![
        on(&["P100"], job("a", 0.0, 100.0, 1, 1000)),
        on(&["P100"], job("b", 0.0, 50.0, 1, 1000)),
        job("c", 0.0, 10.0, 1, 1000),
    ]);
    assert!(w.window.work_conserving);
    let mut env = JobsEnv::new(Arc::new(w));
    let m = play(&mut env, 0);
    let jct = env.completion_times();
    assert_eq!(m.finished, 3);
    assert_eq!(jct, vec![100.0, 150.0, 10.0], "{m:?}");
}

#[test]
fn a_constraint_no_machine_meets_is_named_at_load() {
    let unknown = two_models(vec![on(&["A100"], job("a", 0.0, 10.0, 1, 1000))]);
    let e = unknown
        .validate(Path::new("w.toml"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("jobs[0] (id a).gpu_models") && e.contains("`A100`") && e.contains("T4"),
        "{e}"
    );
    // two GPUs in one container fit the P100 machine of two, not the T4 of one
    let mut roomy = two_models(vec![on(&["T4"], job("a", 0.0, 10.0, 1, 1000))]);
    roomy.machines[1].gpus = 2;
    roomy.jobs[0].gpu_milli = 2000;
    let e = roomy.validate(Path::new("w.toml")).unwrap_err().to_string();
    assert!(
        e.contains("gpu_models") && e.contains("fits on no machine of the models T4"),
        "{e}"
    );
}
