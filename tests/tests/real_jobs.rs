//! The jobs cluster on real processes (`execution = "real"`): a preempted job resumes its
//! iterations exactly from its checkpoint; an episode's containers are groups whose quotas
//! are the containers' share of the cores, and nothing is left after it, nor 5 s after a
//! SIGKILL of the command; `schedlab fidelity` on a jobs window, and `schedlab calibrate`
//! writing a workload the simulator reads. Each test runs only where this machine's
//! cgroups can be written and says so where not.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use schedlab_env::Scenario;
use schedlab_env::real::cgroup::{ContainerGroup, Group};
use schedlab_env::real::jobs::checkpoint::Checkpoint;
use schedlab_env::real::jobs::job_run::{JobPlan, JobRun, Launch};
use schedlab_tests::workload;

mod real_common;
use real_common::*;
use schedlab_env::real::process::is_running;

/// philly-real's 27000-odd virtual seconds in about 14 s of wall time.
const FAST: &str = "real.time_scale=0.0005";

/// Runs `plan` on two containers of `run` until it finishes, or until it completed
/// `stop_at` iterations and is preempted; returns the iterations completed.
fn run_job(
    run: &Group,
    name: &str,
    plan: &Arc<JobPlan>,
    checkpoint: &std::path::Path,
    stop_at: Option<u64>,
) -> u64 {
    let (sender, events) = channel();
    let progress = Arc::new(AtomicU64::new(0));
    let containers = (0..2)
        .map(|k| ContainerGroup {
            group: run.child(&format!("{name}-{k}")).unwrap(),
            cores: 0.5,
        })
        .collect();
    let job = JobRun::start(
        (0, 1),
        Arc::clone(plan),
        Launch::Local(containers),
        checkpoint.to_owned(),
        Arc::clone(&progress),
        sender,
    );
    drive(job, &events, &progress, stop_at, |job| job.end().unwrap())
}

#[test]
fn a_preempted_job_resumes_its_iterations_exactly_from_its_checkpoint() {
    let Some(h) = cgroups_or_skip() else {
        return;
    };
    let run = h.create_run(u64::MAX - 1).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let plan = resume_plan("resume-test");
    let whole = dir.path().join("whole.ckpt");
    assert_eq!(run_job(&run, "whole", &plan, &whole, None), 40);
    let uninterrupted = Checkpoint::load(&whole, &plan.id).unwrap().unwrap();
    assert_eq!(uninterrupted.iteration, 40);

    let split = dir.path().join("split.ckpt");
    let stopped_at = run_job(&run, "first", &plan, &split, Some(5));
    let saved = Checkpoint::load(&split, &plan.id).unwrap().unwrap();
    assert_checkpoint_of_a_stop(&saved, stopped_at);
    assert_ne!(saved.params, uninterrupted.params);
    assert_eq!(run_job(&run, "second", &plan, &split, None), 40);
    let resumed = Checkpoint::load(&split, &plan.id).unwrap().unwrap();
    assert_eq!(resumed.iteration, 40);
    assert!(
        same_bits(&resumed, &uninterrupted),
        "a resumed job ends where the uninterrupted one does"
    );
    run.remove().unwrap();
}

/// A command that a failed assertion must not leave running.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        // gone already is fine
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_real_jobs_episode_gives_containers_their_share_of_the_cores_and_leaves_nothing() {
    let Some(h) = cgroups_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let mut child = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .args(["run", "--policy", "fifo", "--workload"])
            .arg(workload("philly-real.toml"))
            .args(["--set", FAST, "--set", "real.cores=1", "--json"])
            .arg(&json)
            .spawn()
            .unwrap(),
    );
    let child = &mut child.0;
    // philly-real's 10 GPUs share 1 core: 0.1 core per GPU, for 1, 2 and 8-GPU jobs at
    // fifo's requested sizes; a machine gets the larger of its GPU and CPU shares
    let mut seen = std::collections::BTreeSet::new();
    let mut workers = Vec::new();
    while child.try_wait().unwrap().is_none() {
        for folder in run_folders(&h, child.id()) {
            for machine in std::fs::read_dir(&folder)
                .unwrap()
                .flatten()
                .filter(|e| e.path().is_dir())
            {
                let m = machine.file_name().to_string_lossy().into_owned();
                if !m.starts_with("machine-") {
                    continue;
                }
                // 8 of 10 GPUs and 96 of 160 cores; 2 GPUs and 64 cores
                let expected = if m == "machine-0" { 0.8 } else { 0.4 };
                assert!(
                    (cores_in(&h, &machine.path()) - expected).abs() < 1e-3,
                    "{m}"
                );
                for container in std::fs::read_dir(machine.path())
                    .unwrap()
                    .flatten()
                    .filter(|e| e.path().is_dir())
                {
                    let Ok(quota) = std::panic::catch_unwind(|| cores_in(&h, &container.path()))
                    else {
                        continue;
                    };
                    // negative: not limited yet, while its worker loads
                    if quota > 0.0 {
                        let gpus = (quota / 0.1).round();
                        assert!(
                            [1.0, 2.0, 8.0].contains(&gpus) && (quota - gpus * 0.1).abs() < 1e-3,
                            "{quota}"
                        );
                        seen.insert(gpus as u32);
                    }
                    workers.extend(
                        std::fs::read_to_string(container.path().join("cgroup.procs"))
                            .unwrap_or_default()
                            .lines()
                            .filter_map(|l| l.parse::<u32>().ok()),
                    );
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(child.wait().unwrap().success());
    assert!(seen.contains(&1), "quotas seen: {seen:?}");
    assert!(!workers.is_empty());
    assert!(
        run_folders(&h, child.id()).is_empty(),
        "the run's groups are removed"
    );
    assert!(
        workers.iter().all(|&p| !is_running(p)),
        "every worker is gone"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["episodes"][0]["finished"], 20);
}

#[test]
fn fidelity_measures_a_real_jobs_window_against_its_calibrated_simulator() {
    let Some(_) = cgroups_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("fidelity.json");
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args([
            "fidelity",
            "--policy",
            "fifo",
            "--seeds",
            "0",
            "--calibrate-policy",
            "sjf",
            "--workload",
        ])
        .arg(workload("philly-real.toml"))
        .args(["--set", FAST, "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["metric"], "jct_avg_s");
    let episode = &doc["episodes"][0];
    for side in ["sim", "sim_calibrated", "real"] {
        assert!(episode[side]["jct_avg_s"].as_f64().unwrap() > 0.0, "{side}");
        assert_eq!(episode[side]["finished"], 20, "{side}");
    }
    assert!(episode["real_execution"]["starts"].as_u64().unwrap() >= 20);
    // fifo never stops a run, so every start is recorded with the starts it overlapped; the
    // window's first decision starts several jobs together
    let records = episode["real_execution"]["start_records"]
        .as_array()
        .unwrap();
    assert_eq!(
        records.len() as u64,
        episode["real_execution"]["starts"].as_u64().unwrap()
    );
    let count = |r: &serde_json::Value, key: &str| r[key].as_u64().unwrap();
    for r in records {
        assert!(r["cost_wall_s"].as_f64().unwrap() > 0.0, "{r}");
        let on_its_machines = count(r, "in_flight_on_its_machines");
        assert!(
            on_its_machines >= 1 && on_its_machines <= count(r, "in_flight"),
            "{r}"
        );
    }
    assert!(
        records.iter().any(|r| count(r, "in_flight") > 1),
        "{records:?}"
    );
    let calibration = &doc["calibration"];
    assert!(
        calibration["start_s"].as_f64().unwrap() > 0.0,
        "a start costs real time"
    );
    assert!(doc["calibrated_settings"]["episode.speed_factor"].is_string());
}

#[test]
fn calibrate_writes_a_workload_file_with_the_fitted_constants() {
    let Some(_) = cgroups_or_skip() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // beside its data, as the command asks: a copy of small-4node's folder layout
    let workloads = dir.path().join("workloads");
    std::fs::create_dir(&workloads).unwrap();
    let source = workload("small-4node.toml");
    std::fs::copy(&source, workloads.join("small-4node.toml")).unwrap();
    std::os::unix::fs::symlink(
        schedlab_tests::data_dir().join("datasets"),
        dir.path().join("datasets"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        schedlab_tests::data_dir().join("traces"),
        dir.path().join("traces"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args([
            "calibrate",
            "--policy",
            "random",
            "--seeds",
            "100",
            "--set",
            "real.time_scale=0.02",
            "--workload",
        ])
        .arg(workloads.join("small-4node.toml"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = workloads.join("small-4node.calibrated.toml");
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(text.starts_with("# "), "it says where it came from");
    let scenario = Scenario::load_with_overrides(&written, &[]).unwrap();
    let original = Scenario::load_with_overrides(&source, &[]).unwrap();
    assert_eq!(scenario.workload.sim.interference, 0.0);
    assert_ne!(
        scenario.workload.job.sample_gflop,
        original.workload.job.sample_gflop
    );
    let elsewhere = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["calibrate", "--out"])
        .arg(dir.path().join("x.toml"))
        .arg("--workload")
        .arg(workloads.join("small-4node.toml"))
        .output()
        .unwrap();
    assert!(!elsewhere.status.success());
    assert!(String::from_utf8_lossy(&elsewhere.stderr).contains("relative paths"));
}

#[test]
fn a_sigkilled_jobs_episode_leaves_no_worker() {
    let Some(h) = cgroups_or_skip() else {
        return;
    };
    let mut child = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .args(["run", "--policy", "fifo", "--workload"])
            .arg(workload("philly-real.toml"))
            .args(["--set", FAST])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let pid = child.0.id();
    let deadline = Instant::now() + Duration::from_secs(60);
    let workers = loop {
        assert!(Instant::now() < deadline, "no worker started");
        let workers: Vec<u32> = run_folders(&h, pid)
            .iter()
            .flat_map(|run| std::fs::read_dir(run).into_iter().flatten().flatten())
            .filter(|m| m.file_name().to_string_lossy().starts_with("machine-"))
            .flat_map(|m| std::fs::read_dir(m.path()).into_iter().flatten().flatten())
            .filter(|c| c.path().is_dir())
            .flat_map(|c| {
                std::fs::read_to_string(c.path().join("cgroup.procs"))
                    .unwrap_or_default()
                    .lines()
                    .filter_map(|l| l.parse().ok())
                    .collect::<Vec<u32>>()
            })
            .collect();
        if workers.len() >= 2 {
            break workers;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    std::thread::sleep(Duration::from_secs(5));
    let alive: Vec<u32> = workers.into_iter().filter(|&p| is_running(p)).collect();
    assert!(
        alive.is_empty(),
        "workers alive 5 s after a SIGKILL: {alive:?}"
    );
    // the next run removes the dead run's groups
    h.create_run(u64::MAX - 2).unwrap().remove().unwrap();
    assert!(
        run_folders(&h, pid).is_empty(),
        "the dead run's groups stay"
    );
}

/// `suite score --execution real` on philly-real-v1 cut to one window at a fast time scale:
/// each episode carries its real metrics and the result the machine; `suite validate` replays
/// the simulated part and says the real one is not replayed; the leaderboard sets the
/// simulated and real ranks side by side with Kendall's tau.
#[test]
fn a_suite_entry_plays_for_real_and_its_simulated_part_validates() {
    let Some(_) = cgroups_or_skip() else { return };
    let root = tempfile::tempdir().unwrap();
    let suites = root.path().join("data/suites");
    std::fs::create_dir_all(&suites).unwrap();
    let suite = suites.join("philly-real-v1");
    let shipped = schedlab_tests::data_dir().join("suites/philly-real-v1");
    let copied = Command::new("cp")
        .arg("-r")
        .arg(&shipped)
        .arg(&suite)
        .status()
        .unwrap();
    assert!(copied.success());
    std::fs::remove_file(suite.join("test/philly-real-test-01.toml")).unwrap();
    let window = suite.join("test/philly-real-test-00.toml");
    let text = std::fs::read_to_string(&window).unwrap();
    std::fs::write(
        &window,
        text.replace("time_scale = 0.004", "time_scale = 0.0005"),
    )
    .unwrap();
    let schedlab = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .current_dir(root.path())
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "schedlab {args:?}: {stderr}");
        String::from_utf8(out.stdout).unwrap()
    };
    schedlab(&["suite", "manifest", suite.to_str().unwrap()]);
    let mut results = Vec::new();
    for policy in ["fifo", "philly-es"] {
        let result = root.path().join(format!("{policy}.json"));
        let out = result.to_str().unwrap().to_owned();
        let args = ["suite", "score", "philly-real-v1", "--policy", policy];
        schedlab(&[&args[..], &["--execution", "real", "--out", &out]].concat());
        let scored: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&result).unwrap()).unwrap();
        let real = &scored["episodes"][0]["real"];
        assert!(real["jct_avg_s"].as_f64().unwrap() > 0.0, "{scored}");
        assert_eq!(real["finished"].as_f64(), Some(20.0), "{scored}");
        assert!(!scored["real"]["machine"].as_str().unwrap().is_empty());
        let validated = schedlab(&["suite", "validate", &out]);
        assert!(
            validated.contains("validated, 1 episodes replayed")
                && validated.contains("real-execution metrics are not replayed"),
            "{validated}"
        );
        results.push(out);
    }
    let board = root.path().join("board.md");
    let args = ["suite", "leaderboard", &results[0], &results[1], "--out"];
    schedlab(&[&args[..], &[board.to_str().unwrap()]].concat());
    let board = std::fs::read_to_string(&board).unwrap();
    assert!(board.contains("### On real processes"), "{board}");
    assert!(
        board.contains(
            "Kendall's tau of the simulated order against the real one over these 2 entries"
        ),
        "{board}"
    );
}
