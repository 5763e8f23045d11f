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
    /// The burn record files of the network and of the optimiser state, in the run folder.
    pub model: String,
    pub optimizer: String,
    /// Observation length and action-mask length the network was built for.
    pub observation_len: usize,
    pub mask_len: usize,
}

impl Manifest {
    /// Reads `manifest.json` of a run folder.
    pub fn read(run: &Path) -> std::io::Result<Manifest> {
        let path = run.join("manifest.json");
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

    /// Saves the network and the optimiser state under the manifest's names, then points
    /// `manifest.json` at them, then removes older ones: a crash at any point leaves a
    /// manifest naming complete files.
    pub fn save_checkpoint<M: Module + Clone>(
        &self,
        model: &M,
        optimizer: &burn::optim::ModuleOptimizer,
        manifest: &Manifest,
    ) -> std::io::Result<()> {
        let record_error = |path: &Path, e: burn::store::RecordError| {
            std::io::Error::other(format!("{}: {e}", path.display()))
        };
        let model_file = self.path.join(&manifest.model);
        let tmp = crate::files::temporary_beside(&model_file);
        model
            .clone()
            .save_file(&tmp)
            .map_err(|e| record_error(&tmp, e))?;
        std::fs::rename(&tmp, &model_file)?;
        let optim_file = self.path.join(&manifest.optimizer);
        let tmp = crate::files::temporary_beside(&optim_file);
        optimizer.save(&tmp).map_err(|e| record_error(&tmp, e))?;
        std::fs::rename(&tmp, &optim_file)?;
        self.write_json("manifest.json", manifest)?;
        for entry in std::fs::read_dir(&self.path)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            let checkpoint = (name.starts_with("model-") || name.starts_with("optim-"))
                && name.ends_with(".bpk");
            if checkpoint && name != manifest.model && name != manifest.optimizer {
                std::fs::remove_file(self.path.join(name))?;
            }
        }
        Ok(())
    }
}

/// Loads the actor-critic (PPO or A2C) agent a run folder's manifest names, for acting in `ctx`'s environment;
/// refuses a run whose network was built for other observation or action shapes.
pub fn load_actor_critic_agent(
    run: &Path,
    ctx: &schedlab_agents::PolicyContext,
    device: &burn::tensor::Device,
) -> std::io::Result<schedlab_agents::ppo::PpoAgent> {
    use schedlab_agents::learned::actor_critic::ActorCriticConfig;
    let manifest = Manifest::read(run)?;
    let invalid = |m: String| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{}: {m}", run.display()),
        )
    };
    if crate::ppo::ActorCriticKind::from_name(&manifest.agent).is_none() {
        return Err(invalid(format!(
            "agent `{}` is not an actor-critic (ppo, a2c)",
            manifest.agent
        )));
    }
    let (obs, mask) = (ctx.observation_space.len(), ctx.action_space.mask_len());
    if (manifest.observation_len, manifest.mask_len) != (obs, mask) {
        return Err(invalid(format!(
            "trained for observations of {} and actions of {} levels; this workload has {obs} and {mask}",
            manifest.observation_len, manifest.mask_len
        )));
    }
    let hidden = manifest
        .config
        .get("hidden")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| invalid("config has no `hidden`".into()))?;
    let net = ActorCriticConfig::new(obs, mask)
        .with_hidden(hidden as usize)
        .init(device);
    let net = net
        .try_load_file(run.join(&manifest.model))
        .map_err(|e| invalid(format!("{}: {e}", manifest.model)))?;
    let mut agent = schedlab_agents::ppo::PpoAgent::new(net, ctx, manifest.seed);
    agent.deterministic = true;
    Ok(agent)
}
