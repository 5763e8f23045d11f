//! Small workloads over the shipped datasets, written to temporary files for tests.

use std::path::PathBuf;
use std::sync::Arc;

use crate::single_job::scenario::Scenario;

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// Two CPU nodes, fast (speed 2) and slow (speed 0.5), softmax on digits, no noise, no
/// background load. `job_extra` lines are added to `[job]`.
pub fn two_node_workload(optimizer: &str, job_extra: &str) -> String {
    format!(
        r#"name = "two-node"
[episode]
round_interval_s = 5.0
max_rounds = 8
max_time_s = 40.0
[containers]
cpu_cores = [1, 2, 4]
mem_gb = [2, 4]
[sim]
straggler_sigma = 0.0
straggler_prob = 0.0
[[nodes]]
name = "fast"
cpu_cores = 4
mem_gb = 8
speed = 2.0
bandwidth_gbps = 10
[[nodes]]
name = "slow"
cpu_cores = 4
mem_gb = 8
speed = 0.5
bandwidth_gbps = 10
[background]
source = "none"
[job]
model = "softmax"
optimizer = "{optimizer}"
lr = 0.1
base_batch = 16
target_loss = 0.05
sample_gflop = 1.0
model_mb = 10.0
sample_mem_mb = 10.0
{job_extra}
[job.dataset]
format = "csv"
path = "{}/datasets/digits/digits.csv.gz"
task = "classification"
label = "target"
"#,
        data_dir().display()
    )
}

/// Writes `text` to a temporary workload file named by its content: one folder for every
/// test run, one file per distinct text (a folder per call left thousands behind), written
/// whole and renamed so that test processes writing the same text at once agree.
pub fn write_workload(text: &str) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    let dir = std::env::temp_dir().join("schedlab-env-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{:016x}.toml", hasher.finish()));
    let temporary = dir.join(format!(
        "{:016x}.{}.tmp",
        hasher.finish(),
        std::process::id()
    ));
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, &path).unwrap();
    path
}

pub fn scenario(text: &str) -> Arc<Scenario> {
    Scenario::load(&write_workload(text)).unwrap()
}
