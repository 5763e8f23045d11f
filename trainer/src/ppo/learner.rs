//! PPO's side of the learner contract (trainer/src/learner.rs): an update (a rollout, its
//! advantages, the clipped objective), the warm start, checkpoints and greedy play.

use std::path::Path;

use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_agents::jobs::Restricted;
use schedlab_agents::ppo::PpoAgent;
use schedlab_agents::{Policy, SchedulingEnv};
use schedlab_env::episode_seed;

use super::schedule::{entropy_coef, episode_plan, learning_rate};
use super::trainer::PpoTrainer;
use crate::errors::{CheckpointError, PlayError};
use crate::imitation::{CloneSettings, WarmStartPlan, WarmStartReport, warm_start};
use crate::learner::{Learner, UpdateStats};
use crate::reward_scale::ReturnStats;
use crate::run::{Manifest, RunDir, load_optimizer, load_record};

/// Where the teacher's episodes draw their seeds (plus 1,000 per training seed): far from
/// the evaluation seeds `0..K`, so the clone is scored on windows it did not copy.
const DEMONSTRATION_SEEDS: u64 = 1_000_000;

/// Where each update's action sampling and minibatch shuffling draw their seeds (mixed with
/// the run's seed and the update's number), so a resumed run draws what an uninterrupted one
/// would.
const UPDATE_SEEDS: u64 = 0x0bda_0000_0000;

impl<E: SchedulingEnv> Learner<E::Metrics> for PpoTrainer<E> {
    /// The three phases in CleanRL's order: a rollout, its advantages, the update.
    fn update(&mut self) -> schedlab_env::Result<UpdateStats<E::Metrics>> {
        let seed = episode_seed(self.seed ^ UPDATE_SEEDS, 0, self.updates);
        let mut shuffle = StdRng::seed_from_u64(seed);
        self.agent.reset(seed);
        self.updates += 1;
        let progress = self.progress();
        let lr = learning_rate(&self.config, progress);
        let plan = episode_plan(&self.config, &self.kept_windows, progress);
        self.rollout.set_plan(&plan);
        let (mut experience, tally) = self.rollout.collect(&mut self.agent, &self.config)?;
        self.advantages.scale_rewards(&mut experience, &self.config);
        let rows = self.advantages.rows(&experience, &self.config);
        let (fit, gradient_steps) = self.update.fit(
            &mut self.agent,
            &self.context.action_space,
            &rows,
            (lr, entropy_coef(&self.config, progress)),
            &self.config,
            &mut shuffle,
        );
        let (finished, train_loss) = tally.finish();
        Ok(UpdateStats {
            env_steps: self.rollout.env_steps(),
            gradient_steps,
            scalars: [
                ("losses/policy_loss", fit.policy_loss),
                ("losses/value_loss", fit.value_loss),
                ("losses/entropy", fit.entropy),
                ("losses/approx_kl", fit.approx_kl),
                ("losses/clipfrac", fit.clip_fraction),
                ("losses/grad_norm", fit.grad_norm),
                ("charts/learning_rate", lr as f32),
            ]
            .into_iter()
            .chain(
                fit.explained_variance
                    .map(|v| ("losses/explained_variance", v)),
            )
            .chain(
                self.config
                    .anneal_entropy
                    .then_some(("charts/entropy_coef", fit.entropy_coef)),
            )
            .chain(
                (self.config.curriculum.start_s > 0.0)
                    .then(|| ("charts/cut_mean_s", plan.cut_mean_s.unwrap_or(0.0) as f32)),
            )
            .chain(
                self.kept_windows
                    .is_some()
                    .then(|| ("charts/filtering", f32::from(plan.windows.is_some()))),
            )
            .chain(fit.epochs_run.map(|e| ("losses/epochs_run", e as f32)))
            .collect(),
            train_loss,
            finished,
        })
    }

    fn env_steps(&self) -> u64 {
        self.rollout.env_steps()
    }

    fn plan(&mut self, total_steps: u64) {
        self.total_steps = total_steps;
    }

    /// Clones `warm_start`'s scheduler on episodes of seeds no evaluation uses.
    fn warm_start(&mut self) -> Result<Option<WarmStartReport>, PlayError> {
        if self.config.warm_start.teacher.is_empty() {
            return Ok(None);
        }
        let c = &self.config;
        // teacher episodes first, then each DAgger round's, all on seeds no evaluation uses
        let seeds = |from: usize, count: usize| -> Vec<u64> {
            (from..from + count)
                .map(|k| DEMONSTRATION_SEEDS + self.seed * 1000 + k as u64)
                .collect()
        };
        let plan = WarmStartPlan {
            teacher: &c.warm_start.teacher,
            seeds: seeds(0, c.warm_start.episodes),
            dagger_seeds: (0..c.warm_start.dagger_rounds)
                .map(|round| {
                    let from = c.warm_start.episodes + round * c.warm_start.dagger_episodes;
                    seeds(from, c.warm_start.dagger_episodes)
                })
                .collect(),
            dagger_epochs: c.warm_start.dagger_epochs,
            discount: (c.gamma, c.discount_time_s),
            settings: CloneSettings {
                epochs: c.warm_start.epochs,
                lr: c.warm_start.lr,
                value_coef: c.value_coef as f32,
                seed: self.seed,
            },
        };
        warm_start(
            &self.prototype,
            &mut self.agent,
            self.advantages.scale_mut(),
            &plan,
            self.update.device(),
        )
        .map(Some)
    }

    fn save(&self, run: &RunDir, manifest: &Manifest) -> std::io::Result<()> {
        run.save_record(&manifest.model, &self.agent.net)?;
        run.save_optimizer(&manifest.optimizer, &self.update.optim)
    }

    fn restore(&mut self, run: &Path, manifest: &Manifest) -> Result<(), CheckpointError> {
        self.agent.net = load_record(self.agent.net.clone(), run, &manifest.model)?;
        self.update.optim = load_optimizer(&self.update.optim, run, &manifest.optimizer)?;
        self.rollout.set_env_steps(manifest.step);
        if let Some(stats) = manifest.return_stats {
            self.advantages.scale_mut().restore(stats);
        }
        Ok(())
    }

    fn return_stats(&self) -> Option<ReturnStats> {
        (self.config.normalize_rewards || self.config.differential)
            .then(|| self.advantages.scale().stats())
    }

    fn resume_state(&self) -> Option<serde_json::Value> {
        serde_json::to_value(self.resume()).ok()
    }

    fn keeps_best(&self) -> bool {
        self.config.play.keep_best
    }

    fn save_policy(&self, run: &RunDir, name: &str) -> std::io::Result<()> {
        run.save_record(name, &self.agent.net)
    }

    fn restore_state(&mut self, state: serde_json::Value) -> Result<(), CheckpointError> {
        let state = serde_json::from_value(state)
            .map_err(|e| CheckpointError::State(format!("resume state: {e}")))?;
        self.restore_resume(state)
            .map_err(|e| CheckpointError::State(format!("resume state: {e}")))
    }

    fn greedy_policy(&self) -> Box<dyn Policy> {
        let mut agent = PpoAgent::new(self.agent.net.clone(), &self.context, 0);
        agent.deterministic = true;
        Restricted::wrap(Box::new(agent), self.restriction.clone())
    }
}
