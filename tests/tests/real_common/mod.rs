//! What the real-execution tests share: whether cgroups can be written here, reading a
//! run's groups back from their files, and driving a job's run to its end or a preemption.

// each test file uses some of these
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use schedlab_env::Scenario;
use schedlab_env::real::cgroup::Hierarchy;
use schedlab_env::real::jobs::checkpoint::Checkpoint;
use schedlab_env::real::jobs::job_run::{Event, JobPlan, JobRun};
use schedlab_tests::workload;

/// The hierarchy, or `None` (with the reason printed) where real execution cannot run here.
pub fn cgroups_or_skip() -> Option<Hierarchy> {
    let probe = Hierarchy::detect(None).and_then(|h| {
        let group = h.create_run(u64::MAX)?;
        group.remove()?;
        Ok(h)
    });
    match probe {
        Ok(h) => {
            // SAFETY: nextest runs each test in a process of its own, and this is set before
            // any thread of the test reads the environment
            unsafe { std::env::set_var("SCHEDLAB_BIN", env!("CARGO_BIN_EXE_schedlab")) };
            Some(h)
        }
        Err(e) => {
            eprintln!("skipped: real execution is not possible on this machine: {e}");
            None
        }
    }
}

pub fn cpu_base(h: &Hierarchy) -> &Path {
    match h {
        Hierarchy::V2 { base } => base,
        Hierarchy::V1 { cpu, .. } => cpu,
    }
}

/// The run folders of process `pid` under the `cpu` base.
pub fn run_folders(h: &Hierarchy, pid: u32) -> Vec<PathBuf> {
    let prefix = format!("schedlab-{pid}-");
    std::fs::read_dir(cpu_base(h))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .trim()
        .to_owned()
}

/// The CPU limit in a group's files, cores.
pub fn cores_in(h: &Hierarchy, group: &Path) -> f64 {
    cpu_limit_in(h, group).unwrap_or_else(|| panic!("{}: no CPU limit", group.display()))
}

/// The CPU limit in a group's files, cores, or `None` where it has none.
pub fn cpu_limit_in(h: &Hierarchy, group: &Path) -> Option<f64> {
    let (quota, period) = match h {
        Hierarchy::V2 { .. } => {
            let text = read(&group.join("cpu.max"));
            let (quota, period) = text.split_once(' ').unwrap();
            (quota.to_owned(), period.to_owned())
        }
        Hierarchy::V1 { .. } => (
            read(&group.join("cpu.cfs_quota_us")),
            read(&group.join("cpu.cfs_period_us")),
        ),
    };
    if quota == "max" || quota == "-1" {
        return None;
    }
    Some(quota.parse::<f64>().unwrap() / period.parse::<f64>().unwrap())
}

pub fn memory_in(h: &Hierarchy, group_name: &Path) -> u64 {
    let (base, file) = match h {
        Hierarchy::V2 { base } => (base, "memory.max"),
        Hierarchy::V1 { memory, .. } => (memory, "memory.limit_in_bytes"),
    };
    let relative = group_name.strip_prefix(cpu_base(h)).unwrap();
    read(&base.join(relative).join(file)).parse().unwrap()
}

/// The leaf of a group whose CPU limit changes live (`LiveCpuGroup`): its newest `cpu-N`.
pub fn live_leaf(group: &Path) -> PathBuf {
    std::fs::read_dir(group)
        .unwrap_or_else(|e| panic!("{}: {e}", group.display()))
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n: u64 = name.strip_prefix("cpu-")?.parse().ok()?;
            Some((n, e.path()))
        })
        .max()
        .unwrap_or_else(|| panic!("{}: no cpu-N leaf", group.display()))
        .1
}

/// The processes in `group` and the groups below it.
pub fn pids_under(group: &Path) -> Vec<u32> {
    let mut pids = pids_in(group);
    for entry in std::fs::read_dir(group).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            pids.extend(pids_under(&entry.path()));
        }
    }
    pids
}

pub fn pids_in(group: &Path) -> Vec<u32> {
    read(&group.join("cgroup.procs"))
        .lines()
        .filter_map(|l| l.parse().ok())
        .collect()
}

/// Waits until `job` finishes, or until it completed `stop_at` iterations and `preempt` ends
/// it; the iterations completed by then.
pub fn drive(
    job: JobRun,
    events: &Receiver<Event>,
    progress: &AtomicU64,
    stop_at: Option<u64>,
    preempt: impl FnOnce(JobRun),
) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(
            Instant::now() < deadline,
            "the job neither progressed nor finished"
        );
        if let Some(at) = stop_at
            && progress.load(Ordering::SeqCst) >= at
        {
            preempt(job);
            return progress.load(Ordering::SeqCst);
        }
        match events.recv_timeout(Duration::from_millis(1)) {
            Ok(Event::Finished { .. }) => {
                job.end().unwrap();
                return progress.load(Ordering::SeqCst);
            }
            Ok(Event::Failed { message, .. }) => panic!("{message}"),
            _ => {}
        }
    }
}

/// A job of 40 iterations of small-4node's model, named `id`, stopped and resumed by the tests.
pub fn resume_plan(id: &str) -> Arc<JobPlan> {
    Arc::new(JobPlan {
        id: id.into(),
        scenario: Scenario::load_with_overrides(&workload("small-4node.toml"), &[]).unwrap(),
        seed: 11,
        iterations: 40,
        cpu_per_iteration: 0.004,
    })
}

/// The checkpoint a preemption after `stopped_at` completed iterations wrote (at least 5
/// were asked for) holds every one of them and not the whole run.
pub fn assert_checkpoint_of_a_stop(saved: &Checkpoint, stopped_at: u64) {
    assert_eq!(
        saved.iteration, stopped_at,
        "the checkpoint holds every completed iteration"
    );
    assert!(
        (5..40).contains(&saved.iteration),
        "stopped at {}",
        saved.iteration
    );
}

/// Whether two runs ended with the same parameters, bit for bit.
pub fn same_bits(a: &Checkpoint, b: &Checkpoint) -> bool {
    a.params.len() == b.params.len()
        && a.params
            .iter()
            .zip(&b.params)
            .all(|(x, y)| x.to_bits() == y.to_bits())
}
