//! Greedy evaluation episodes during training, and the best of them kept (`keep_best`).

use schedlab_agents::SchedulingEnv;
use schedlab_env::EpisodeSummary;

use super::error::{TrainError, io};
use crate::evaluation::{eval_scalars, evaluate};
use crate::learner::Learner;
use crate::run::{BestPolicy, Manifest, RunDir};
use crate::tensorboard::TensorBoard;

/// Greedy evaluations during training: their seeds, and the best network so far.
pub(super) struct Evaluations<'a, E> {
    pub(super) prototype: &'a E,
    pub(super) seeds: &'a [u64],
    pub(super) best: Option<BestPolicy>,
}

impl<E: SchedulingEnv> Evaluations<'_, E> {
    /// Plays the learner's greedy policy on the seeds after the update that reached `step`
    /// and logs `eval/*`; with `keep_best`, a better mean return than the best so far keeps
    /// this network as the run's policy.
    pub(super) fn play(
        &mut self,
        learner: &dyn Learner<E::Metrics>,
        step: u64,
        run: &RunDir,
        board: &mut TensorBoard,
    ) -> Result<Vec<E::Metrics>, TrainError> {
        let best = &mut self.best;
        let policies = self.seeds.iter().map(|_| learner.greedy_policy()).collect();
        let metrics = evaluate(self.prototype, policies, self.seeds)?;
        for (tag, value) in eval_scalars(&metrics) {
            board.scalar(&tag, value, step);
        }
        if learner.keeps_best() {
            let eval_return =
                metrics.iter().map(|m| m.episode_return()).sum::<f64>() / metrics.len() as f64;
            if best.as_ref().is_none_or(|b| eval_return > b.eval_return) {
                let model = Manifest::best_name(step);
                learner.save_policy(run, &model).map_err(io(&run.path))?;
                *best = Some(BestPolicy {
                    model,
                    step,
                    eval_return,
                });
            }
            let best_step = best.as_ref().map_or(0, |b| b.step);
            board.scalar("eval/best_step", best_step as f32, step);
        }
        Ok(metrics)
    }
}
