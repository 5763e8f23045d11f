//! The jobs cluster through Slurm (`execution = "slurm"`) on a two-node cluster that
//! `deploy/slurm/cluster.sh` starts for each test: a policy's jobs run on the nodes it chose
//! (read back from Slurm by the test itself) and nothing is left in the queue or the nodes'
//! groups after the episode; a job preempted through Slurm resumes its iterations exactly from
//! its checkpoint; a SIGKILL of schedlab leaves held jobs that the next episode cancels; a job
//! placed again on fewer tasks reserves only their CPUs and memory. Each
//! test needs root, network namespaces and writable cgroups, and says so where it skips.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use schedlab_env::jobs::{Container, JobsWorkload};
use schedlab_env::real::jobs::checkpoint::Checkpoint;
use schedlab_env::real::jobs::job_run::{JobRun, Launch};
use schedlab_env::real::jobs::slurm_run::SlurmJobs;
use schedlab_env::real::slurm::Slurm;
use schedlab_env::workload_file::WorkloadFile;
use schedlab_tests::workload;

mod real_common;
use real_common::{assert_checkpoint_of_a_stop, cgroups_or_skip, drive, resume_plan, same_bits};
mod slurm_common;
use slurm_common::{checked, script};

/// The job the preemption test runs: philly-real's first job, job 0 of its Slurm jobs.
const JOB: &str = "philly-18454";

/// philly-real's 27000-odd virtual seconds in about 27 s of wall time.
const FAST: &str = "real.time_scale=0.001";

/// A two-node cluster for one test, taken down when dropped.
struct Cluster {
    folder: PathBuf,
}

impl Cluster {
    /// The cluster, or `None` (the reason printed) where this machine cannot make one.
    fn up() -> Option<Cluster> {
        cgroups_or_skip()?;
        let root = Command::new("id").arg("-u").output().ok()?;
        let netns = Command::new("ip").args(["netns", "list"]).output();
        if String::from_utf8_lossy(&root.stdout).trim() != "0" || netns.is_err() {
            eprintln!("skipped: a Slurm cluster needs root and network namespaces");
            return None;
        }
        let folder =
            std::env::temp_dir().join(format!("schedlab-slurm-jobs-{}", std::process::id()));
        let cluster = Cluster { folder };
        checked(cluster.script(&["up", "2", "1", "2048"]));
        // SAFETY: set before any thread of the test reads the environment
        unsafe { std::env::set_var("SLURM_CONF", cluster.conf()) };
        Some(cluster)
    }

    fn script(&self, args: &[&str]) -> &mut Command {
        Box::leak(Box::new(Command::new(script())))
            .args(args)
            .env("SCHEDLAB_SLURM_DIR", &self.folder)
    }

    fn conf(&self) -> PathBuf {
        self.folder.join("slurm.conf")
    }

    /// `squeue` lines in `FORMAT`, every state Slurm still lists.
    fn queue(&self, format: &str) -> Vec<String> {
        let out = checked(
            Command::new("squeue")
                .env("SLURM_CONF", self.conf())
                .args(["-h", "-o", format]),
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.script(&["down"]).output();
    }
}

/// The groups schedlab made inside the nodes' groups (containers), left or not.
fn container_groups() -> Vec<PathBuf> {
    (1..=2)
        .flat_map(|n| {
            let node = PathBuf::from(format!("/sys/fs/cgroup/cpu/schedlab-slurm/node{n}"));
            std::fs::read_dir(node).into_iter().flatten().flatten()
        })
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect()
}

#[test]
fn a_policys_jobs_run_on_the_nodes_it_chose_and_the_episode_leaves_nothing() {
    let Some(cluster) = Cluster::up() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("fidelity.json");
    let mut fidelity = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["fidelity", "--policy", "fifo", "--seeds", "0"])
        .args(["--calibrate-policy", "static", "--execution", "slurm"])
        .arg("--workload")
        .arg(workload("philly-real.toml"))
        .args(["--set", FAST, "--json"])
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // what Slurm says of each running job while the episodes play, by its name's episode tag
    // and job index: the nodes it ran on
    let mut seen: BTreeMap<(u64, usize), Vec<String>> = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(240);
    while fidelity.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the episodes did not end");
        for line in cluster.queue("%j|%T|%N") {
            let [name, state, nodes] = line.split('|').collect::<Vec<_>>()[..] else {
                continue;
            };
            if state == "RUNNING" {
                let mut parts = name.rsplit('-').map(|p| p.parse().unwrap());
                let (job, tag) = (parts.next().unwrap(), parts.next().unwrap());
                seen.entry((tag, job as usize))
                    .or_default()
                    .push(nodes.to_owned());
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(fidelity.wait().unwrap().success());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let episode = &report["episodes"][0];
    assert!(episode["slurm"]["jct_avg_s"].as_f64().unwrap() > 0.0);
    assert!(episode["sim"]["jct_avg_s"].as_f64().unwrap() > 0.0);
    let placements = episode["real_execution"]["slurm"]["placements"]
        .as_array()
        .unwrap();
    assert!(placements.len() >= 20, "{placements:?}");
    let mut used = Vec::new();
    for p in placements {
        assert_eq!(p["chosen"], p["slurm"], "{p}");
        used.extend(p["slurm"].as_array().unwrap().iter().cloned());
    }
    used.sort_by_key(|n| n.to_string());
    used.dedup();
    assert_eq!(used.len(), 2, "the policy used both nodes");
    // the test's own reading of the queue: each job of the compared episode (played after the
    // calibration's, so of the last tag) ran only where the policy put it
    let file = WorkloadFile::read(&workload("philly-real.toml")).unwrap();
    let jobs = JobsWorkload::load_file(&file, &[]).unwrap().jobs;
    let compared = seen
        .keys()
        .map(|&(tag, _)| tag)
        .max()
        .expect("no running job was seen");
    for ((_, index), nodes) in seen.range((compared, 0)..) {
        let id = &jobs[*index].id;
        for listed in nodes {
            let chosen = placements.iter().any(|p| {
                p["job"] == id.as_str()
                    && p["chosen"].as_array().unwrap().len() == 1
                    && p["chosen"][0] == listed.as_str()
            });
            assert!(
                chosen,
                "Slurm ran {id} on {listed}, which the policy never chose"
            );
        }
    }
    assert!(cluster.queue("%i").is_empty(), "jobs left in the queue");
    assert!(container_groups().is_empty(), "{:?}", container_groups());
}

/// Runs run `run` of job 0 through Slurm on both nodes until it finishes, or until it
/// completed `stop_at` iterations and is preempted (requeued); the iterations completed.
fn run_through_slurm(jobs: &SlurmJobs, run: u32, checkpoint: &Path, stop_at: Option<u64>) -> u64 {
    let (sender, events) = channel();
    let progress = Arc::new(AtomicU64::new(0));
    let containers: Vec<Container> = (0..2)
        .map(|machine| Container {
            machine,
            cpu: 1000,
            mem: 1024,
            gpu_take: Default::default(),
            sharer: None,
        })
        .collect();
    let launch = jobs.start((0, run), &containers, vec![(0.4, 256); 2], run > 1);
    let job = JobRun::start(
        (0, run),
        resume_plan(JOB),
        Launch::Slurm(launch),
        checkpoint.to_owned(),
        Arc::clone(&progress),
        sender,
    );
    drive(job, &events, &progress, stop_at, |job| {
        job.end_through(|| jobs.preempt(0)).unwrap()
    })
}

#[test]
fn a_job_preempted_through_slurm_resumes_its_iterations_exactly() {
    let Some(cluster) = Cluster::up() else {
        return;
    };
    // SAFETY: set before any thread of the test reads the environment
    unsafe { std::env::set_var("SCHEDLAB_BIN", env!("CARGO_BIN_EXE_schedlab")) };
    let dir = tempfile::tempdir().unwrap();
    let file = WorkloadFile::read(&workload("philly-real.toml")).unwrap();
    let overrides = [("execution".to_owned(), "slurm".to_owned())];
    let workload = JobsWorkload::load_file(&file, &overrides).unwrap();
    let whole = dir.path().join("whole.ckpt");
    {
        let jobs = SlurmJobs::submit(&workload, dir.path(), "test-whole".into()).unwrap();
        assert_eq!(run_through_slurm(&jobs, 1, &whole, None), 40);
    }
    let uninterrupted = Checkpoint::load(&whole, JOB).unwrap().unwrap();
    let split = dir.path().join("split.ckpt");
    let jobs = SlurmJobs::submit(&workload, dir.path(), "test-split".into()).unwrap();
    let stopped_at = run_through_slurm(&jobs, 1, &split, Some(5));
    let saved = Checkpoint::load(&split, JOB).unwrap().unwrap();
    assert_checkpoint_of_a_stop(&saved, stopped_at);
    // Slurm lists the requeue once the job's processes are gone (the job completes first)
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let requeued = cluster.queue("%j|%T|%r");
        if requeued
            .iter()
            .any(|l| l.contains("-0|") && l.ends_with("|job requeued in held state"))
        {
            break;
        }
        assert!(Instant::now() < deadline, "{requeued:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(run_through_slurm(&jobs, 2, &split, None), 40);
    let resumed = Checkpoint::load(&split, JOB).unwrap().unwrap();
    assert!(
        same_bits(&resumed, &uninterrupted),
        "a job resumed through Slurm ends where the uninterrupted one does"
    );
    let timings = jobs.timings();
    assert!(timings["scontrol requeuehold"].calls >= 1, "{timings:?}");
    drop(jobs);
    assert!(cluster.queue("%i").is_empty(), "jobs left in the queue");
}

#[test]
fn a_sigkilled_slurm_episode_leaves_held_jobs_that_the_next_episode_cancels() {
    let Some(cluster) = Cluster::up() else {
        return;
    };
    let play = || {
        Command::new(env!("CARGO_BIN_EXE_schedlab"))
            .args(["run", "--policy", "fifo", "--workload"])
            .arg(workload("philly-real.toml"))
            .args(["--set", FAST, "--set", "execution=slurm"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut first = play();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !cluster.queue("%T").iter().any(|s| s == "RUNNING") {
        assert!(Instant::now() < deadline, "no job ran");
        std::thread::sleep(Duration::from_millis(20));
    }
    first.kill().unwrap();
    first.wait().unwrap();
    let left = cluster.queue("%i|%j");
    assert!(
        !left.is_empty(),
        "a killed schedlab cannot cancel its held jobs"
    );
    let left_ids: Vec<String> = left
        .iter()
        .map(|l| l.split('|').next().unwrap().to_owned())
        .collect();
    let mut second = play();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ids: Vec<String> = cluster.queue("%i");
        if !ids.is_empty() && left_ids.iter().all(|id| !ids.contains(id)) {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the dead episode's jobs stay: {ids:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    second.kill().unwrap();
    second.wait().unwrap();
    // the killed episode's checkpoint folder, which only a later episode would remove
    let left_behind = format!("schedlab-checkpoints-{}-", second.id());
    for entry in std::fs::read_dir(std::env::temp_dir()).unwrap().flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(&left_behind)
        {
            std::fs::remove_dir_all(entry.path()).unwrap();
        }
    }
    drop(cluster);
    let namespaces = checked(Command::new("ip").args(["netns", "list"]));
    assert!(!String::from_utf8_lossy(&namespaces.stdout).contains("schedlab-slurm"));
    assert!(!Path::new("/sys/fs/cgroup/cpu/schedlab-slurm").exists());
}

/// A job placed on two tasks and then, as after a rescale down, on one reserves one CPU and
/// one task's memory, so Slurm starts it in the room schedlab gave it.
#[test]
fn a_job_placed_again_on_fewer_tasks_reserves_only_their_cpus_and_memory() {
    let Some(cluster) = Cluster::up() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("job.sh");
    std::fs::write(&script, "#!/bin/sh\nsleep 1\n").unwrap();
    let slurm = Slurm::connect().unwrap();
    let (layout, output) = (dir.path().join("layout"), dir.path().join("out"));
    let id = slurm
        .submit_held("placed-again", &script, &layout, &output)
        .unwrap();
    let nodes = ["node1".to_owned()];
    slurm.place(id, &nodes, 2, 100).unwrap();
    slurm.place(id, &nodes, 1, 100).unwrap();
    let shown = checked(
        Command::new("scontrol")
            .env("SLURM_CONF", cluster.conf())
            .args(["show", "job", &id.to_string()]),
    );
    let shown = String::from_utf8_lossy(&shown.stdout).into_owned();
    slurm.cancel(&[id]).unwrap();
    assert!(shown.contains("TRES=cpu=1,mem=100M,"), "{shown}");
}
