//! Training a PPO scheduler into a run folder: TensorBoard curves with DESIGN §5's tags,
//! the hyperparameters once at the start, and periodic checkpoints.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use burn::tensor::Device;
use schedlab_env::{EnvError, Scenario};

use crate::files::sha256_file;
use crate::ppo::{PpoConfig, PpoTrainer, UpdateStats};
use crate::run::{Manifest, RunDir};
use crate::tensorboard::TensorBoard;

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Env(#[from] EnvError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TrainError + '_ {
    move |source| TrainError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Where and how long to train.
pub struct TrainSpec<'a> {
    pub workload_path: &'a Path,
    pub out: &'a Path,
    pub seed: u64,
    /// Env rounds to train for, over all env copies.
    pub steps: u64,
    /// Env rounds between checkpoints (one is always written at the end).
    pub checkpoint_every: u64,
}

/// Progress after each update: the stats and env rounds per second so far.
pub type OnUpdate<'a> = dyn FnMut(&UpdateStats, f64) + 'a;

/// Trains PPO from scratch and returns the run folder.
pub fn train_ppo(
    scenario: &Arc<Scenario>,
    config: PpoConfig,
    spec: &TrainSpec,
    device: Device,
    on_update: &mut OnUpdate,
) -> Result<RunDir, TrainError> {
    let run = RunDir::create(spec.out, &scenario.workload.name, "ppo", spec.seed)
        .map_err(io(spec.out))?;
    let config_json = serde_json::to_value(&config).expect("configs serialise");
    run.write_json(
        "config.json",
        &serde_json::json!({
            "agent": "ppo",
            "config": config_json,
            "workload": spec.workload_path,
            "seed": spec.seed,
            "steps": spec.steps,
        }),
    )
    .map_err(io(&run.path))?;
    let workload_sha256 = sha256_file(spec.workload_path).map_err(io(spec.workload_path))?;
    let mut board = TensorBoard::create(&run.path);
    board.text("hyperparameters", &markdown_table(&config_json), 0);
    let mut trainer = PpoTrainer::new(scenario, config, spec.seed, device)?;
    let env = schedlab_env::ClusterEnv::new(scenario.clone());
    let (observation_len, mask_len) =
        (env.observation_space().len(), env.action_space().mask_len());
    let start = Instant::now();
    let mut next_checkpoint = spec.checkpoint_every.max(1);
    let manifest = |step: u64| Manifest {
        agent: "ppo".into(),
        config: config_json.clone(),
        workload: spec.workload_path.display().to_string(),
        workload_sha256: workload_sha256.clone(),
        step,
        seed: spec.seed,
        schedlab_version: env!("CARGO_PKG_VERSION").into(),
        model: format!("model-{step}.bpk"),
        observation_len,
        mask_len,
    };
    loop {
        let stats = trainer.update()?;
        let step = stats.env_steps;
        let sps = step as f64 / start.elapsed().as_secs_f64().max(1e-9);
        for m in &stats.finished {
            board.scalar("charts/episodic_return", m.episode_return as f32, step);
            board.scalar("charts/completion_time_s", m.completion_time_s as f32, step);
            board.scalar("charts/idle_cost", m.idle_cost as f32, step);
            board.scalar("charts/gpu_util", m.gpu_util as f32, step);
        }
        board.scalar("charts/SPS", sps as f32, step);
        board.scalar("losses/policy_loss", stats.policy_loss, step);
        board.scalar("losses/value_loss", stats.value_loss, step);
        board.scalar("losses/entropy", stats.entropy, step);
        board.scalar("env/train_loss", stats.train_loss as f32, step);
        on_update(&stats, sps);
        let done = step >= spec.steps;
        if done || step >= next_checkpoint {
            run.save_checkpoint(&trainer.agent().net, &manifest(step))
                .map_err(io(&run.path))?;
            next_checkpoint = step + spec.checkpoint_every.max(1);
        }
        if done {
            break;
        }
    }
    board.flush();
    drop(board);
    Ok(run)
}

/// The hyperparameters as a Markdown table, for TensorBoard's text tab.
fn markdown_table(config: &serde_json::Value) -> String {
    let mut text = String::from("| parameter | value |\n| --- | --- |\n");
    if let Some(map) = config.as_object() {
        for (k, v) in map {
            text += &format!("| {k} | {v} |\n");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use burn::module::Module;
    use burn::tensor::{Tensor, TensorData};
    use schedlab_agents::learned::actor_critic::ActorCriticConfig;

    use super::*;

    #[test]
    fn a_run_folder_holds_events_hyperparameters_and_a_loadable_checkpoint() {
        let workload =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        let scenario = Scenario::load(&workload).unwrap();
        let out = tempfile::tempdir().unwrap();
        let spec = TrainSpec {
            workload_path: &workload,
            out: out.path(),
            seed: 2,
            steps: 32,
            checkpoint_every: 16,
        };
        let config = PpoConfig::new()
            .with_envs(2)
            .with_rollout_steps(8)
            .with_hidden(16);
        let device = Device::flex().autodiff();
        let mut updates = 0;
        let run = train_ppo(&scenario, config, &spec, device.clone(), &mut |_, sps| {
            assert!(sps > 0.0);
            updates += 1;
        })
        .unwrap();
        assert_eq!(updates, 2, "32 steps of 2 copies x 8 rounds");
        let name = run.path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("small-4node__ppo__2__"), "{name}");
        let files: Vec<String> = std::fs::read_dir(&run.path)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            files.iter().any(|f| f.starts_with("events.out.tfevents")),
            "{files:?}"
        );
        assert!(
            files.contains(&"config.json".to_owned())
                && files.contains(&"manifest.json".to_owned()),
            "{files:?}"
        );
        assert_eq!(
            files.iter().filter(|f| f.ends_with(".bpk")).count(),
            1,
            "older checkpoints are removed: {files:?}"
        );
        let manifest: Manifest =
            serde_json::from_str(&std::fs::read_to_string(run.path.join("manifest.json")).unwrap())
                .unwrap();
        assert_eq!(
            (manifest.step, manifest.seed, manifest.agent.as_str()),
            (32, 2, "ppo")
        );
        assert_eq!(
            manifest.workload_sha256,
            crate::files::sha256_file(&workload).unwrap()
        );
        // the checkpoint loads into a fresh network of the same shape
        let fresh = ActorCriticConfig::new(
            scenario.nodes.len() * schedlab_env::gym::NODE_FEATURES
                + schedlab_env::gym::JOB_FEATURES,
            4 * (5 + 5 + 3),
        )
        .with_hidden(16)
        .init(&device);
        let loaded = fresh.try_load_file(run.path.join(&manifest.model)).unwrap();
        let input = Tensor::<2>::from_data(TensorData::new(vec![0.1f32; 289], [1, 289]), &device);
        let (logits, _) = loaded.forward(input);
        assert!(
            logits
                .into_data()
                .try_to_vec::<f32>()
                .unwrap()
                .iter()
                .all(|v| v.is_finite())
        );
    }
}
