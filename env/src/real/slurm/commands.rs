//! [`Slurm`]: the `sbatch`, `scontrol`, `squeue` and `scancel` calls of a jobs episode run
//! through Slurm, each timed (their latencies are measured, not assumed), with failures named.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::{EnvError, Result};
use crate::real::process::is_gone;

/// Prefix of every job schedlab submits: `schedlab-{pid}-{run}-{job}`.
pub const JOB_PREFIX: &str = "schedlab-";

/// How many times a Slurm command ran and its mean wall seconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CommandTiming {
    pub calls: u32,
    pub mean_s: f64,
}

/// A node of the cluster, as `sinfo` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct SlurmNode {
    pub name: String,
    pub memory_mb: u64,
}

/// The Slurm cluster `SLURM_CONF` (or Slurm's default configuration) names.
#[derive(Debug, Default)]
pub struct Slurm {
    timings: Mutex<BTreeMap<String, CommandTiming>>,
}

impl Slurm {
    /// The cluster, refused where its controller does not answer.
    pub fn connect() -> Result<Slurm> {
        let slurm = Slurm::default();
        slurm.run("sinfo", &["-h", "-o", "%P"]).map_err(|e| EnvError::RealExecution {
            message: format!(
                "execution = \"slurm\" needs a running Slurm cluster (as root: `deploy/slurm/cluster.sh up N`, then export the SLURM_CONF it prints): {e}"
            ),
        })?;
        Ok(slurm)
    }

    /// Runs `program args`, timed under `program` and its first argument; its output, or an
    /// error with what it printed.
    fn run(&self, program: &str, args: &[&str]) -> Result<String> {
        let started = Instant::now();
        let output = Command::new(program)
            .args(args)
            .output()
            .map_err(|e| EnvError::io(program, e))?;
        let key = match args.first().filter(|a| !a.starts_with('-')) {
            Some(sub) => format!("{program} {sub}"),
            None => program.to_owned(),
        };
        let mut timings = self.timings.lock().unwrap_or_else(|e| e.into_inner());
        let timing = timings.entry(key).or_default();
        timing.mean_s +=
            (started.elapsed().as_secs_f64() - timing.mean_s) / (timing.calls + 1) as f64;
        timing.calls += 1;
        drop(timings);
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            Err(EnvError::RealExecution {
                message: format!(
                    "`{program} {}` failed ({}): {}",
                    args.join(" "),
                    output.status,
                    String::from_utf8_lossy(&output.stderr).trim()
                ),
            })
        }
    }

    /// Each command's calls and mean wall seconds so far.
    pub fn timings(&self) -> BTreeMap<String, CommandTiming> {
        self.timings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The partition's nodes in name order, with their memory.
    pub fn nodes(&self) -> Result<Vec<SlurmNode>> {
        let listed = self.run("sinfo", &["-h", "-N", "-o", "%N %m"])?;
        let mut nodes: Vec<SlurmNode> = listed
            .lines()
            .filter_map(|line| {
                let (name, memory) = line.trim().split_once(' ')?;
                Some(SlurmNode {
                    name: name.to_owned(),
                    memory_mb: memory.trim().trim_end_matches('+').parse().ok()?,
                })
            })
            .collect();
        nodes.sort_by_key(|node| natural_key(&node.name));
        nodes.dedup();
        Ok(nodes)
    }

    /// The controller's address (`SlurmctldHost=NAME(ADDRESS)`): schedlab runs beside the
    /// controller, and the nodes reach the job's server there.
    pub fn controller_address(&self) -> Result<IpAddr> {
        let config = self.run("scontrol", &["show", "config"])?;
        let host = config
            .lines()
            .find(|l| l.trim_start().starts_with("SlurmctldHost"))
            .and_then(|l| l.split_once('='))
            .map(|(_, v)| v.trim().to_owned())
            .unwrap_or_default();
        host.split_once('(')
            .and_then(|(_, address)| address.trim_end_matches(')').parse().ok())
            .ok_or_else(|| EnvError::RealExecution {
                message: format!(
                    "the job servers listen on the controller's address, and SlurmctldHost `{host}` gives none: write it as NAME(ADDRESS)"
                ),
            })
    }

    /// Submits `script LAYOUT` as job `name`, held: one task, the least memory; its output to
    /// `output`. Its id.
    pub fn submit_held(
        &self,
        name: &str,
        script: &Path,
        layout: &Path,
        output: &Path,
    ) -> Result<u32> {
        let (script, layout, output) = (script.display(), layout.display(), output.display());
        let (name_arg, output_arg) = (format!("--job-name={name}"), format!("--output={output}"));
        let script = script.to_string();
        let layout = layout.to_string();
        let args = [
            "--hold",
            "--parsable",
            "--ntasks=1",
            "--mem-per-cpu=1",
            &name_arg,
            &output_arg,
            &script,
            &layout,
        ];
        let id = self.run("sbatch", &args)?;
        let id = id.trim().split(';').next().unwrap_or_default();
        id.parse().map_err(|_| EnvError::RealExecution {
            message: format!("sbatch gave job {name} the id `{id}`, not a number"),
        })
    }

    /// Places held job `id` on `nodes` (one task per container, `memory_mb` each, every
    /// listed node used) and releases it.
    pub fn place_and_release(
        &self,
        id: u32,
        nodes: &[String],
        tasks: usize,
        memory_mb: u64,
    ) -> Result<()> {
        self.place(id, nodes, tasks, memory_mb)?;
        self.run("scontrol", &["release", &id.to_string()])?;
        Ok(())
    }

    /// Places held job `id` as [`Slurm::place_and_release`] does, without releasing it. The
    /// CPU count is set with the tasks: raising `NumTasks` raises it, lowering it does not, and
    /// a job rescaled down would keep its old CPUs and reserve their memory
    /// (`MinMemoryCPU` is per CPU), so Slurm would hold it back from room schedlab gave it.
    pub fn place(&self, id: u32, nodes: &[String], tasks: usize, memory_mb: u64) -> Result<()> {
        let job = format!("JobId={id}");
        let (tasks, cpus) = (format!("NumTasks={tasks}"), format!("NumCPUs={tasks}"));
        self.run("scontrol", &["update", &job, &tasks, &cpus])?;
        let count = format!("NumNodes={0}-{0}", nodes.len());
        let list = format!("ReqNodeList={}", nodes.join(","));
        let memory = format!("MinMemoryCPU={memory_mb}");
        self.run(
            "scontrol",
            &["update", &job, &count, &list, &memory, "StartTime=now"],
        )?;
        Ok(())
    }

    /// Job `id`'s state and reason (`RUNNING None`), `None` once Slurm has forgotten it.
    pub fn state(&self, id: u32) -> Result<Option<(String, String)>> {
        let listed = self.run("squeue", &["-h", "-j", &id.to_string(), "-o", "%T|%r|%N"])?;
        Ok(listed.lines().next().and_then(|line| {
            let mut fields = line.split('|');
            Some((fields.next()?.to_owned(), fields.next()?.to_owned()))
        }))
    }

    /// The nodes Slurm runs job `id` on, expanded (`node[1-2]` is `node1`, `node2`).
    pub fn job_nodes(&self, id: u32) -> Result<Vec<String>> {
        let listed = self.run("squeue", &["-h", "-j", &id.to_string(), "-o", "%N"])?;
        let compact = listed.trim();
        if compact.is_empty() {
            return Ok(Vec::new());
        }
        let expanded = self.run("scontrol", &["show", "hostnames", compact])?;
        Ok(expanded.lines().map(str::to_owned).collect())
    }

    /// Preempts job `id`: requeued and held when it runs (Slurm signals its processes), held
    /// when it still waits. A job that starts between the two is tried again.
    pub fn requeue_held(&self, id: u32) -> Result<()> {
        let id = id.to_string();
        let mut tries = 0;
        loop {
            let Err(e) = self.run("scontrol", &["requeuehold", &id]) else {
                return Ok(());
            };
            if self.run("scontrol", &["hold", &id]).is_ok() {
                return Ok(());
            }
            tries += 1;
            if tries == 5 {
                return Err(e);
            }
        }
    }

    /// Waits until requeued job `id` is pending again (its processes gone), at most `limit`.
    pub fn await_pending(&self, id: u32, limit: Duration) -> Result<()> {
        let check = || match self.state(id)? {
            Some((state, _)) if state == "PENDING" => Ok(None),
            Some((state, reason)) => Ok(Some(format!("{state} ({reason})"))),
            None => Err(EnvError::RealExecution {
                message: format!("Slurm forgot job {id} while requeueing it"),
            }),
        };
        poll_until(limit, Duration::from_millis(10), check, |state| {
            format!(
                "Slurm job {id} is still {state} {} s after its requeue",
                limit.as_secs()
            )
        })
    }

    /// Cancels jobs `ids` (ended ones are skipped by Slurm).
    pub fn cancel(&self, ids: &[u32]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        let ids: Vec<String> = ids.iter().map(u32::to_string).collect();
        let mut args = vec!["--quiet"];
        args.extend(ids.iter().map(String::as_str));
        self.run("scancel", &args).map(drop)
    }

    /// Waits until Slurm lists none of jobs `ids`, at most `limit`.
    pub fn await_gone(&self, ids: &[u32], limit: Duration) -> Result<()> {
        let check = || {
            let listed = self.run("squeue", &["-h", "-o", "%i"])?;
            let left: Vec<&str> = listed
                .lines()
                .map(str::trim)
                .filter(|id| id.parse().is_ok_and(|id| ids.contains(&id)))
                .collect();
            Ok((!left.is_empty()).then(|| left.join(", ")))
        };
        poll_until(limit, Duration::from_millis(20), check, |left| {
            format!(
                "Slurm still lists jobs {left} {} s after their cancel",
                limit.as_secs()
            )
        })
    }

    /// Cancels the jobs of schedlab processes that are gone (killed before they could cancel
    /// their own), as the next run removes their control groups.
    pub fn cancel_orphans(&self) -> Result<()> {
        let listed = self.run("squeue", &["-h", "-o", "%i %j"])?;
        let orphans: Vec<u32> = listed
            .lines()
            .filter_map(|line| {
                let (id, name) = line.trim().split_once(' ')?;
                let pid = crate::real::process::run_pid(name, JOB_PREFIX)?;
                is_gone(pid).then(|| id.parse().ok()).flatten()
            })
            .collect();
        self.cancel(&orphans)
    }
}

/// `node10` after `node9`: the name's digits compared as a number.
fn natural_key(name: &str) -> (String, u64) {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (stem, number) = name.split_at(name.len() - digits);
    (stem.to_owned(), number.parse().unwrap_or(0))
}

/// Calls `check` every `every` until it finds nothing left (`None`), at most `limit`; past it,
/// fails with `late`'s message about what `check` last found.
fn poll_until(
    limit: Duration,
    every: Duration,
    mut check: impl FnMut() -> Result<Option<String>>,
    late: impl FnOnce(String) -> String,
) -> Result<()> {
    let deadline = Instant::now() + limit;
    loop {
        let Some(left) = check()? else {
            return Ok(());
        };
        if Instant::now() > deadline {
            return Err(EnvError::RealExecution {
                message: late(left),
            });
        }
        std::thread::sleep(every);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{natural_key, poll_until};

    #[test]
    fn nodes_sort_by_their_number() {
        let mut names = vec!["node10", "node2", "node1"];
        names.sort_by_key(|n| natural_key(n));
        assert_eq!(names, ["node1", "node2", "node10"]);
    }

    #[test]
    fn polling_ends_when_nothing_is_left_or_fails_past_its_limit() {
        let mut calls = 0;
        let waited = poll_until(
            Duration::from_secs(5),
            Duration::ZERO,
            || {
                calls += 1;
                Ok((calls < 3).then(|| format!("job {calls}")))
            },
            |left| format!("late: {left}"),
        );
        assert!(waited.is_ok());
        assert_eq!(calls, 3);
        let late = poll_until(
            Duration::ZERO,
            Duration::ZERO,
            || Ok(Some("job 7".to_owned())),
            |left| format!("still {left}"),
        );
        assert!(late.unwrap_err().to_string().contains("still job 7"));
    }
}
