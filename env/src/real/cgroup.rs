//! Linux control groups for real execution: which hierarchy holds the `cpu` and `memory`
//! controllers (cgroup v2 where it offers both, v1 otherwise), a folder of groups per run,
//! CPU quotas and memory limits written and read back, and groups removed with their
//! processes, also those of dead runs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::process::{is_gone, run_pid};
use crate::error::{EnvError, Result};

/// The prefix of every run's folder: `schedlab-{pid}-{n}`.
const RUN_PREFIX: &str = "schedlab-";
/// CFS periods: 10 ms, so that a worker is throttled in short steps rather than in bursts of
/// a tenth of a second (an iteration of a few milliseconds would otherwise run at a whole
/// core's speed or wait out the period), stretched up to 1 s so that a small quota stays
/// above the kernel's 1 ms minimum.
const DEFAULT_PERIOD_US: u64 = 10_000;
const MAX_PERIOD_US: u64 = 1_000_000;
const MIN_QUOTA_US: u64 = 1_000;

/// Where the groups of a run go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hierarchy {
    /// One cgroup2 folder with `cpu` and `memory` enabled for its children.
    V2 { base: PathBuf },
    /// cgroup v1: one folder per controller.
    V1 { cpu: PathBuf, memory: PathBuf },
}

impl Hierarchy {
    /// The hierarchy of this machine: `base` when given (a cgroup2 folder the user may write,
    /// such as a delegated systemd user slice), else cgroup2 where its root offers `cpu` and
    /// `memory`, else the v1 `cpu` and `memory` mounts. Refused naming what is missing.
    pub fn detect(base: Option<&Path>) -> Result<Hierarchy> {
        if let Some(base) = base {
            let controllers = read_text(&base.join("cgroup.controllers"))?;
            return match missing_controllers(&controllers) {
                None => Ok(Hierarchy::V2 {
                    base: base.to_owned(),
                }),
                Some(missing) => Err(unavailable(
                    missing,
                    base,
                    format!("its cgroup.controllers lists only `{}`", controllers.trim()),
                )),
            };
        }
        let mounts = read_text(Path::new("/proc/mounts"))?;
        let mut v1 = (None, None);
        let mut v2_seen = None;
        for line in mounts.lines() {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [_, point, fstype, options, ..] = fields[..] else {
                continue;
            };
            let point = PathBuf::from(point);
            match fstype {
                "cgroup2" => {
                    let own = own_v2_group().unwrap_or_default();
                    let base = point.join(own.trim_start_matches('/'));
                    let listed = std::fs::read_to_string(base.join("cgroup.controllers"))
                        .unwrap_or_default();
                    if missing_controllers(&listed).is_none() {
                        return Ok(Hierarchy::V2 { base });
                    }
                    v2_seen = Some((point, listed));
                }
                "cgroup" => {
                    let has = |c: &str| options.split(',').any(|o| o == c);
                    if has("cpu") {
                        v1.0 = Some(point.clone());
                    }
                    if has("memory") {
                        v1.1 = Some(point);
                    }
                }
                _ => {}
            }
        }
        match v1 {
            (Some(cpu), Some(memory)) => Ok(Hierarchy::V1 { cpu, memory }),
            (cpu, _) => {
                let controller = if cpu.is_none() { "cpu" } else { "memory" };
                let (path, why) = match v2_seen {
                    Some((point, listed)) => (
                        point,
                        format!(
                            "the cgroup2 hierarchy offers `{}` and no cgroup v1 `{controller}` mount is in /proc/mounts",
                            listed.trim()
                        ),
                    ),
                    None => (
                        PathBuf::from("/proc/mounts"),
                        format!("no cgroup2 or cgroup v1 `{controller}` mount is listed"),
                    ),
                };
                Err(unavailable(controller, &path, why))
            }
        }
    }

    /// The folders under which runs make their groups, one per controller.
    fn bases(&self) -> Vec<PathBuf> {
        match self {
            Hierarchy::V2 { base } => vec![base.clone()],
            Hierarchy::V1 { cpu, memory } => vec![cpu.clone(), memory.clone()],
        }
    }

    /// Makes the run folder `schedlab-{pid}-{n}` (removing dead runs' folders first): the
    /// groups of one run live under it. Refused, naming the path, where it cannot be written.
    pub fn create_run(&self, tag: u64) -> Result<Group> {
        remove_stale_runs(self);
        let name = format!("{RUN_PREFIX}{}-{tag}", std::process::id());
        if let Hierarchy::V2 { base } = self {
            enable_v2_controllers(base)?;
        }
        let group = Group {
            hierarchy: self.clone(),
            paths: self.bases().iter().map(|b| b.join(&name)).collect(),
        };
        for path in &group.paths {
            std::fs::create_dir(path).map_err(|e| not_writable(path, e))?;
        }
        if let Hierarchy::V2 { .. } = self {
            enable_v2_controllers(&group.paths[0])?;
        }
        Ok(group)
    }
}

impl Hierarchy {
    /// The group process `pid` is in (its `cpu` and `memory` groups on v1), read from
    /// `/proc/PID/cgroup`: where a Slurm node put a worker it started.
    pub fn group_of(&self, pid: u32) -> Result<Group> {
        let file = PathBuf::from(format!("/proc/{pid}/cgroup"));
        let text = read_text(&file)?;
        let of = |wanted: Option<&str>| {
            text.lines().find_map(|line| {
                let mut fields = line.splitn(3, ':');
                let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
                let listed = |c: &str| controllers.split(',').any(|x| x == c);
                let fits = wanted.map_or(controllers.is_empty(), listed);
                fits.then(|| path.trim_start_matches('/').to_owned())
            })
        };
        let missing = |what: &str| EnvError::RealExecution {
            message: format!("{} names no {what} group", file.display()),
        };
        let paths = match self {
            Hierarchy::V2 { .. } => {
                let path = of(None).ok_or_else(|| missing("cgroup2"))?;
                vec![Path::new("/sys/fs/cgroup").join(path)]
            }
            Hierarchy::V1 { cpu, memory } => vec![
                cpu.join(of(Some("cpu")).ok_or_else(|| missing("cpu"))?),
                memory.join(of(Some("memory")).ok_or_else(|| missing("memory"))?),
            ],
        };
        Ok(Group {
            hierarchy: self.clone(),
            paths,
        })
    }
}

/// A job's container: its group and its CPU quota in real cores.
#[derive(Debug, Clone)]
pub struct ContainerGroup {
    pub group: Group,
    pub cores: f64,
}

/// One control group (one folder per controller on v1).
#[derive(Debug, Clone)]
pub struct Group {
    hierarchy: Hierarchy,
    paths: Vec<PathBuf>,
}

impl Group {
    /// A child group `name`, with `cpu` and `memory` enabled for its own children on v2.
    pub fn child(&self, name: &str) -> Result<Group> {
        let group = Group {
            hierarchy: self.hierarchy.clone(),
            paths: self.paths.iter().map(|p| p.join(name)).collect(),
        };
        for path in &group.paths {
            std::fs::create_dir(path).map_err(|e| not_writable(path, e))?;
        }
        Ok(group)
    }

    /// Enables `cpu` and `memory` for this group's children (cgroup2 only).
    pub fn delegate(&self) -> Result<()> {
        match self.hierarchy {
            Hierarchy::V2 { .. } => enable_v2_controllers(&self.paths[0]),
            Hierarchy::V1 { .. } => Ok(()),
        }
    }

    /// The group's folder in the `cpu` hierarchy.
    pub fn cpu_path(&self) -> &Path {
        &self.paths[0]
    }

    /// The group's folder in the `memory` hierarchy.
    pub fn memory_path(&self) -> &Path {
        self.paths.last().expect("a group has a folder")
    }

    /// Limits the group to `cores` CPUs (quota over period); `None` lifts the limit.
    pub fn set_cpu(&self, cores: Option<f64>) -> Result<()> {
        self.write_cpu(cpu_limit(cores))
    }

    fn write_cpu(&self, (quota, period): (Option<u64>, u64)) -> Result<()> {
        let path = self.cpu_path();
        match self.hierarchy {
            Hierarchy::V2 { .. } => {
                let quota = quota.map_or("max".to_owned(), |q| q.to_string());
                write_file(&path.join("cpu.max"), &format!("{quota} {period}"))
            }
            Hierarchy::V1 { .. } => {
                // lift the quota first: a period change must stay valid with the old quota
                write_file(&path.join("cpu.cfs_quota_us"), "-1")?;
                write_file(&path.join("cpu.cfs_period_us"), &period.to_string())?;
                match quota {
                    Some(q) => write_file(&path.join("cpu.cfs_quota_us"), &q.to_string()),
                    None => Ok(()),
                }
            }
        }
    }

    /// Limits the group's memory to `bytes`.
    pub fn set_memory(&self, bytes: u64) -> Result<()> {
        let file = match self.hierarchy {
            Hierarchy::V2 { .. } => "memory.max",
            Hierarchy::V1 { .. } => "memory.limit_in_bytes",
        };
        write_file(&self.memory_path().join(file), &bytes.to_string())
    }

    /// Bytes the group's processes use now.
    pub fn memory_used(&self) -> Result<u64> {
        let file = match self.hierarchy {
            Hierarchy::V2 { .. } => "memory.current",
            Hierarchy::V1 { .. } => "memory.usage_in_bytes",
        };
        let path = self.memory_path().join(file);
        let text = read_text(&path)?;
        text.trim().parse().map_err(|e| EnvError::RealExecution {
            message: format!("{}: `{}`: {e}", path.display(), text.trim()),
        })
    }

    /// Moves process `pid` into the group (every controller's folder).
    pub fn add(&self, pid: u32) -> Result<()> {
        for path in &self.paths {
            write_file(&path.join("cgroup.procs"), &pid.to_string())?;
        }
        Ok(())
    }

    /// Kills every process in the group and its children, then removes the folders, deepest
    /// first. Errors are gathered: removal goes on past one that fails.
    pub fn remove(&self) -> Result<()> {
        let mut first_error = None;
        for path in &self.paths {
            if let Err(e) = remove_tree(path)
                && first_error.is_none()
            {
                first_error = Some(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

/// A group whose CPU limit changes while its processes run, period included.
///
/// The kernel keeps a group's period timer when the period is rewritten (`start_cfs_bandwidth`
/// returns early while the timer is active), so a group moved from a 1 s period to 10 ms gets
/// its new quota once and then no runtime until the old timer fires: workers stalled up to a
/// second after each such change. The limit therefore lives in a leaf group, and a new period
/// goes to a new leaf, whose timer starts with it: the processes move there and the old leaf is
/// removed. Memory limits stay on the outer group, which holds the leaf.
#[derive(Debug)]
pub struct LiveCpuGroup {
    outer: Group,
    leaf: Group,
    leaves_made: usize,
    period_us: u64,
    pids: Vec<u32>,
}

impl LiveCpuGroup {
    /// Makes the first leaf of `outer`, which must hold no process itself.
    pub fn new(outer: Group) -> Result<LiveCpuGroup> {
        outer.delegate()?;
        let leaf = outer.child("cpu-0")?;
        Ok(LiveCpuGroup {
            outer,
            leaf,
            leaves_made: 1,
            period_us: DEFAULT_PERIOD_US,
            pids: Vec::new(),
        })
    }

    /// The outer group: its memory limit and use cover the leaf.
    pub fn outer(&self) -> &Group {
        &self.outer
    }

    /// Moves process `pid` into the group.
    pub fn add(&mut self, pid: u32) -> Result<()> {
        self.leaf.add(pid)?;
        self.pids.push(pid);
        Ok(())
    }

    /// Limits the processes to `cores` CPUs; `None` lifts the limit. A new period moves them to
    /// a new leaf, limited before they arrive.
    pub fn set_cpu(&mut self, cores: Option<f64>) -> Result<()> {
        let limit = cpu_limit(cores);
        if limit.1 == self.period_us {
            return self.leaf.write_cpu(limit);
        }
        let leaf = self.outer.child(&format!("cpu-{}", self.leaves_made))?;
        self.leaves_made += 1;
        leaf.write_cpu(limit)?;
        let mut moved = Vec::with_capacity(self.pids.len());
        for &pid in &self.pids {
            match leaf.add(pid) {
                Ok(()) => moved.push(pid),
                // one that has exited stays behind; its end is reported where it is awaited
                Err(_) if !super::process::is_running(pid) => {}
                Err(e) => return Err(e),
            }
        }
        self.pids = moved;
        let old = std::mem::replace(&mut self.leaf, leaf);
        self.period_us = limit.1;
        for path in &old.paths {
            // empty now; one that cannot go yet (a process still leaving) goes with the run
            let _ = std::fs::remove_dir(path);
        }
        Ok(())
    }
}

/// Quota (none for no limit) and period (µs) for `cores`.
fn cpu_limit(cores: Option<f64>) -> (Option<u64>, u64) {
    match cores {
        None => (None, DEFAULT_PERIOD_US),
        Some(c) => {
            let (quota, period) = quota_for(c);
            (Some(quota), period)
        }
    }
}

/// Quota and period (µs) for `cores`: the period stretches so the quota stays at least 1 ms.
fn quota_for(cores: f64) -> (u64, u64) {
    let cores = cores.max(1e-6);
    let period =
        ((MIN_QUOTA_US as f64 / cores).ceil() as u64).clamp(DEFAULT_PERIOD_US, MAX_PERIOD_US);
    let quota = ((cores * period as f64).round() as u64).max(MIN_QUOTA_US);
    (quota, period)
}

/// The cores a quota can express: what [`Group::set_cpu`] writes for `cores`, read back.
pub fn representable_cores(cores: f64) -> f64 {
    let (quota, period) = quota_for(cores);
    quota as f64 / period as f64
}

fn missing_controllers(listed: &str) -> Option<&'static str> {
    let has = |c: &str| listed.split_whitespace().any(|l| l == c);
    ["cpu", "memory"].into_iter().find(|c| !has(c))
}

/// This process's cgroup2 path (`0::/path` in /proc/self/cgroup).
fn own_v2_group() -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("0::"))
        .map(str::to_owned)
}

fn enable_v2_controllers(path: &Path) -> Result<()> {
    write_file(&path.join("cgroup.subtree_control"), "+cpu +memory")
}

fn collect_pids(path: &Path, pids: &mut Vec<u32>) {
    if let Ok(text) = std::fs::read_to_string(path.join("cgroup.procs")) {
        pids.extend(text.lines().filter_map(|l| l.trim().parse::<u32>().ok()));
    }
    for child in child_dirs(path) {
        collect_pids(&child, pids);
    }
}

fn child_dirs(path: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default()
}

/// SIGKILLs the processes under `path`, waits up to 5 s for them to leave, then removes the
/// folders from the leaves up.
fn remove_tree(path: &Path) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut pids = Vec::new();
        collect_pids(path, &mut pids);
        if pids.is_empty() {
            break;
        }
        for pid in pids {
            super::process::kill(pid);
        }
        if Instant::now() > deadline {
            return Err(EnvError::RealExecution {
                message: format!(
                    "{}: processes still running 5 s after SIGKILL",
                    path.display()
                ),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    remove_dirs(path)
}

fn remove_dirs(path: &Path) -> Result<()> {
    for child in child_dirs(path) {
        remove_dirs(&child)?;
    }
    std::fs::remove_dir(path).map_err(|e| EnvError::io(path, e))
}

/// Removes the run folders whose process is gone (a run killed before it could clean up).
fn remove_stale_runs(hierarchy: &Hierarchy) {
    for base in hierarchy.bases() {
        for dir in child_dirs(&base) {
            let name = dir.file_name().and_then(|n| n.to_str());
            if name
                .and_then(|n| run_pid(n, RUN_PREFIX))
                .is_some_and(is_gone)
            {
                // best effort: a folder that cannot go now is tried again by the next run
                let _ = remove_tree(&dir);
            }
        }
    }
}

fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| EnvError::io(path, e))
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| not_writable(path, e))
}

fn not_writable(path: &Path, e: std::io::Error) -> EnvError {
    EnvError::CgroupUnavailable {
        controller: "cpu and memory",
        path: path.to_owned(),
        reason: format!(
            "cannot be written ({e}); real execution needs root, or `real.cgroup_root` set to a cgroup2 folder delegated to you"
        ),
    }
}

fn unavailable(controller: &'static str, path: &Path, reason: String) -> EnvError {
    EnvError::CgroupUnavailable {
        controller,
        path: path.to_owned(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotas_stay_above_the_kernel_minimum_and_express_the_cores() {
        for cores in [0.0005, 0.004, 0.01, 0.3, 0.84, 1.6, 7.0] {
            let (quota, period) = quota_for(cores);
            assert!(quota >= MIN_QUOTA_US, "{cores}: {quota}");
            assert!((DEFAULT_PERIOD_US..=MAX_PERIOD_US).contains(&period));
            let back = quota as f64 / period as f64;
            if cores >= 0.001 {
                assert!((back - cores).abs() / cores < 0.01, "{cores} -> {back}");
            }
        }
    }

    #[test]
    fn a_run_folder_names_its_process() {
        assert_eq!(run_pid("schedlab-123-4", RUN_PREFIX), Some(123));
        assert_eq!(run_pid("other-123-4", RUN_PREFIX), None);
    }

    #[test]
    fn a_base_that_cannot_be_read_is_refused_naming_it() {
        let dir = tempfile_dir();
        let err = Hierarchy::detect(Some(&dir.join("missing"))).unwrap_err();
        assert!(err.to_string().contains("missing"), "{err}");
        std::fs::write(dir.join("cgroup.controllers"), "hugetlb\n").unwrap();
        let err = Hierarchy::detect(Some(&dir)).unwrap_err().to_string();
        assert!(err.contains("`cpu`") && err.contains("hugetlb"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_base_that_cannot_be_written_is_refused_naming_the_path() {
        // sysfs takes no new folders or files, not even from root
        let base = PathBuf::from("/sys/kernel");
        for hierarchy in [
            Hierarchy::V2 { base: base.clone() },
            Hierarchy::V1 {
                cpu: base.clone(),
                memory: base.clone(),
            },
        ] {
            let err = hierarchy.create_run(0).unwrap_err().to_string();
            assert!(err.contains("/sys/kernel"), "{err}");
            assert!(err.contains("cannot be written"), "{err}");
        }
    }

    fn tempfile_dir() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "schedlab-cgroup-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}
