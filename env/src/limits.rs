//! Upper bounds on every count and size read from input, checked before anything is built
//! from it, and the memory budget a run's estimated size is checked against. A workload
//! file's values are checked as the file and its overrides set them, key by key
//! ([`WORKLOAD_LIMITS`]); what grows with a product of counts (GPUs times tasks, copies
//! times rollout length) is estimated by the code that builds it and checked with
//! [`check_memory`]. The bounds sit far above any real cluster or trace the project models
//! (a few thousand machines, 8 or 16 GPUs each) and far below what would exhaust a machine.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{EnvError, Result};

/// The largest value a key may take. `key` is the dotted path with arrays of tables left
/// out (`platform.machines.gpus` is every `[[platform.machines]]`'s `gpus`), and also every
/// element where the value is an array (`job.hidden`).
#[derive(Debug, Clone, Copy)]
pub struct Limit {
    pub key: &'static str,
    pub max: f64,
}

const fn limit(key: &'static str, max: f64) -> Limit {
    Limit { key, max }
}

/// Machines in one group or cluster: 100 times a large real one (Philly's ~550, PAI's ~1,800).
const MACHINES: f64 = 100_000.0;
/// GPUs of one machine: eight times the largest real one.
const GPUS_PER_MACHINE: f64 = 128.0;
/// Cores and GB of memory of one machine or container.
const CORES: f64 = 16_384.0;
const MEM_GB: f64 = 1_048_576.0;
/// Tasks of one DAG: ten times the largest Alibaba v2018 job.
const DAG_TASKS: f64 = 100_000.0;

/// Every bounded key of a workload file, all kinds together (a key only one kind has is
/// checked in that kind's files; the others never hold it).
pub const WORKLOAD_LIMITS: &[Limit] = &[
    // jobs and single-job clusters
    limit("machines.count", MACHINES),
    limit("machines.gpus", GPUS_PER_MACHINE),
    limit("machines.cpu_cores", CORES),
    limit("machines.mem_gb", MEM_GB),
    limit("nodes.count", MACHINES),
    limit("nodes.gpus", GPUS_PER_MACHINE),
    limit("nodes.cpu_cores", CORES),
    limit("nodes.mem_gb", MEM_GB),
    limit("containers.cpu_cores", CORES),
    limit("containers.mem_gb", MEM_GB),
    limit("containers.gpus", GPUS_PER_MACHINE),
    // jobs: the observation's slots, the trace's requests, an episode's length
    limit("window.queued", 4_096.0),
    limit("window.running", 4_096.0),
    limit("episode.max_steps_per_decision", 1_000_000.0),
    limit("jobs.workers", 1_000_000.0),
    limit("jobs.gpu_milli", GPUS_PER_MACHINE * 1_000.0),
    limit("jobs.cpu_milli", CORES * 1_000.0),
    limit("jobs.mem_mib", MEM_GB * 1_024.0),
    limit("scaling.workers", 1_000_000.0),
    // DAGs
    limit("platform.machines.count", MACHINES),
    limit("platform.machines.gpus", GPUS_PER_MACHINE),
    limit("platform.pai.machines", MACHINES),
    limit("dags.layered.tasks", DAG_TASKS),
    limit("dags.layered.max_parents", DAG_TASKS),
    limit("dags.fork-join.tasks", DAG_TASKS),
    limit("dags.fork-join.width", DAG_TASKS),
    limit("dags.alibaba.tasks", DAG_TASKS),
    limit("mix.dags.layered.tasks", DAG_TASKS),
    limit("mix.dags.layered.max_parents", DAG_TASKS),
    limit("mix.dags.fork-join.tasks", DAG_TASKS),
    limit("mix.dags.fork-join.width", DAG_TASKS),
    limit("mix.dags.alibaba.tasks", DAG_TASKS),
    limit("ready_tasks", 4_096.0),
    // network of centres
    limit("centres.count", 1_024.0),
    limit("episode.iterations", 10_000_000.0),
    limit("flows.levels", 4_096.0),
    // single job: its run's length, model and data
    limit("episode.max_rounds", 10_000_000.0),
    limit("job.hidden", 65_536.0),
    limit("job.base_batch", 1_000_000.0),
    limit("job.local_steps", 1_000_000.0),
    limit("job.backup_workers", MACHINES),
    limit("job.tau", 1_000_000.0),
    limit("job.staleness_bound", 1_000_000.0),
    limit("job.dataset.features", 10_000_000.0),
    limit("job.dataset.validation_rows", 100_000_000.0),
];

/// Machines of a whole cluster or platform, every group together.
pub const TOTAL_MACHINES: f64 = MACHINES;
/// GPUs of a whole cluster or platform.
pub const TOTAL_GPUS: f64 = 1_048_576.0;

/// Refuses a total over several keys (machines of all groups) above `max`.
pub fn check_total(path: &Path, key: &str, what: &str, total: f64, max: f64) -> Result<()> {
    if total > max {
        return Err(EnvError::config(
            path,
            key,
            format!(
                "{total} {what} in all, above the limit of {max} (docs/workload-files.md, \"Limits\")"
            ),
        ));
    }
    Ok(())
}

/// The largest workload file read: inline job lists of a few hundred thousand rows fit; a
/// larger trace belongs in a Parquet job table.
pub const WORKLOAD_FILE_BYTES: u64 = 256 << 20;

/// Refuses a value of `table` above its limit, naming the key (with array positions) and
/// the value.
pub fn check_workload_table(path: &Path, table: &toml::Table) -> Result<()> {
    check_level(path, table, "", "")
}

fn check_level(path: &Path, table: &toml::Table, pattern: &str, shown: &str) -> Result<()> {
    for (key, value) in table {
        let pattern = join(pattern, key);
        let shown = join(shown, key);
        check_value(path, value, &pattern, &shown)?;
    }
    Ok(())
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

fn check_value(path: &Path, value: &toml::Value, pattern: &str, shown: &str) -> Result<()> {
    match value {
        toml::Value::Table(table) => check_level(path, table, pattern, shown),
        toml::Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| check_value(path, item, pattern, &format!("{shown}[{i}]"))),
        toml::Value::Integer(n) => check_number(path, *n as f64, pattern, shown),
        toml::Value::Float(x) => check_number(path, *x, pattern, shown),
        _ => Ok(()),
    }
}

fn check_number(path: &Path, value: f64, pattern: &str, shown: &str) -> Result<()> {
    match WORKLOAD_LIMITS.iter().find(|l| l.key == pattern) {
        Some(limit) if value > limit.max => Err(EnvError::config(
            path,
            shown,
            format!(
                "{value} is above the limit of {} for this key (docs/workload-files.md, \"Limits\")",
                limit.max
            ),
        )),
        _ => Ok(()),
    }
}

/// Refuses a file larger than `max_bytes` before reading it.
pub fn check_file_size(path: &Path, max_bytes: u64, what: &str) -> Result<()> {
    let bytes = std::fs::metadata(path)
        .map_err(|e| EnvError::io(path, e))?
        .len();
    if bytes > max_bytes {
        return Err(EnvError::config(
            path,
            "(file)",
            format!(
                "{} is larger than the {} a {what} may be",
                show_bytes(bytes),
                show_bytes(max_bytes)
            ),
        ));
    }
    Ok(())
}

/// Bytes as `12.3 GB`.
pub fn show_bytes(bytes: u64) -> String {
    let gb = bytes as f64 / 1e9;
    if gb >= 0.1 {
        format!("{gb:.1} GB")
    } else {
        format!("{:.1} MB", bytes as f64 / 1e6)
    }
}

/// The memory budget set for this process (`--memory-limit-gb`), or 0 for the default.
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(0);

/// Sets the memory budget estimates are checked against, for the rest of the process.
pub fn set_memory_limit(bytes: u64) {
    MEMORY_LIMIT.store(bytes, Ordering::Relaxed);
}

/// The memory budget: as set, else `SCHEDLAB_MEMORY_LIMIT_GB`, else half of what the
/// machine (or this process's memory cgroup, where smaller) has.
pub fn memory_limit() -> u64 {
    let set = MEMORY_LIMIT.load(Ordering::Relaxed);
    if set > 0 {
        return set;
    }
    if let Some(gb) = std::env::var("SCHEDLAB_MEMORY_LIMIT_GB")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|gb| *gb > 0.0)
    {
        return (gb * 1e9) as u64;
    }
    machine_memory().map_or(8 << 30, |bytes| bytes / 2)
}

/// Physical memory, or the memory cgroup's limit where it is lower.
fn machine_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let total_kb: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    let total = total_kb * 1024;
    let cgroup = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|f| std::fs::read_to_string(f).ok()?.trim().parse::<u64>().ok());
    Some(cgroup.map_or(total, |limit| limit.min(total)))
}

/// Refuses a run whose estimated memory is above the budget, naming the key that sets its
/// size, its value and the estimate.
pub fn check_memory(
    path: &Path,
    key: &str,
    value: impl std::fmt::Display,
    estimate: u64,
) -> Result<()> {
    let budget = memory_limit();
    if estimate > budget {
        return Err(EnvError::config(
            path,
            key,
            format!(
                "{value} needs about {} of memory, above the limit of {} (raise it with \
                 --memory-limit-gb or SCHEDLAB_MEMORY_LIMIT_GB)",
                show_bytes(estimate),
                show_bytes(budget)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> Option<(String, String)> {
        let table: toml::Table = toml::from_str(text).unwrap();
        match check_workload_table(Path::new("w.toml"), &table) {
            Ok(()) => None,
            Err(EnvError::Config { key, message, .. }) => Some((key, message)),
            Err(other) => panic!("{other}"),
        }
    }

    #[test]
    fn a_count_above_its_limit_is_named_with_its_position_and_value() {
        let text = "[platform]\n[[platform.machines]]\ngpus = 8\n[[platform.machines]]\ngpus = 4000000000\n";
        let (key, message) = refusal(text).unwrap();
        assert_eq!(key, "platform.machines[1].gpus");
        assert!(
            message.starts_with("4000000000 is above the limit of 128"),
            "{message}"
        );
        let (key, _) = refusal("[job]\nhidden = [64, 1e9]\n").unwrap();
        assert_eq!(key, "job.hidden[1]");
        let (key, _) = refusal("[dags.layered]\ntasks = 100000000\n").unwrap();
        assert_eq!(key, "dags.layered.tasks");
    }

    #[test]
    fn values_at_their_limits_and_unbounded_keys_pass() {
        assert_eq!(refusal("[dags.layered]\ntasks = 100000\n"), None);
        assert_eq!(refusal("[[machines]]\ngpus = 128\ncount = 100000\n"), None);
        assert_eq!(refusal("[episode]\nmax_time_s = 1e12\n"), None);
    }

    #[test]
    fn every_limit_names_a_distinct_key() {
        let mut keys: Vec<&str> = WORKLOAD_LIMITS.iter().map(|l| l.key).collect();
        keys.sort_unstable();
        let before = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), before);
    }

    #[test]
    fn an_estimate_above_the_budget_is_refused_naming_key_value_and_size() {
        let error =
            check_memory(Path::new("w.toml"), "dags.layered.tasks", 5, u64::MAX).unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("`dags.layered.tasks`: 5 needs about"),
            "{text}"
        );
        assert!(check_memory(Path::new("w.toml"), "k", 5, 1 << 20).is_ok());
    }
}
