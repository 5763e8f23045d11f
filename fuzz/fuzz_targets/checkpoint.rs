//! A run folder's checkpoint (the `model-STEP.bpk` file `eval`, `--resume` and the shipped-policy
//! loader read): any bytes as the weights of a copy of the shipped `dag-ddqn` policy, loaded
//! for the DAG workload it plays, without a panic.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use schedlab_env::dag::DagEnv;
use schedlab_experiments::play::make_policy;
use schedlab_experiments::workloads::{Dag, Kind};

#[path = "scratch.rs"]
mod scratch;

/// A copy of the shipped run folder and the name of its weights file.
fn run_folder() -> &'static (PathBuf, PathBuf) {
    static RUN: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    RUN.get_or_init(|| {
        let shipped = scratch::shipped("policies/dag-ddqn");
        let copy = scratch::folder().join("dag-ddqn");
        std::fs::create_dir_all(&copy).expect("a scratch run folder");
        let mut weights = None;
        for entry in std::fs::read_dir(&shipped).expect("the shipped policy") {
            let entry = entry.expect("a shipped file");
            std::fs::copy(entry.path(), copy.join(entry.file_name())).expect("a copy");
            if entry.path().extension().is_some_and(|e| e == "bpk") {
                weights = Some(copy.join(entry.file_name()));
            }
        }
        (copy, weights.expect("a checkpoint in the shipped policy"))
    })
}

fn env() -> &'static DagEnv {
    static ENV: OnceLock<DagEnv> = OnceLock::new();
    ENV.get_or_init(|| {
        let path = scratch::shipped("workloads/dag-alibaba-16gpu.toml");
        let loaded = schedlab_experiments::workloads::load(&path, &[]).expect("a shipped workload");
        let dag: &Dag = loaded
            .expect("fuzz", Path::new("dag"))
            .expect("a DAG workload");
        dag.env()
    })
}

fuzz_target!(|data: &[u8]| {
    scratch::quiet_caught_panics();
    let (folder, weights) = run_folder();
    std::fs::write(weights, data).expect("scratch weights");
    let _ = make_policy(&folder.to_string_lossy(), env(), &[]);
});
