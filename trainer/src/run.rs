//! A training run's folder, `{out}/{workload}__{agent}__{seed}__{unix seconds}/`: the
//! hyperparameters (`config.json`), TensorBoard events, and checkpoints (a burn record plus
//! `manifest.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use burn::module::Module;
use serde::{Deserialize, Serialize};

use crate::errors::CheckpointError;
use crate::reward_scale::ReturnStats;
use schedlab_artifacts::{Panicked, without_panic, write_atomic, write_atomic_with};

/// What a checkpoint is, so a resume or an evaluation can check it belongs to its workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub agent: String,
    pub config: serde_json::Value,
    pub workload: String,
    pub workload_sha256: String,
    /// Env rounds trained when the checkpoint was written.
    pub step: u64,
    pub seed: u64,
    pub schedlab_version: String,
    /// The burn record files of the network and of the optimiser state, in the run folder. A
    /// shipped policy (data/policies/) keeps no optimiser state: it plays, it does not resume.
    pub model: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub optimizer: String,
    /// The target network's record file, for agents that have one (DQN).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Observation length and action-mask length the network was built for.
    pub observation_len: usize,
    pub mask_len: usize,
    /// The reward scale's running return statistics, for learners that scale rewards
    /// (trainer/src/reward_scale.rs); absent in older checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_stats: Option<ReturnStats>,
    /// Workload settings (`key` = TOML value) that shape the network's observation and
    /// action, from the training workload: players set them on the workloads they play it on.
    /// Absent in older checkpoints.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub play_settings: BTreeMap<String, String>,
    /// Workload settings the run trained under (`key` = TOML value, as `schedlab train --set
    /// section.key=value` gives them, such as a shaped reward): a resume loads the workload
    /// file with them. Absent where there were none, and in older checkpoints.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub workload_settings: BTreeMap<String, String>,
    /// The kind of env trained on (`jobs`, `dag`, ...); absent in older checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env_kind: Option<String>,
    /// The learner's resume state file (`resume-STEP.json`, trainer/src/learner.rs): with it a
    /// resumed run continues as an uninterrupted one. Absent for learners that keep none (DQN)
    /// and in older checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_state: Option<String>,
    /// Wall-clock seconds the run has trained so far, over all its processes (warm start and
    /// evaluations included; work redone after a kill counted again); absent in older
    /// checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    /// With `keep_best`: the network of the best greedy evaluation so far, which is what the
    /// run folder plays (`load_agent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<BestPolicy>,
}

/// The best greedy evaluation of a run so far and its network's record file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestPolicy {
    pub model: String,
    pub step: u64,
    /// The mean episode return of its evaluation episodes.
    pub eval_return: f64,
}

impl Manifest {
    /// Reads `manifest.json` of a run folder; a folder without one is refused as holding no
    /// checkpoint (a run stopped before its first, or not a run folder).
    pub fn read(run: &Path) -> std::io::Result<Manifest> {
        let path = run.join("manifest.json");
        if run.is_dir() && !path.exists() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the folder holds no checkpoint (no manifest.json): not a run folder, or a run stopped before its first checkpoint",
            ));
        }
        let text = std::fs::read_to_string(&path)?;
        serde_json::from_str(&text)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))
    }
}

#[derive(Debug, Clone)]
pub struct RunDir {
    pub path: PathBuf,
}

impl RunDir {
    /// A new folder `WORKLOAD__AGENT__SEED__SECOND` under `out`; a second run started within
    /// the same second gets `SECOND-1`, `SECOND-2`, ... rather than writing into the first's.
    pub fn create(out: &Path, workload: &str, agent: &str, seed: u64) -> std::io::Result<RunDir> {
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        std::fs::create_dir_all(out)?;
        let stem = format!("{workload}__{agent}__{seed}__{stamp}");
        let mut path = out.join(&stem);
        let mut repeat = 0;
        loop {
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(RunDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    repeat += 1;
                    path = out.join(format!("{stem}-{repeat}"));
                }
                Err(e) => return Err(e),
            }
        }
    }

    pub fn write_json(&self, name: &str, value: &impl Serialize) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
        write_atomic(&self.path.join(name), text.as_bytes())
    }

    /// Writes a module's burn record atomically (a temporary file renamed into place).
    pub fn save_record<M: Module + Clone>(&self, name: &str, module: &M) -> std::io::Result<()> {
        write_atomic_with(&self.path.join(name), |tmp| {
            module
                .clone()
                .save_file(tmp)
                .map_err(|e| record_error(tmp, e))
        })
    }

    /// Writes an optimiser's state atomically.
    pub fn save_optimizer(
        &self,
        name: &str,
        optimizer: &burn::optim::ModuleOptimizer,
    ) -> std::io::Result<()> {
        write_atomic_with(&self.path.join(name), |tmp| {
            optimizer.save(tmp).map_err(|e| record_error(tmp, e))
        })
    }

    /// Makes a checkpoint current once its record files are written: points `manifest.json`
    /// at them, then removes older records. A crash at any point leaves a manifest naming
    /// complete files.
    pub fn commit_checkpoint(&self, manifest: &Manifest) -> std::io::Result<()> {
        self.write_json("manifest.json", manifest)?;
        let current = manifest.files();
        for entry in std::fs::read_dir(&self.path)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            let record = (CHECKPOINT_PREFIXES.iter().any(|p| name.starts_with(p))
                && name.ends_with(".bpk"))
                || (name.starts_with(RESUME_PREFIX) && name.ends_with(".json"));
            if record && !current.contains(&name.as_str()) {
                std::fs::remove_file(self.path.join(name))?;
            }
        }
        Ok(())
    }
}

/// Loads a burn record of the run into `module` (which fixes the architecture); the error
/// names the file.
pub fn load_record<M: Module>(module: M, run: &Path, name: &str) -> Result<M, CheckpointError> {
    without_panic(|| module.try_load_file(run.join(name)))
        .map_err(|panic| damaged(name, &panic))?
        .map_err(|e| unreadable(name, e))
}

/// Loads an optimiser state of the run; the error names the file.
pub fn load_optimizer(
    optimizer: &burn::optim::ModuleOptimizer,
    run: &Path,
    name: &str,
) -> Result<burn::optim::ModuleOptimizer, CheckpointError> {
    check_optimizer_kept(name)?;
    without_panic(|| optimizer.clone().load(run.join(name)))
        .map_err(|panic| damaged(name, &panic))?
        .map_err(|e| unreadable(name, e))
}

/// Refuses to resume from a folder that keeps no optimiser state (a shipped policy).
pub fn check_optimizer_kept(name: &str) -> Result<(), CheckpointError> {
    if name.is_empty() {
        return Err(CheckpointError::State(
            "the run folder keeps no optimiser state: a shipped policy plays, it does not resume"
                .into(),
        ));
    }
    Ok(())
}

fn unreadable(name: &str, error: impl std::fmt::Display) -> CheckpointError {
    CheckpointError::Record {
        file: name.to_owned(),
        message: error.to_string(),
    }
}

/// The error for a record burn panicked on (a float tensor tagged I32, found by
/// fuzz/fuzz_targets/checkpoint.rs).
fn damaged(name: &str, panic: &Panicked) -> CheckpointError {
    unreadable(name, format!("a damaged record ({panic})"))
}

/// Record files of a checkpoint are named `{prefix}{step}.bpk`.
const CHECKPOINT_PREFIXES: [&str; 4] = ["model-", "optim-", "target-", "best-"];
/// A checkpoint's resume state is `{RESUME_PREFIX}{step}.json`.
const RESUME_PREFIX: &str = "resume-";

impl Manifest {
    /// Every file of the run folder the manifest names: the network, the optimiser state
    /// (none in a shipped policy), DQN's target, the resume state and the best network.
    pub fn files(&self) -> Vec<&str> {
        [
            Some(&self.model),
            Some(&self.optimizer).filter(|o| !o.is_empty()),
            self.target.as_ref(),
            self.resume_state.as_ref(),
            self.best.as_ref().map(|b| &b.model),
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect()
    }

    /// The record file names of the checkpoint at `step`.
    pub fn record_names(step: u64, with_target: bool) -> (String, String, Option<String>) {
        (
            format!("model-{step}.bpk"),
            format!("optim-{step}.bpk"),
            with_target.then(|| format!("target-{step}.bpk")),
        )
    }

    /// The record file of the best network, found at `step`.
    pub fn best_name(step: u64) -> String {
        format!("best-{step}.bpk")
    }

    /// The record file the run plays: the best evaluation's network where it keeps one, else
    /// the last.
    pub fn policy_model(&self) -> &str {
        self.best.as_ref().map_or(&self.model, |b| &b.model)
    }

    /// The resume state file name of the checkpoint at `step`.
    pub fn resume_state_name(step: u64) -> String {
        format!("{RESUME_PREFIX}{step}.json")
    }

    /// The checkpoint's resume state, if it has one; the error names the file.
    pub fn read_resume_state(
        &self,
        run: &Path,
    ) -> Result<Option<serde_json::Value>, CheckpointError> {
        let Some(name) = &self.resume_state else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(run.join(name)).map_err(|e| unreadable(name, e))?;
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| unreadable(name, e))
    }
}

fn record_error(path: &Path, e: burn::store::RecordError) -> std::io::Error {
    std::io::Error::other(format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::{Manifest, RunDir, load_record};

    /// Runs started within one second get folders of their own (the second used to write into
    /// the first's).
    #[test]
    fn runs_created_together_get_distinct_folders() {
        let out = tempfile::tempdir().unwrap();
        let runs: Vec<RunDir> = (0..3)
            .map(|_| RunDir::create(out.path(), "w", "ppo", 0).unwrap())
            .collect();
        let mut paths: Vec<_> = runs.iter().map(|r| r.path.clone()).collect();
        paths.dedup();
        assert_eq!(paths.len(), 3);
        assert!(paths.iter().all(|p| p.is_dir()));
    }

    /// A record whose float tensor is tagged as integers (what the fuzz target `checkpoint`
    /// found) is refused with an error naming the file, where burn alone panics.
    #[test]
    fn a_record_with_a_mistagged_tensor_is_an_error_not_a_crash() {
        let device = burn::tensor::Device::flex();
        let linear = burn::nn::LinearConfig::new(3, 2).init(&device);
        let dir = tempfile::tempdir().unwrap();
        let run = RunDir {
            path: dir.path().to_owned(),
        };
        run.save_record("model-1.bpk", &linear).unwrap();
        assert!(load_record(linear.clone(), dir.path(), "model-1.bpk").is_ok());
        let mut bytes = std::fs::read(dir.path().join("model-1.bpk")).unwrap();
        let tag = bytes.windows(3).position(|w| w == b"F32").unwrap();
        bytes[tag] = b'I';
        std::fs::write(dir.path().join("model-1.bpk"), bytes).unwrap();
        let err = load_record(linear, dir.path(), "model-1.bpk")
            .unwrap_err()
            .to_string();
        assert!(err.contains("model-1.bpk"), "{err}");
    }

    #[test]
    fn a_folder_without_a_checkpoint_is_named_as_holding_none() {
        let dir = tempfile::tempdir().unwrap();
        let e = Manifest::read(dir.path()).unwrap_err().to_string();
        assert!(e.contains("holds no checkpoint"), "{e}");
        let missing = dir.path().join("absent");
        let e = Manifest::read(&missing).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
        assert!(!e.to_string().contains("holds no checkpoint"), "{e}");
    }
}
