//! A training run's folder, `{out}/{workload}__{agent}__{seed}__{unix seconds}/`: the
//! hyperparameters (`config.json`), TensorBoard events, and checkpoints (a burn record plus
//! `manifest.json`).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use burn::module::Module;
use serde::{Deserialize, Serialize};

use crate::files::write_atomic;

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
    /// The burn record file, in the run folder.
    pub model: String,
}

#[derive(Debug, Clone)]
pub struct RunDir {
    pub path: PathBuf,
}

impl RunDir {
    pub fn create(out: &Path, workload: &str, agent: &str, seed: u64) -> std::io::Result<RunDir> {
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or_default();
        let path = out.join(format!("{workload}__{agent}__{seed}__{stamp}"));
        std::fs::create_dir_all(&path)?;
        Ok(RunDir { path })
    }

    pub fn write_json(&self, name: &str, value: &impl Serialize) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
        write_atomic(&self.path.join(name), text.as_bytes())
    }

    /// Saves the model as `model-{step}.bpk`, then points `manifest.json` at it, then removes
    /// older models: a crash at any point leaves a manifest naming a complete model.
    pub fn save_checkpoint<M: Module + Clone>(
        &self,
        model: &M,
        manifest: &Manifest,
    ) -> std::io::Result<()> {
        let file = self.path.join(&manifest.model);
        let tmp = crate::files::temporary_beside(&file);
        model
            .clone()
            .save_file(&tmp)
            .map_err(|e| std::io::Error::other(format!("{}: {e}", tmp.display())))?;
        std::fs::rename(&tmp, &file)?;
        self.write_json("manifest.json", manifest)?;
        for entry in std::fs::read_dir(&self.path)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            if name.starts_with("model-") && name.ends_with(".bpk") && name != manifest.model {
                std::fs::remove_file(self.path.join(name))?;
            }
        }
        Ok(())
    }
}
