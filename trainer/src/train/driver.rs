//! The training driver: a new run's folder and hyperparameters, or a resumed run's checkpoint,
//! then updates until the steps are done, with evaluations and checkpoints on their schedules.

use std::sync::atomic::Ordering;
use std::time::Instant;

use burn::tensor::Device;
use schedlab_agents::SchedulingEnv;
use schedlab_artifacts::{FolderLock, sha256_file};

use super::board::{log_update, markdown_table};
use super::checkpoints::{Checkpoints, restore, resumed_manifest};
use super::error::{TrainError, invalid, io};
use super::evaluations::Evaluations;
use super::spec::{OnUpdate, Progress, TrainSpec};
use super::warm_start::start_new_run;
use crate::algorithms::AgentKind;
use crate::learner::{Learner, LearnerError};
use crate::run::{Manifest, RunDir};
use crate::tensorboard::TensorBoard;

/// Trains a learned scheduler in copies of `prototype` (a single-job or a jobs cluster), from
/// scratch or from a run's last checkpoint, and returns the run folder. A resumed run keeps
/// its hyperparameters (`config` is ignored) and must be of the same agent on the same
/// workload file (by SHA-256); it continues the env copies' episodes where the learner keeps a
/// resume state (PPO, A2C: trainer/src/ppo/resume.rs), and starts fresh ones otherwise.
pub fn train<E: SchedulingEnv>(
    kind: AgentKind,
    prototype: &E,
    config: serde_json::Value,
    spec: &TrainSpec,
    device: Device,
    on_update: &mut OnUpdate<E::Metrics>,
) -> Result<RunDir, TrainError> {
    let workload_sha256 = sha256_file(spec.workload_path).map_err(io(spec.workload_path))?;
    let start = resumed_manifest(kind, spec, &workload_sha256)?;
    // a run folder from before a hyperparameter existed resumes with its default
    let config = start
        .as_ref()
        .map_or(config, |m| kind.backfilled(&m.config));
    let step_at_start = start.as_ref().map_or(0, |m| m.step);
    let started = Instant::now();
    let wall_s_at_start = start.as_ref().and_then(|m| m.wall_s).unwrap_or(0.0);
    let run_seed = start.as_ref().map_or(spec.seed, |m| m.seed);
    let mut learner = new_learner(
        kind,
        prototype,
        &config,
        learner_seed(start.as_ref(), spec),
        device,
        spec,
    )?;
    // the folder is made only once the hyperparameters are known to be sound
    let run = run_folder(kind, prototype.workload_name(), spec)?;
    // one writer per run folder: a second resume of the same run is refused while this lives
    let _lock = FolderLock::acquire(&run.path, "train")?;
    let mut board = TensorBoard::create(&run.path);
    let shapes = (
        prototype.observation_space().len(),
        prototype.action_space().mask_len(),
    );
    match &start {
        Some(manifest) => restore(learner.as_mut(), manifest, &run, shapes)?,
        None => describe(&run, kind, &config, spec, &mut board)?,
    }
    let checkpoints = Checkpoints {
        kind,
        config: &config,
        spec,
        run: &run,
        workload_sha256,
        run_seed,
        shapes,
        env_kind: prototype.context().kind().name(),
        wall_s_at_start,
        started,
    };
    learner.plan(spec.steps);
    let eval_seeds: Vec<u64> = (0..spec.eval_episodes as u64).collect();
    if start.is_none() {
        start_new_run(
            prototype,
            learner.as_mut(),
            &checkpoints,
            &eval_seeds,
            &mut board,
        )?;
    }
    let best = start.as_ref().and_then(|m| m.best.clone());
    let evaluations = Evaluations {
        prototype,
        seeds: &eval_seeds,
        best,
    };
    update_until_done(
        learner.as_mut(),
        &checkpoints,
        evaluations,
        step_at_start,
        &mut board,
        on_update,
    )?;
    board.flush();
    drop(board);
    Ok(run)
}

/// The run folder: the one resumed, or a new one in the spec's output folder.
fn run_folder(kind: AgentKind, workload: &str, spec: &TrainSpec) -> Result<RunDir, TrainError> {
    match spec.resume {
        Some(path) => Ok(RunDir {
            path: path.to_owned(),
        }),
        None => RunDir::create(spec.out, workload, kind.name(), spec.seed).map_err(io(spec.out)),
    }
}

/// The seed a learner starts from: a run resumed with its learner's resume state continues
/// its own episodes; one without draws new episodes rather than replaying the first ones.
fn learner_seed(start: Option<&Manifest>, spec: &TrainSpec) -> u64 {
    match start {
        Some(m) if m.resume_state.is_some() => m.seed,
        Some(m) => m.seed ^ m.step,
        None => spec.seed,
    }
}

/// A new run's `config.json` and its hyperparameters on TensorBoard.
fn describe(
    run: &RunDir,
    kind: AgentKind,
    config: &serde_json::Value,
    spec: &TrainSpec,
    board: &mut TensorBoard,
) -> Result<(), TrainError> {
    let described = serde_json::json!({
        "agent": kind.name(),
        "config": config,
        "workload": spec.workload_path,
        "seed": spec.seed,
        "steps": spec.steps,
    });
    run.write_json("config.json", &described)
        .map_err(io(&run.path))?;
    board.text("hyperparameters", &markdown_table(config), 0);
    Ok(())
}

/// Updates from `step_at_start` until the spec's steps are done or the run is told to stop,
/// logging each update, evaluating and checkpointing on their schedules and at the end.
fn update_until_done<E: SchedulingEnv>(
    learner: &mut dyn Learner<E::Metrics>,
    checkpoints: &Checkpoints,
    mut evaluations: Evaluations<E>,
    step_at_start: u64,
    board: &mut TensorBoard,
    on_update: &mut OnUpdate<E::Metrics>,
) -> Result<(), TrainError> {
    let spec = checkpoints.spec;
    let steps = spec.steps;
    let start_time = Instant::now();
    let mut next_checkpoint = step_at_start + spec.checkpoint_every.max(1);
    let mut next_eval = step_at_start + spec.eval_every.max(1);
    while learner.env_steps() < steps {
        let stats = learner.update()?;
        let step = stats.env_steps;
        if let Some(&(tag, value)) = stats.scalars.iter().find(|(_, v)| !v.is_finite()) {
            return Err(TrainError::Diverged { step, tag, value });
        }
        let sps = (step - step_at_start) as f64 / start_time.elapsed().as_secs_f64().max(1e-9);
        log_update(board, &stats, sps);
        let stopping = step >= steps || spec.stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let evaluation = if spec.eval_episodes > 0 && (stopping || step >= next_eval) {
            next_eval = step + spec.eval_every.max(1);
            Some(evaluations.play(&*learner, step, checkpoints.run, board)?)
        } else {
            None
        };
        on_update(&Progress {
            stats: &stats,
            sps,
            evaluation: evaluation.as_deref(),
        });
        if stopping || step >= next_checkpoint {
            checkpoints.save(&*learner, step, evaluations.best.clone())?;
            next_checkpoint = step + spec.checkpoint_every.max(1);
        }
        if stopping {
            break;
        }
    }
    Ok(())
}

/// The learner of `kind` for copies of `prototype`, its errors as the driver reports them
/// (a resumed run's bad config names the run folder).
fn new_learner<E: SchedulingEnv>(
    kind: AgentKind,
    prototype: &E,
    config: &serde_json::Value,
    seed: u64,
    device: Device,
    spec: &TrainSpec,
) -> Result<Box<dyn Learner<E::Metrics>>, TrainError> {
    let learner = kind.learner(prototype, config, seed, device).map_err(|e| {
        let message = match e {
            LearnerError::Env(e) => return TrainError::Env(e),
            LearnerError::Config(message) => message,
            LearnerError::Unmet(unmet) => unmet.to_string(),
        };
        match spec.resume {
            Some(path) => invalid(path, message),
            None => TrainError::Config {
                agent: kind.name(),
                message,
            },
        }
    })?;
    if learner.keeps_best() && spec.eval_episodes == 0 {
        return Err(TrainError::Config {
            agent: kind.name(),
            message: "keep_best needs evaluation episodes (--eval-episodes > 0)".into(),
        });
    }
    Ok(learner)
}
