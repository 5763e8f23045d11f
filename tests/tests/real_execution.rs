//! Real execution (`execution = "real"`): the scheduler's allocation written as cgroup limits
//! and read back, every process and group gone after a normal end, an error and a SIGKILL of
//! the command, and `schedlab fidelity`'s JSON. Each test runs only where this machine's
//! cgroups can be written (root on the project's machines and CI) and says so where not.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use schedlab_env::real::cgroup::{LiveCpuGroup, representable_cores};
use schedlab_env::real::single_job::cores_per_rate;
use schedlab_env::single_job::sim::rules::nominal_rate;
use schedlab_env::{Scenario, SingleJobEnv};
use schedlab_tests::workload;

mod real_common;
use real_common::*;
use schedlab_env::real::process::is_running;

/// A real episode of small-4node lasts at most 300 virtual s: 6 s of wall time at this scale.
const FAST: &str = "0.02";

fn real_scenario(scale: &str) -> std::sync::Arc<Scenario> {
    let overrides = [
        ("execution".to_owned(), "real".to_owned()),
        ("real.time_scale".to_owned(), scale.to_owned()),
    ];
    Scenario::load_with_overrides(&workload("small-4node.toml"), &overrides).unwrap()
}

/// Node 0 at the smallest container with its GPU, node 1 off, the others at their largest
/// allowed CPU and memory levels.
fn mixed_action(env: &SingleJobEnv) -> Vec<usize> {
    let mask = env.action_mask().unwrap();
    let space = env.action_space();
    (0..space.nvec().len())
        .map(|dim| {
            let (node, field) = (space.unit_of(dim), space.field_of(dim));
            let allowed: Vec<usize> = (0..space.nvec()[dim])
                .filter(|&l| mask[space.mask_offset(dim) + l])
                .collect();
            match (node, field) {
                (1, _) => 0,
                (0, _) => allowed.iter().copied().find(|&l| l > 0).unwrap_or(0),
                _ => *allowed.last().unwrap(),
            }
        })
        .collect()
}

#[test]
fn quotas_written_are_the_allocation_chosen_and_nothing_is_left_after_the_episode() {
    let Some(hierarchy) = cgroups_or_skip() else {
        return;
    };
    let scenario = real_scenario(FAST);
    let mut env = SingleJobEnv::new(scenario.clone());
    env.reset(0).unwrap();
    let action = mixed_action(&env);
    let alloc = env.allocation_of(&action).unwrap();
    let step = env.step(&action).unwrap();
    let runs = run_folders(&hierarchy, std::process::id());
    assert_eq!(runs.len(), 1, "{runs:?}");
    let k = cores_per_rate(&scenario.nodes, scenario.workload.real.cores());
    let mut processes = Vec::new();
    for (n, node) in scenario.nodes.iter().enumerate() {
        let job = runs[0].join(format!("node-{n}/job"));
        // a node without a container keeps the limit it had: none before its first
        let expected =
            (alloc[n][0] > 0.0).then(|| representable_cores(k * nominal_rate(node, &alloc[n])));
        let written = cpu_limit_in(&hierarchy, &live_leaf(&job));
        assert!(
            match (written, expected) {
                (Some(w), Some(e)) => (w - e).abs() <= 1e-9 + 1e-6 * e,
                (w, e) => w == e,
            },
            "node {n}: quota {written:?} cores for {:?}, expected {expected:?}",
            alloc[n]
        );
        if alloc[n][0] > 0.0 {
            let mib = (alloc[n][1] * scenario.workload.real.mem_mb_per_gb * 1024.0 * 1024.0) as u64;
            assert_eq!(memory_in(&hierarchy, &job), mib, "node {n}: memory limit");
        }
        let workers = pids_under(&job);
        let tenants = pids_under(&runs[0].join(format!("node-{n}/background")));
        assert_eq!(
            (workers.len(), tenants.len()),
            (1, 1),
            "node {n}: one worker, one tenant"
        );
        processes.extend(workers.into_iter().chain(tenants));
    }
    assert!(
        step.info.allocation == alloc,
        "info reports the allocation in force"
    );
    let mut done = step.terminated || step.truncated;
    while !done {
        let step = env.step(&action).unwrap();
        done = step.terminated || step.truncated;
        if let Some(m) = &step.info.metrics {
            assert!(m.completion_time_s > 0.0 && m.iterations > 0, "{m:?}");
        }
    }
    assert!(
        run_folders(&hierarchy, std::process::id()).is_empty(),
        "groups left after the end"
    );
    let left: Vec<u32> = processes.into_iter().filter(|&p| is_running(p)).collect();
    assert!(left.is_empty(), "processes left after the end: {left:?}");
}

/// CPU time (seconds) process `pid` has run, from /proc/PID/schedstat.
fn cpu_seconds(pid: u32) -> f64 {
    let text = read(Path::new(&format!("/proc/{pid}/schedstat")));
    let nanoseconds: f64 = text.split_whitespace().next().unwrap().parse().unwrap();
    nanoseconds / 1e9
}

/// A group moved from a 1 s CFS period to 10 ms runs at its new quota at once. Rewriting the
/// period in place left the old 1 s timer armed, and the process ran one 10 ms quota and then
/// nothing until that timer fired: a worker stalled up to a second after its first allocation.
/// The process waits through the change, as a worker waits at the server for its container.
#[test]
fn a_cpu_limit_that_changes_period_takes_effect_at_once() {
    let Some(hierarchy) = cgroups_or_skip() else {
        return;
    };
    let run = hierarchy.create_run(7).unwrap();
    let mut group = LiveCpuGroup::new(run.child("burner").unwrap()).unwrap();
    let mut burner = Command::new("sh")
        .args(["-c", "sleep 0.3; while :; do :; done"])
        .spawn()
        .unwrap();
    group.add(burner.id()).unwrap();
    // the least quota: 1 ms per 1 s period
    group.set_cpu(Some(0.001)).unwrap();
    std::thread::sleep(Duration::from_millis(50));
    group.set_cpu(Some(0.5)).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let before = cpu_seconds(burner.id());
    std::thread::sleep(Duration::from_millis(500));
    let ran = cpu_seconds(burner.id()) - before;
    let _ = burner.kill();
    let _ = burner.wait();
    run.remove().unwrap();
    // half a core for 0.5 s is 0.25 s; the stall gives next to nothing. The margin is for a
    // busy machine, where the burner gets less than its quota.
    assert!(
        ran > 0.1,
        "{ran:.3} s of CPU in 0.5 s at half a core: the new period did not take effect"
    );
}

/// A process that exited is left behind when the limit moves to a new leaf: its death is
/// reported where it is awaited, not as a group that cannot be written.
#[test]
fn a_period_change_skips_a_process_that_has_exited() {
    let Some(hierarchy) = cgroups_or_skip() else {
        return;
    };
    let run = hierarchy.create_run(8).unwrap();
    let mut group = LiveCpuGroup::new(run.child("short").unwrap()).unwrap();
    let mut short = Command::new("sleep").arg("0.05").spawn().unwrap();
    group.add(short.id()).unwrap();
    short.wait().unwrap();
    let moved = group.set_cpu(Some(0.001));
    run.remove().unwrap();
    moved.unwrap();
}

#[test]
fn a_worker_that_dies_fails_the_step_by_name_and_the_run_is_removed() {
    let Some(hierarchy) = cgroups_or_skip() else {
        return;
    };
    // slow enough that the episode cannot end before the worker is killed
    let mut env = SingleJobEnv::new(real_scenario("0.5"));
    env.reset(1).unwrap();
    let action = mixed_action(&env);
    let runs = run_folders(&hierarchy, std::process::id());
    assert_eq!(runs.len(), 1);
    let worker = pids_under(&runs[0].join("node-0/job"))[0];
    kill_hard(worker);
    let err = env.step(&action).unwrap_err().to_string();
    assert!(err.contains("worker of node 0 (gpu-fast)"), "{err}");
    assert!(
        run_folders(&hierarchy, std::process::id()).is_empty(),
        "groups left after the error"
    );
    assert!(
        env.step(&action).is_err(),
        "the episode is over after the error"
    );
}

fn kill_hard(pid: u32) {
    Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
}

#[test]
fn a_sigkilled_command_leaves_no_worker_and_the_next_run_removes_its_groups() {
    let Some(hierarchy) = cgroups_or_skip() else {
        return;
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["run", "--workload"])
        .arg(workload("small-4node.toml"))
        .args([
            "--policy",
            "static",
            "--set",
            "execution=real",
            "--set",
            "real.time_scale=1",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let (run, processes) = loop {
        let runs = run_folders(&hierarchy, child.id());
        let pids: Vec<u32> = runs
            .iter()
            .flat_map(|r| {
                (0..4).flat_map(move |n| {
                    ["job", "background"].map(|g| r.join(format!("node-{n}/{g}")))
                })
            })
            .filter(|g| g.exists())
            .flat_map(|g| pids_under(&g))
            .collect();
        if runs.len() == 1 && pids.len() == 8 {
            break (runs[0].clone(), pids);
        }
        assert!(
            Instant::now() < deadline,
            "the real run did not start within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    std::thread::sleep(Duration::from_secs(5));
    let left: Vec<u32> = processes.into_iter().filter(|&p| is_running(p)).collect();
    assert!(left.is_empty(), "alive 5 s after SIGKILL: {left:?}");
    // the next run removes the dead run's groups before making its own (a test beside this
    // one may have been that run already)
    let next = hierarchy.create_run(7).unwrap();
    next.remove().unwrap();
    assert!(!run.exists(), "{} left after the next run", run.display());
}

#[test]
fn fidelity_writes_sim_and_real_metrics_for_every_episode() {
    let Some(_) = cgroups_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("fidelity.json");
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["fidelity", "--workload"])
        .arg(workload("small-4node.toml"))
        .args([
            "--policy",
            "static,greedy",
            "--seeds",
            "0",
            "--calibrate-seeds",
            "100",
        ])
        .args(["--set", &format!("real.time_scale={FAST}"), "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Kendall's tau"), "{stdout}");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let episodes = doc["episodes"].as_array().unwrap();
    assert_eq!(episodes.len(), 2);
    for (episode, policy) in episodes.iter().zip(["static", "greedy"]) {
        assert_eq!(episode["policy"], policy);
        assert_eq!(episode["seed"], 0);
        for side in ["sim", "sim_calibrated", "real"] {
            let t = episode[side]["completion_time_s"].as_f64().unwrap();
            assert!(t > 0.0 && t <= 300.0 + 1e-9, "{side}: {t}");
            assert!(episode[side]["iterations"].as_u64().unwrap() > 0, "{side}");
        }
    }
    assert!(doc["calibration"]["pushes"].as_u64().unwrap() >= 10);
    assert_eq!(doc["policies"].as_array().unwrap().len(), 2);
    for key in ["sim_error", "calibrated_error", "sim_tau", "calibrated_tau"] {
        assert!(doc[key].as_f64().is_some(), "{key}");
    }
}
