//! A toy learning algorithm, built only for tests: proof that a learner is one file and one
//! row of the table in trainer/src/algorithms.rs. It plays the lowest allowed level of every
//! dimension and learns one number, the mean reward of a step, which its checkpoints keep.

use std::path::Path;

use burn::tensor::Device;
use schedlab_agents::options::Options;
use schedlab_agents::{EnvKind, Policy, PolicyContext, SchedulingEnv};
use schedlab_env::{Environment, Observation};
use serde::{Deserialize, Serialize};

use crate::algorithm::Algorithm;
use crate::errors::{CheckpointError, Unmet};
use crate::learner::{EpisodeTally, Learner, LearnerError, UpdateStats, require};
use crate::run::{Manifest, RunDir};
use crate::trained::TrainedRun;

pub struct Toy;

#[derive(Serialize, Deserialize)]
pub struct ToyConfig {
    pub steps_per_update: usize,
}

/// What the toy learns, as its checkpoint file holds it.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Debug)]
struct Learned {
    steps: u64,
    reward_sum: f64,
}

impl Algorithm for Toy {
    const NAME: &'static str = "toy";
    const HELP: &'static str =
        "plays the lowest allowed levels and learns the mean reward (tests only)";
    type Config = ToyConfig;

    fn default_config(_: EnvKind) -> ToyConfig {
        ToyConfig {
            steps_per_update: 8,
        }
    }

    fn check(config: &ToyConfig) -> Result<(), Unmet> {
        require(&[(
            "steps_per_update",
            &config.steps_per_update,
            "steps_per_update >= 1",
            config.steps_per_update >= 1,
        )])
    }

    fn learner<E: SchedulingEnv>(
        prototype: &E,
        config: ToyConfig,
        seed: u64,
        _: Device,
    ) -> Result<Box<dyn Learner<E::Metrics>>, LearnerError> {
        let mut env = prototype.fresh_copy();
        let (observation, _) = env.reset(seed)?;
        Ok(Box::new(ToyLearner {
            policy: LowestLevels(prototype.policy_context()),
            env,
            observation,
            seed,
            config,
            learned: Learned {
                steps: 0,
                reward_sum: 0.0,
            },
        }))
    }

    fn load(trained: &TrainedRun, _: ToyConfig, _: &Options) -> std::io::Result<Box<dyn Policy>> {
        read_learned(trained.run, trained.manifest)?;
        Ok(Box::new(LowestLevels(trained.context().clone())))
    }
}

fn read_learned(run: &Path, manifest: &Manifest) -> std::io::Result<Learned> {
    let text = std::fs::read_to_string(run.join(&manifest.model))?;
    serde_json::from_str(&text).map_err(std::io::Error::other)
}

#[derive(Clone)]
struct LowestLevels(PolicyContext);

impl Policy for LowestLevels {
    fn name(&self) -> &str {
        Toy::NAME
    }

    fn reset(&mut self, _: u64) {}

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let space = &self.0.action_space;
        (0..space.dims())
            .map(|d| observation.allowed(space, d)[0])
            .collect()
    }
}

struct ToyLearner<E> {
    policy: LowestLevels,
    env: E,
    observation: Observation,
    seed: u64,
    config: ToyConfig,
    learned: Learned,
}

impl<E: SchedulingEnv> Learner<E::Metrics> for ToyLearner<E> {
    fn update(&mut self) -> schedlab_env::Result<UpdateStats<E::Metrics>> {
        let mut tally = EpisodeTally::default();
        for _ in 0..self.config.steps_per_update {
            let action = self.policy.act(&self.observation);
            let step = self.env.step(&action)?;
            self.learned.steps += 1;
            self.learned.reward_sum += step.reward;
            tally.record_info(&step.info);
            self.observation = match step.terminated || step.truncated {
                true => self.env.reset(self.seed + self.learned.steps)?.0,
                false => step.observation,
            };
        }
        let (finished, train_loss) = tally.finish();
        let mean_reward = self.learned.reward_sum / self.learned.steps as f64;
        Ok(UpdateStats {
            env_steps: self.learned.steps,
            gradient_steps: 0,
            scalars: vec![("losses/mean_reward", mean_reward as f32)],
            train_loss,
            finished,
        })
    }

    fn env_steps(&self) -> u64 {
        self.learned.steps
    }

    fn save(&self, run: &RunDir, manifest: &Manifest) -> std::io::Result<()> {
        run.write_json(&manifest.model, &self.learned)
    }

    fn restore(&mut self, run: &Path, manifest: &Manifest) -> Result<(), CheckpointError> {
        self.learned =
            read_learned(run, manifest).map_err(|e| CheckpointError::State(e.to_string()))?;
        Ok(())
    }

    fn greedy_policy(&self) -> Box<dyn Policy> {
        Box::new(self.policy.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::algorithms::{AgentKind, load_agent};

    /// The toy trains through the driver, resumes with what it learned, and its run folder
    /// plays by name: all it took is this file and its row.
    #[test]
    fn a_learner_of_one_file_and_one_row_trains_resumes_and_plays() {
        use crate::train::{TrainSpec, train};
        use schedlab_env::{Scenario, SingleJobEnv};
        let workload =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        let env = SingleJobEnv::new(Scenario::load(&workload).unwrap());
        let out = tempfile::tempdir().unwrap();
        let toy = AgentKind::named("toy");
        let config = toy.configure(EnvKind::SingleJob, &[]).unwrap();
        let spec = |steps, resume| TrainSpec {
            workload_path: &workload,
            out: out.path(),
            seed: 3,
            steps,
            checkpoint_every: 8,
            eval_every: 8,
            eval_episodes: 0,
            resume,
            stop: None,
            play_settings: &[],
            workload_settings: &[],
        };
        let device = Device::flex();
        let run = train(
            toy,
            &env,
            config.clone(),
            &spec(16, None),
            device.clone(),
            &mut |_| {},
        )
        .unwrap();
        let mut steps = Vec::new();
        let resumed = train(
            toy,
            &env,
            config,
            &spec(32, Some(&run.path)),
            device.clone(),
            &mut |p| steps.push(p.stats.env_steps),
        )
        .unwrap();
        assert_eq!(
            steps,
            vec![24, 32],
            "resumed from what it learned by step 16"
        );
        let manifest = Manifest::read(&resumed.path).unwrap();
        assert_eq!(manifest.agent, "toy");
        assert_eq!(read_learned(&resumed.path, &manifest).unwrap().steps, 32);
        let mut policy = load_agent(&resumed.path, &env.context(), &device, &[]).unwrap();
        let mut env = env.fresh_copy();
        let (observation, _) = env.reset(0).unwrap();
        env.step(&policy.act(&observation)).unwrap();
        let refused = toy.configure(
            EnvKind::SingleJob,
            &[("steps_per_update".into(), "0".into())],
        );
        assert!(
            refused
                .unwrap_err()
                .to_string()
                .contains("steps_per_update >= 1")
        );
    }

    /// Outside this file, the toy's name is written in exactly two lines: its module in
    /// `lib.rs` and its row of the table. A learner that needed a match arm or a registration
    /// anywhere else would have to be named there too, and this test would fail.
    #[test]
    fn the_toy_is_named_only_in_its_file_its_module_and_its_row() {
        let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let mut lines = Vec::new();
        // what stands above the trainer (agents and env cannot know a learner)
        for folder in ["trainer/src", "experiments/src", "tests"] {
            for file in rust_files(&crates.join(folder)) {
                if file.ends_with("trainer/src/toy.rs") {
                    continue;
                }
                let text = std::fs::read_to_string(&file).unwrap();
                for line in text
                    .lines()
                    .filter(|l| l.contains("toy") || l.contains("Toy"))
                {
                    lines.push(format!("{}: {}", file.display(), line.trim()));
                }
            }
        }
        assert_eq!(lines.len(), 2, "{lines:#?}");
        assert!(
            lines[0].contains("algorithms.rs: crate::toy::Toy,"),
            "{lines:#?}"
        );
        assert!(lines[1].contains("lib.rs: mod toy;"), "{lines:#?}");
    }

    fn rust_files(folder: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.extend(rust_files(&path));
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
        files.sort();
        files
    }
}
