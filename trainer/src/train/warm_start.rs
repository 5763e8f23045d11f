//! A new run's warm start, if its learner asks for one: the clone's report, logged and kept as
//! `warm_start.json`, with the clone and its teacher compared on the evaluation seeds.

use schedlab_agents::{SchedulingEnv, registry};

use super::checkpoints::Checkpoints;
use super::error::{TrainError, io};
use crate::evaluation::{curve_means, eval_scalars, evaluate};
use crate::imitation::WarmStartReport;
use crate::learner::Learner;
use crate::run::RunDir;
use crate::tensorboard::TensorBoard;

/// A new run's start: the learner's warm start where its configuration asks for one, and for a
/// run of no steps a checkpoint of its first network (the clone, or the initial one).
pub(super) fn start_new_run<E: SchedulingEnv>(
    prototype: &E,
    learner: &mut dyn Learner<E::Metrics>,
    checkpoints: &Checkpoints,
    eval_seeds: &[u64],
    board: &mut TensorBoard,
) -> Result<(), TrainError> {
    warm_start(prototype, learner, checkpoints.run, eval_seeds, board)?;
    if checkpoints.spec.steps == 0 {
        checkpoints.save(&*learner, 0, None)?;
    }
    Ok(())
}

/// The learner's warm start, where its configuration asks for one, with its report against
/// the teacher.
fn warm_start<E: SchedulingEnv>(
    prototype: &E,
    learner: &mut dyn Learner<E::Metrics>,
    run: &RunDir,
    eval_seeds: &[u64],
    board: &mut TensorBoard,
) -> Result<(), TrainError> {
    let Some(report) = learner
        .warm_start()
        .map_err(|e| TrainError::WarmStart(e.to_string()))?
    else {
        return Ok(());
    };
    let warm = compare_with_teacher(prototype, &*learner, &report, eval_seeds)?;
    for (tag, value) in eval_scalars(&warm.clone_metrics) {
        board.scalar(&tag, value, 0);
    }
    log_warm_start(board, &report);
    run.write_json("warm_start.json", &warm)
        .map_err(io(&run.path))
}

/// The warm start's agreement, cross-entropy and DAgger rounds as curves.
pub(super) fn log_warm_start(board: &mut TensorBoard, report: &WarmStartReport) {
    board.scalar(
        "warm_start/train_agreement",
        report.train_agreement as f32,
        0,
    );
    board.scalar(
        "warm_start/held_out_agreement",
        report.held_out_agreement as f32,
        0,
    );
    board.scalar(
        "warm_start/held_out_contested_agreement",
        report.held_out_contested_agreement as f32,
        0,
    );
    board.scalar(
        "warm_start/cross_entropy",
        report.final_cross_entropy as f32,
        0,
    );
    for (round, dagger) in report.dagger.iter().enumerate() {
        let round = round as u64 + 1;
        board.scalar(
            "warm_start/dagger_agreement",
            dagger.agreement as f32,
            round,
        );
        board.scalar(
            "warm_start/dagger_contested_agreement",
            dagger.contested_agreement as f32,
            round,
        );
        board.scalar(
            "warm_start/dagger_clone_return",
            dagger.clone_mean_return as f32,
            round,
        );
    }
}

/// A warm start's report with the clone and its teacher played greedily on the evaluation
/// seeds (what `warm_start.json` in the run folder holds).
#[derive(serde::Serialize)]
pub struct WarmStartComparison<M> {
    pub report: WarmStartReport,
    pub seeds: Vec<u64>,
    /// Per headline figure (the env's `curves`, objective first): its name and the clone's
    /// and the teacher's means over the seeds.
    pub headline: Vec<(String, f64, f64)>,
    pub clone_metrics: Vec<M>,
    pub teacher_metrics: Vec<M>,
}

pub(super) fn compare_with_teacher<E: SchedulingEnv>(
    prototype: &E,
    learner: &dyn Learner<E::Metrics>,
    report: &WarmStartReport,
    seeds: &[u64],
) -> Result<WarmStartComparison<E::Metrics>, TrainError> {
    let teachers = seeds
        .iter()
        .map(|_| registry::build(&report.teacher, &prototype.context(), &[]))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TrainError::WarmStart(e.to_string()))?;
    let clones = seeds.iter().map(|_| learner.greedy_policy()).collect();
    let clone_metrics = evaluate(prototype, clones, seeds)?;
    let teacher_metrics = evaluate(prototype, teachers, seeds)?;
    let headline = curve_means(&clone_metrics)
        .into_iter()
        .zip(curve_means(&teacher_metrics))
        .map(|((name, clone), (_, teacher))| (name.to_owned(), clone, teacher))
        .collect();
    Ok(WarmStartComparison {
        report: report.clone(),
        seeds: seeds.to_vec(),
        headline,
        clone_metrics,
        teacher_metrics,
    })
}
