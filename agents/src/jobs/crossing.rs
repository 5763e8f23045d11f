//! A test workload whose two jobs' fastest GPU models cross (shared by the jobs schedulers'
//! tests).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use schedlab_env::jobs::{JobsEnv, JobsWorkload};

use crate::context::{EnvContext, JobsContext};
use crate::registry;
use crate::rollout::run_episode;

pub const RECOMMENDATION: &str = "Recommendation (batch size 2048)";
pub const RESNET: &str = "ResNet-50 (batch size 64)";

pub fn matrix() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data/throughputs/gavel/simulation_throughputs.json")
}

/// A V100 machine (machine 0) and a P100 one, one GPU each; a recommendation job and then
/// a ResNet-50 one, whose faster models cross (P100 and V100), 100 s each on the reference
/// V100.
pub fn crossing(interface: &str) -> JobsWorkload {
    let machine = |model: &str| {
        format!(
            "[[machines]]\nname = \"{model}\"\ncount = 1\ncpu_cores = 8.0\nmem_gb = 16.0\ngpus = 1\ngpu_model = \"{model}\"\n"
        )
    };
    let template = |name: &str, job_type: &str| {
        format!(
            "[[templates]]\nname = \"{name}\"\ncontention = 0.0\nsize_exponent = 1.0\nutilisation = [0.5, 0.5, 0.5]\njob_type = \"{job_type}\"\n"
        )
    };
    let job = |id: &str, template: &str| {
        format!(
            "[[jobs]]\nid = \"{id}\"\narrival_s = 0.0\nduration_s = 100.0\nworkers = 1\ncpu_milli = 1000\nmem_mib = 1024\ngpu_milli = 1000\ntemplate = \"{template}\"\n"
        )
    };
    let text = format!(
        "kind = \"jobs\"\nname = \"crossing\"\n[episode]\ndecision_interval_s = 0.0\nmax_time_s = 100000.0\nspeed_sigma = 0.0\n[window]\nqueued = 2\nrunning = 2\ninterface = \"{interface}\"\n[heterogeneity]\nthroughputs = {:?}\nreference_model = \"v100\"\n[heterogeneity.models]\nV100 = {{ measured = \"v100\" }}\nP100 = {{ measured = \"p100\" }}\n{}{}{}{}{}{}",
        matrix().display().to_string(),
        machine("V100"),
        machine("P100"),
        template("rec", RECOMMENDATION),
        template("resnet", RESNET),
        job("a", "rec"),
        job("b", "resnet"),
    );
    // one file per call: tests may run side by side in one process
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let file = std::env::temp_dir().join(format!("crossing-{}-{call}.toml", std::process::id()));
    std::fs::write(&file, text).unwrap();
    let w = JobsWorkload::load(&file, &[]).unwrap();
    std::fs::remove_file(&file).unwrap();
    w
}

pub fn play(policy: &str, interface: &str) -> Vec<f64> {
    let mut env = JobsEnv::new(Arc::new(crossing(interface)));
    let ctx = EnvContext::Jobs(JobsContext::of(&env));
    let mut policy = registry::build(policy, &ctx, &[]).unwrap();
    let m = run_episode(&mut env, policy.as_mut(), 0).unwrap();
    assert_eq!(m.finished, 2);
    env.completion_times()
}
