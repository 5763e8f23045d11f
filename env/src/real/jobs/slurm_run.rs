//! The jobs cluster's runs through Slurm (`execution = "slurm"`): every job submitted held
//! when the episode starts, and each start a placement and a release of its Slurm job, whose
//! workers `srun` starts on the nodes schedlab chose. The job's server (its thread here, on
//! the controller's host) keeps the parameters and writes the checkpoints, as for processes
//! started here; a worker, once connected, is moved into a group of its container's quota
//! inside its Slurm node's group.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::{EnvError, Result};
use crate::jobs::{Container, JobsWorkload};
use crate::real::cgroup::{ContainerGroup, Group, Hierarchy};
use crate::real::connect::StartFailure;
use crate::real::slurm::commands::JOB_PREFIX;
use crate::real::slurm::{Slurm, SlurmNode, script};

/// How long a requeued job may take to be pending again.
const REQUEUE_LIMIT: Duration = Duration::from_secs(60);
/// How often a start asks Slurm whether it ended the job while its workers connect.
const STATE_POLL: Duration = Duration::from_millis(250);
/// The least memory limit of a container: a worker process needs it to exist at all.
pub(super) const MIN_CONTAINER_MIB: u64 = 256;

/// One episode's Slurm jobs, one per job of the workload, held until started.
pub struct SlurmJobs {
    slurm: Arc<Slurm>,
    hierarchy: Hierarchy,
    address: IpAddr,
    /// The Slurm job of each job.
    ids: Vec<u32>,
    /// The Slurm node of each machine, and the share of its memory one virtual MiB is.
    nodes: Vec<SlurmNode>,
    memory_share: Vec<f64>,
    folder: PathBuf,
    tag: String,
}

/// Where a start's workers run and what Slurm measured of it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SlurmStartTimes {
    /// Wall seconds waiting for a requeued job to be pending again (restarts).
    pub requeue_s: f64,
    /// Wall seconds of the placement and release commands.
    pub release_s: f64,
    /// Wall seconds from the release to every worker connected.
    pub release_to_workers_s: f64,
    /// The nodes the scheduler chose, and those Slurm ran the job on (read back from
    /// `squeue`).
    pub chosen: Vec<String>,
    pub nodes: Vec<String>,
}

impl SlurmJobs {
    /// Submits every job of `workload` held, its files in `folder`; machine m is the m-th
    /// node in name order. Refused where the cluster has fewer nodes than the workload has
    /// machines.
    pub fn submit(workload: &JobsWorkload, folder: &Path, tag: String) -> Result<SlurmJobs> {
        let slurm = Arc::new(Slurm::connect()?);
        slurm.cancel_orphans()?;
        let machines: Vec<f64> = workload
            .machines
            .iter()
            .flat_map(|m| std::iter::repeat_n(m.mem_gb, m.count))
            .collect();
        let listed = slurm.nodes()?;
        if listed.len() < machines.len() {
            return Err(EnvError::RealExecution {
                message: format!(
                    "the workload has {} machines and the Slurm cluster {} nodes ({}): start one with as many (`deploy/slurm/cluster.sh up {}`)",
                    machines.len(),
                    listed.len(),
                    listed
                        .iter()
                        .map(|n| n.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    machines.len()
                ),
            });
        }
        let nodes: Vec<SlurmNode> = listed.into_iter().take(machines.len()).collect();
        let memory_share = machines
            .iter()
            .zip(&nodes)
            .map(|(gb, node)| node.memory_mb as f64 / (gb * 1024.0))
            .collect();
        let script_path = folder.join("job.sh");
        script::write_script(
            &script_path,
            &script::batch_script(&crate::real::process::schedlab_binary()?),
        )?;
        let mut jobs = SlurmJobs {
            address: slurm.controller_address()?,
            slurm,
            hierarchy: Hierarchy::detect(None)?,
            ids: Vec::new(),
            nodes,
            memory_share,
            folder: folder.to_owned(),
            tag,
        };
        for (j, job) in workload.jobs.iter().enumerate() {
            let name = format!("{JOB_PREFIX}{}-{j}", jobs.tag);
            let submitted =
                jobs.slurm
                    .submit_held(&name, &script_path, &jobs.layout(j), &jobs.output(j));
            let id = submitted.map_err(|e| EnvError::RealExecution {
                message: format!("Slurm refused job {}: {e}", job.id),
            })?;
            jobs.ids.push(id);
        }
        Ok(jobs)
    }

    fn layout(&self, job: usize) -> PathBuf {
        self.folder.join(format!("job-{job}.layout"))
    }

    fn output(&self, job: usize) -> PathBuf {
        self.folder.join(format!("job-{job}.out"))
    }

    /// What run `run` of job `job` needs to start on `containers`, each with its real
    /// `(cores, MiB)`; `requeued` when the job ran before (its Slurm job is requeued, and
    /// pending only once its processes are gone).
    pub fn start(
        &self,
        (job, run): (usize, u32),
        containers: &[Container],
        limits: Vec<(f64, u64)>,
        requeued: bool,
    ) -> SlurmStart {
        let nodes = containers
            .iter()
            .map(|c| self.nodes[c.machine as usize].name.clone())
            .collect();
        let memory_mb = containers
            .iter()
            .map(|c| {
                (c.mem as f64 * self.memory_share[c.machine as usize])
                    .floor()
                    .max(1.0) as u64
            })
            .max()
            .unwrap_or(1);
        SlurmStart {
            slurm: Arc::clone(&self.slurm),
            hierarchy: self.hierarchy.clone(),
            address: self.address,
            id: self.ids[job],
            layout: self.layout(job),
            output: self.output(job),
            nodes,
            memory_mb,
            limits,
            requeued,
            group_prefix: format!("{JOB_PREFIX}{}-job-{job}-run-{run}", self.tag),
        }
    }

    /// Preempts job `job`'s Slurm job (requeued, held).
    pub fn preempt(&self, job: usize) -> Result<()> {
        self.slurm.requeue_held(self.ids[job])
    }

    /// Each Slurm command's calls and mean wall seconds.
    pub fn timings(&self) -> std::collections::BTreeMap<String, crate::real::slurm::CommandTiming> {
        self.slurm.timings()
    }
}

impl Drop for SlurmJobs {
    /// Cancels every job and waits until Slurm lists none of them: a cancelled job that ran is
    /// listed (completing) until its processes are gone.
    fn drop(&mut self) {
        let cancelled = self.slurm.cancel(&self.ids);
        let gone = cancelled.and_then(|()| self.slurm.await_gone(&self.ids, REQUEUE_LIMIT));
        if let Err(e) = gone {
            eprintln!("real execution: {e}");
        }
    }
}

/// One start of a job through Slurm.
pub struct SlurmStart {
    slurm: Arc<Slurm>,
    hierarchy: Hierarchy,
    pub address: IpAddr,
    id: u32,
    layout: PathBuf,
    /// What the job's script and workers print.
    output: PathBuf,
    /// Container k's node.
    nodes: Vec<String>,
    /// Slurm memory per task: the largest container's share of its node's memory.
    memory_mb: u64,
    /// Container k's real cores and memory limit in MiB.
    limits: Vec<(f64, u64)>,
    requeued: bool,
    group_prefix: String,
}

impl SlurmStart {
    /// Places the job and releases it, its workers to connect to `server`; the requeue wait
    /// and the release's commands, timed.
    pub fn release(&self, server: &str) -> Result<SlurmStartTimes> {
        let mut times = SlurmStartTimes::default();
        if self.requeued {
            let waited = Instant::now();
            self.slurm.await_pending(self.id, REQUEUE_LIMIT)?;
            // the node revoked the job's old credential by now; a new one made within the same
            // second would be refused ("Job credential revoked": Slurm compares whole
            // seconds, and by default holds a requeued job for `cred_expire` + 1 s instead)
            let second = unix_seconds();
            while unix_seconds() <= second {
                std::thread::sleep(Duration::from_millis(5));
            }
            times.requeue_s = waited.elapsed().as_secs_f64();
        }
        script::write_layout(&self.layout, server, &self.nodes)?;
        let mut distinct = self.nodes.clone();
        distinct.sort();
        distinct.dedup();
        let released = Instant::now();
        self.slurm
            .place_and_release(self.id, &distinct, self.nodes.len(), self.memory_mb)?;
        times.release_s = released.elapsed().as_secs_f64();
        Ok(times)
    }

    /// A check while workers connect: fails when Slurm ended the job; asks at most every
    /// `STATE_POLL`.
    pub(crate) fn watch(&self) -> impl FnMut() -> std::result::Result<(), StartFailure> + '_ {
        let mut asked = Instant::now();
        move || {
            if asked.elapsed() < STATE_POLL {
                return Ok(());
            }
            asked = Instant::now();
            let ended = match self.slurm.state(self.id) {
                Ok(Some((state, _)))
                    if ["PENDING", "CONFIGURING", "RUNNING"].contains(&state.as_str()) =>
                {
                    return Ok(());
                }
                Ok(Some((state, reason))) => format!("is {state} ({reason})"),
                Ok(None) => "left the queue".to_owned(),
                Err(e) => return Err(StartFailure::Connecting(e.to_string())),
            };
            let printed = std::fs::read_to_string(&self.output).unwrap_or_default();
            let tail: Vec<&str> = printed.lines().rev().take(5).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            Err(StartFailure::Connecting(format!(
                "Slurm job {} {ended} before its workers connected; it printed: {}",
                self.id,
                tail.join(" / ")
            )))
        }
    }

    /// How many containers (workers) the run has.
    pub fn containers(&self) -> usize {
        self.nodes.len()
    }

    /// The connected workers `pids`, each moved into a group of its own inside its Slurm
    /// node's, with its memory limit; each group goes to `made` as soon as it exists.
    pub fn settle(&self, pids: &[u32], made: &Mutex<Vec<Group>>) -> Result<Vec<ContainerGroup>> {
        pids.iter()
            .enumerate()
            .map(|(k, &pid)| {
                let node = self.hierarchy.group_of(pid)?;
                let group = node.child(&format!("{}-{k}", self.group_prefix))?;
                made.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(group.clone());
                let (cores, mib) = self.limits[k];
                group.set_memory(mib.max(MIN_CONTAINER_MIB) << 20)?;
                group.add(pid)?;
                Ok(ContainerGroup { group, cores })
            })
            .collect()
    }

    /// Reads back the nodes Slurm runs the job on into `times`: they must be the chosen ones.
    pub fn check_placement(&self, times: &mut SlurmStartTimes) -> Result<()> {
        times.nodes = self.slurm.job_nodes(self.id)?;
        let mut chosen = self.nodes.clone();
        chosen.sort();
        chosen.dedup();
        times.chosen = chosen.clone();
        if times.nodes == chosen {
            Ok(())
        } else {
            Err(EnvError::RealExecution {
                message: format!(
                    "Slurm runs job {} on {:?}, and the scheduler chose {chosen:?}",
                    self.id, times.nodes
                ),
            })
        }
    }
}

fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
