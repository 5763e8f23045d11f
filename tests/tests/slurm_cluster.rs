//! `deploy/slurm/cluster.sh`: a Slurm cluster of two nodes on this machine, each node its own
//! network namespace, hostname and cgroup, which a job on it inherits; `down` leaves no
//! process, namespace, bridge or cgroup of the run, nor does an `up` that fails halfway; and
//! the script refuses to start without root. The cluster needs root, network namespaces and writable cgroups: where this machine
//! lacks them the test says so and skips.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

mod slurm_common;
use slurm_common::{checked, script};

/// Why the cluster cannot be made here, or None where it can.
fn unavailable() -> Option<String> {
    let root = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&root.stdout).trim() != "0" {
        return Some("not root".into());
    }
    let probe = Command::new("ip")
        .args(["netns", "add", "schedlab-slurm-test-probe"])
        .output();
    match probe {
        Ok(out) if out.status.success() => {
            checked(Command::new("ip").args(["netns", "del", "schedlab-slurm-test-probe"]));
        }
        _ => return Some("no network namespaces (or no `ip`)".into()),
    }
    let v1 = Path::new("/sys/fs/cgroup/cpu/cgroup.procs").exists()
        && Path::new("/sys/fs/cgroup/memory/cgroup.procs").exists();
    let v2 = Path::new("/sys/fs/cgroup/cgroup.controllers").exists();
    (!v1 && !v2).then(|| "no cgroup controllers".into())
}

fn pids_in(folder: &Path) -> Vec<String> {
    (std::fs::read_dir(folder).unwrap())
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pid"))
        .map(|p| std::fs::read_to_string(p).unwrap().trim().to_owned())
        .collect()
}

/// A process that runs (a zombie waiting for init to reap it does not).
fn is_alive(pid: &str) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .any(|l| l.starts_with("State:") && !l.contains("zombie"))
}

#[test]
fn a_two_node_cluster_runs_jobs_in_its_nodes_and_down_leaves_nothing() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: a Slurm cluster cannot be made on this machine: {why}");
        return;
    }
    // refused without root, naming what is missing
    let as_nobody = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(script())
        .args(["up", "2"])
        .output()
        .unwrap();
    assert!(!as_nobody.status.success());
    assert!(String::from_utf8_lossy(&as_nobody.stderr).contains("needs root"));

    let folder = std::env::temp_dir().join(format!("schedlab-slurm-test-{}", std::process::id()));
    let cluster = |args: &[&str]| {
        checked(
            Command::new(script())
                .args(args)
                .env("SCHEDLAB_SLURM_DIR", &folder),
        )
    };
    let up = cluster(&["up", "2", "1", "512"]);
    assert!(String::from_utf8_lossy(&up.stdout).contains("node2"));
    let conf = folder.join("slurm.conf");
    let output = folder.join("job.out");
    let sbatch = checked(
        Command::new("sbatch")
            .env("SLURM_CONF", &conf)
            .args(["--parsable", "-w", "node2", "-o"])
            .arg(&output)
            .args(["--wrap", "hostname; cat /proc/self/cgroup; sleep 600"]),
    );
    let job = String::from_utf8_lossy(&sbatch.stdout).trim().to_owned();
    let started = Instant::now();
    while !std::fs::read_to_string(&output)
        .unwrap_or_default()
        .contains("cpu")
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "job {job} never ran"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let text = std::fs::read_to_string(&output).unwrap();
    assert!(text.starts_with("node2\n"), "{text}");
    assert!(text.contains("memory:/schedlab-slurm/node2"), "{text}");
    let daemons = pids_in(&folder);
    assert!(daemons.len() >= 4, "{daemons:?}");

    // down with the job still running
    cluster(&["down"]);
    assert!(!folder.exists());
    let alive: Vec<&String> = daemons.iter().filter(|p| is_alive(p)).collect();
    assert!(alive.is_empty(), "still running: {alive:?}");
    let namespaces = checked(Command::new("ip").args(["netns", "list"]));
    assert!(!String::from_utf8_lossy(&namespaces.stdout).contains("schedlab-slurm"));
    assert!(
        !Command::new("ip")
            .args(["link", "show", "slbr0"])
            .output()
            .unwrap()
            .status
            .success()
    );
    for base in [
        "/sys/fs/cgroup/cpu",
        "/sys/fs/cgroup/memory",
        "/sys/fs/cgroup",
    ] {
        assert!(!Path::new(base).join("schedlab-slurm").exists(), "{base}");
    }
    let sleeping = Command::new("pgrep")
        .args(["-f", "sleep 600"])
        .output()
        .unwrap();
    assert!(
        sleeping.stdout.is_empty(),
        "the job's process outlived down"
    );
}

/// An `up` that fails halfway (here: the bridge's name is taken) removes what it made before
/// failing, by the ids it recorded, and leaves alone what it did not make.
#[test]
fn a_failed_up_removes_what_it_made() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: a Slurm cluster cannot be made on this machine: {why}");
        return;
    }
    let taken = TakenBridge::add();
    let folder = std::env::temp_dir().join(format!("schedlab-slurm-fail-{}", std::process::id()));
    let up = Command::new(script())
        .args(["up", "2", "1", "512"])
        .env("SCHEDLAB_SLURM_DIR", &folder)
        .output()
        .unwrap();
    let kept = Command::new("ip")
        .args(["link", "show", "slbr0"])
        .output()
        .unwrap();
    drop(taken);
    assert!(!up.status.success());
    assert!(String::from_utf8_lossy(&up.stderr).contains("up failed"));
    assert!(kept.status.success(), "down removed a link it did not make");
    assert!(!folder.exists());
    let munge = Command::new("pgrep")
        .args(["-f", &format!("{}/munge", folder.display())])
        .output()
        .unwrap();
    assert!(munge.stdout.is_empty(), "munged outlived the failed up");
    let namespaces = checked(Command::new("ip").args(["netns", "list"]));
    assert!(!String::from_utf8_lossy(&namespaces.stdout).contains("schedlab-slurm"));
    for base in ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/memory"] {
        assert!(!Path::new(base).join("schedlab-slurm").exists(), "{base}");
    }
}

/// The cluster's bridge name taken by the test, given back even when the test panics, so that
/// a failed run leaves no link for the next `up` to trip on.
struct TakenBridge;

impl TakenBridge {
    fn add() -> Self {
        checked(Command::new("ip").args(["link", "add", "slbr0", "type", "bridge"]));
        TakenBridge
    }
}

impl Drop for TakenBridge {
    fn drop(&mut self) {
        let _ = Command::new("ip").args(["link", "del", "slbr0"]).status();
    }
}
