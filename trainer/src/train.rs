//! Training a learned scheduler into a run folder: TensorBoard curves (tags in
//! ARCHITECTURE.md), the hyperparameters once at the start, and periodic checkpoints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::tensor::Device;
use schedlab_agents::{SchedulingEnv, registry};
use schedlab_env::{EnvError, EpisodeSummary};

use std::sync::atomic::{AtomicBool, Ordering};

use crate::algorithms::AgentKind;
use crate::evaluation::{curve_means, eval_scalars, evaluate};
use crate::imitation::WarmStartReport;
use crate::learner::{Learner, LearnerError, UpdateStats};
use crate::reward_scale::ReturnStats;
use crate::run::{BestPolicy, Manifest, RunDir};
use crate::tensorboard::TensorBoard;
use schedlab_artifacts::{FolderLock, LockError, sha256_file};

#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    #[error(transparent)]
    Env(#[from] EnvError),
    /// A checkpoint that cannot be resumed: corrupt, of another agent or another workload.
    #[error("cannot resume {run}: {message}")]
    Checkpoint { run: PathBuf, message: String },
    #[error("warm start: {0}")]
    WarmStart(String),
    #[error("{agent} hyperparameters: {message}")]
    Config {
        agent: &'static str,
        message: String,
    },
    /// A loss became NaN or infinite: training cannot go on from here.
    #[error(
        "training diverged at step {step}: {tag} is {value}; the last checkpoint is kept (try a lower lr or max_grad_norm)"
    )]
    Diverged {
        step: u64,
        tag: &'static str,
        value: f32,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Locked(#[from] LockError),
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
    /// Env rounds to train for in all, over all env copies.
    pub steps: u64,
    /// Env rounds between checkpoints (one is always written at the end).
    pub checkpoint_every: u64,
    /// Env rounds between evaluations (one is always run at the end): `eval_episodes` greedy
    /// episodes on seeds `0..eval_episodes`, logged as `eval/*`; 0 episodes turns them off.
    pub eval_every: u64,
    pub eval_episodes: usize,
    /// Continue this run folder from its last checkpoint instead of starting a new one.
    pub resume: Option<&'a Path>,
    /// Set from outside (Ctrl-C) to stop after the current update with a checkpoint.
    pub stop: Option<&'a AtomicBool>,
    /// The training workload's settings that shape the network, recorded in the manifest
    /// (`Manifest::play_settings`).
    pub play_settings: &'a [(String, String)],
    /// The settings the workload file was loaded with, recorded in the manifest
    /// (`Manifest::workload_settings`); a resume must give the same.
    pub workload_settings: &'a [(String, String)],
}

/// What the driver reports after each update; `M` is the env's episode metrics.
pub struct Progress<'a, M> {
    pub stats: &'a UpdateStats<M>,
    /// Env rounds per second since this process started training.
    pub sps: f64,
    /// The evaluation episodes played after this update, if it was time for them.
    pub evaluation: Option<&'a [M]>,
}

pub type OnUpdate<'a, M> = dyn FnMut(&Progress<M>) + 'a;

fn invalid(run: &Path, message: String) -> TrainError {
    TrainError::Checkpoint {
        run: run.to_owned(),
        message,
    }
}

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
    // a run resumed with its learner's resume state continues its own episodes; one without
    // draws new episodes rather than replaying the first ones
    let started = Instant::now();
    let wall_s_at_start = start.as_ref().and_then(|m| m.wall_s).unwrap_or(0.0);
    let run_seed = start.as_ref().map_or(spec.seed, |m| m.seed);
    let learner_seed = match &start {
        Some(m) if m.resume_state.is_some() => m.seed,
        Some(m) => m.seed ^ step_at_start,
        None => spec.seed,
    };
    let mut learner = new_learner(kind, prototype, &config, learner_seed, device, spec)?;
    // the folder is made only once the hyperparameters are known to be sound
    let run = match spec.resume {
        Some(path) => RunDir {
            path: path.to_owned(),
        },
        None => RunDir::create(spec.out, prototype.workload_name(), kind.name(), spec.seed)
            .map_err(io(spec.out))?,
    };
    // one writer per run folder: a second resume of the same run is refused while this lives
    let _lock = FolderLock::acquire(&run.path, "train")?;
    let mut board = TensorBoard::create(&run.path);
    let (observation_len, mask_len) = (
        prototype.observation_space().len(),
        prototype.action_space().mask_len(),
    );
    match &start {
        Some(manifest) => restore(
            learner.as_mut(),
            manifest,
            &run,
            (observation_len, mask_len),
        )?,
        None => {
            let described = serde_json::json!({
                "agent": kind.name(),
                "config": config,
                "workload": spec.workload_path,
                "seed": spec.seed,
                "steps": spec.steps,
            });
            run.write_json("config.json", &described)
                .map_err(io(&run.path))?;
            board.text("hyperparameters", &markdown_table(&config), 0);
        }
    }
    let checkpoints = Checkpoints {
        kind,
        config: &config,
        spec,
        run: &run,
        workload_sha256,
        run_seed,
        shapes: (observation_len, mask_len),
        env_kind: prototype.context().kind().name(),
        wall_s_at_start,
        started,
    };
    learner.plan(spec.steps);
    let eval_seeds: Vec<u64> = (0..spec.eval_episodes as u64).collect();
    if start.is_none() {
        warm_start(
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

/// What every checkpoint of a run records besides the learner's own state.
struct Checkpoints<'a> {
    kind: AgentKind,
    config: &'a serde_json::Value,
    spec: &'a TrainSpec<'a>,
    run: &'a RunDir,
    workload_sha256: String,
    run_seed: u64,
    /// The network's `(observation, mask)` lengths.
    shapes: (usize, usize),
    env_kind: &'static str,
    wall_s_at_start: f64,
    started: Instant,
}

impl Checkpoints<'_> {
    fn manifest(
        &self,
        step: u64,
        return_stats: Option<ReturnStats>,
        resumable: bool,
        best: Option<BestPolicy>,
    ) -> Manifest {
        let (model, optimizer, target) =
            Manifest::record_names(step, self.kind.has_target_network());
        Manifest {
            agent: self.kind.name().into(),
            config: self.config.clone(),
            workload: self.spec.workload_path.display().to_string(),
            workload_sha256: self.workload_sha256.clone(),
            step,
            seed: self.run_seed,
            schedlab_version: env!("CARGO_PKG_VERSION").into(),
            model,
            optimizer,
            target,
            observation_len: self.shapes.0,
            mask_len: self.shapes.1,
            return_stats,
            play_settings: self.spec.play_settings.iter().cloned().collect(),
            workload_settings: self.spec.workload_settings.iter().cloned().collect(),
            env_kind: Some(self.env_kind.to_owned()),
            resume_state: resumable.then(|| Manifest::resume_state_name(step)),
            wall_s: Some(self.wall_s_at_start + self.started.elapsed().as_secs_f64()),
            best,
        }
    }

    /// Record files first, the manifest naming them last (trainer/src/run.rs).
    fn save<M>(
        &self,
        learner: &dyn Learner<M>,
        step: u64,
        best: Option<BestPolicy>,
    ) -> Result<(), TrainError> {
        let state = learner.resume_state();
        let manifest = self.manifest(step, learner.return_stats(), state.is_some(), best);
        let run = self.run;
        learner
            .save(run, &manifest)
            .and_then(|()| match (&state, &manifest.resume_state) {
                (Some(state), Some(name)) => run.write_json(name, state),
                _ => Ok(()),
            })
            .and_then(|()| run.commit_checkpoint(&manifest))
            .map_err(io(&run.path))
    }
}

/// The learner's warm start, where its configuration asks for one, with its report against
/// the teacher; a run of no steps is checkpointed right after it.
fn warm_start<E: SchedulingEnv>(
    prototype: &E,
    learner: &mut dyn Learner<E::Metrics>,
    checkpoints: &Checkpoints,
    eval_seeds: &[u64],
    board: &mut TensorBoard,
) -> Result<(), TrainError> {
    let Some(report) = learner
        .warm_start()
        .map_err(|e| TrainError::WarmStart(e.to_string()))?
    else {
        return Ok(());
    };
    let run = checkpoints.run;
    let warm = compare_with_teacher(prototype, &*learner, &report, eval_seeds)?;
    for (tag, value) in eval_scalars(&warm.clone_metrics) {
        board.scalar(&tag, value, 0);
    }
    log_warm_start(board, &report);
    run.write_json("warm_start.json", &warm)
        .map_err(io(&run.path))?;
    if checkpoints.spec.steps == 0 {
        checkpoints.save(&*learner, 0, None)?;
    }
    Ok(())
}

/// Greedy evaluations during training: their seeds, and the best network so far.
struct Evaluations<'a, E> {
    prototype: &'a E,
    seeds: &'a [u64],
    best: Option<BestPolicy>,
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

/// Continues `learner` from the checkpoint `manifest` names in `run`, refused where the
/// network was built for other shapes than the workload's `(observation, mask)` lengths.
fn restore<M>(
    learner: &mut dyn Learner<M>,
    manifest: &Manifest,
    run: &RunDir,
    shapes: (usize, usize),
) -> Result<(), TrainError> {
    if (manifest.observation_len, manifest.mask_len) != shapes {
        return Err(invalid(
            &run.path,
            "network shapes differ from the workload's".into(),
        ));
    }
    learner
        .restore(&run.path, manifest)
        .and_then(|()| manifest.read_resume_state(&run.path))
        .and_then(|state| state.map_or(Ok(()), |s| learner.restore_state(s)))
        .map_err(|e| invalid(&run.path, e.to_string()))
}

/// The manifest of the run `spec` resumes, refused when it is of another agent or was trained
/// on another workload file; none for a new run.
fn resumed_manifest(
    kind: AgentKind,
    spec: &TrainSpec,
    workload_sha256: &str,
) -> Result<Option<Manifest>, TrainError> {
    Ok(match spec.resume {
        Some(path) => {
            let manifest = Manifest::read(path).map_err(io(path))?;
            if manifest.agent != kind.name() {
                return Err(invalid(
                    path,
                    format!("agent `{}` is not {}", manifest.agent, kind.name()),
                ));
            }
            if manifest.workload_sha256 != workload_sha256 {
                return Err(invalid(
                    path,
                    format!(
                        "trained on {} (a different file than {})",
                        manifest.workload,
                        spec.workload_path.display()
                    ),
                ));
            }
            let settings: BTreeMap<String, String> =
                spec.workload_settings.iter().cloned().collect();
            if manifest.workload_settings != settings {
                return Err(invalid(
                    path,
                    format!(
                        "trained with the workload settings {:?}, resumed with {settings:?}",
                        manifest.workload_settings
                    ),
                ));
            }
            Some(manifest)
        }
        None => None,
    })
}

impl<E: SchedulingEnv> Evaluations<'_, E> {
    /// Plays the learner's greedy policy on the seeds after the update that reached `step`
    /// and logs `eval/*`; with `keep_best`, a better mean return than the best so far keeps
    /// this network as the run's policy.
    fn play(
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

/// The warm start's agreement, cross-entropy and DAgger rounds as curves.
fn log_warm_start(board: &mut TensorBoard, report: &WarmStartReport) {
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

/// One update's curves: the finished episodes' metrics, SPS, the learner's own curves and the
/// training job's loss.
fn log_update<M: EpisodeSummary>(board: &mut TensorBoard, stats: &UpdateStats<M>, sps: f64) {
    for m in &stats.finished {
        for (name, value) in m.curves() {
            board.scalar(&format!("charts/{name}"), value as f32, stats.env_steps);
        }
    }
    board.scalar("charts/SPS", sps as f32, stats.env_steps);
    for &(tag, value) in &stats.scalars {
        board.scalar(tag, value, stats.env_steps);
    }
    if stats.train_loss.is_finite() {
        board.scalar("env/train_loss", stats.train_loss as f32, stats.env_steps);
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

fn compare_with_teacher<E: SchedulingEnv>(
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
    use schedlab_agents::learned::actor_critic::ActorCriticConfig;
    use schedlab_env::{Environment, Scenario, SingleJobEnv};

    use super::*;
    use crate::ppo::PpoConfig;

    fn small() -> (PathBuf, SingleJobEnv) {
        let workload =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        let env = SingleJobEnv::new(Scenario::load(&workload).unwrap());
        (workload, env)
    }

    fn tiny() -> serde_json::Value {
        let config = PpoConfig::new()
            .with_envs(2)
            .with_rollout_steps(8)
            .with_hidden(16);
        serde_json::to_value(config).unwrap()
    }

    /// DQN updates of 2 copies x 4 rounds, learning from 8 stored transitions.
    fn tiny_dqn() -> crate::dqn::DqnConfig {
        crate::dqn::DqnConfig::new()
            .with_envs(2)
            .with_steps_per_update(4)
            .with_learning_starts(8)
            .with_batch_size(8)
            .with_hidden(16)
    }

    fn spec<'a>(
        workload: &'a Path,
        out: &'a Path,
        steps: u64,
        resume: Option<&'a Path>,
    ) -> TrainSpec<'a> {
        TrainSpec {
            workload_path: workload,
            out,
            seed: 2,
            steps,
            checkpoint_every: 16,
            eval_every: 16,
            eval_episodes: 0,
            resume,
            stop: None,
            play_settings: &[],
            workload_settings: &[],
        }
    }

    fn files(run: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(run)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_run_folder_holds_events_hyperparameters_and_a_loadable_checkpoint() {
        let (workload, scenario) = small();
        let out = tempfile::tempdir().unwrap();
        let device = Device::flex().autodiff();
        let mut updates = 0;
        let mut evaluations = Vec::new();
        let run = train(
            AgentKind::named("ppo"),
            &scenario,
            tiny(),
            &TrainSpec {
                eval_episodes: 3,
                play_settings: &[("section.key".to_owned(), "[1.0, 2.0]".to_owned())],
                workload_settings: &[],
                ..spec(&workload, out.path(), 32, None)
            },
            device.clone(),
            &mut |p| {
                assert!(p.sps > 0.0);
                updates += 1;
                if let Some(episodes) = p.evaluation {
                    evaluations.push((p.stats.env_steps, episodes.to_vec()));
                }
            },
        )
        .unwrap();
        assert_eq!(updates, 2, "32 steps of 2 copies x 8 rounds");
        assert_eq!(
            evaluations
                .iter()
                .map(|e| (e.0, e.1.len()))
                .collect::<Vec<_>>(),
            vec![(16, 3), (32, 3)],
            "3 greedy episodes every 16 rounds"
        );
        for (_, episodes) in &evaluations {
            assert!(episodes.iter().all(|m| m.completion_time_s > 0.0));
        }
        let name = run.path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with("small-4node__ppo__2__"), "{name}");
        let names = files(&run.path);
        assert!(
            names.iter().any(|f| f.starts_with("events.out.tfevents")),
            "{names:?}"
        );
        for f in [
            "config.json",
            "manifest.json",
            "model-32.bpk",
            "optim-32.bpk",
        ] {
            assert!(names.contains(&f.to_owned()), "{f} missing: {names:?}");
        }
        assert_eq!(
            names.iter().filter(|f| f.ends_with(".bpk")).count(),
            2,
            "older checkpoints are removed: {names:?}"
        );
        let manifest = Manifest::read(&run.path).unwrap();
        assert_eq!(
            (manifest.step, manifest.seed, manifest.agent.as_str()),
            (32, 2, "ppo")
        );
        assert_eq!(manifest.workload_sha256, sha256_file(&workload).unwrap());
        assert_eq!(manifest.env_kind.as_deref(), Some("single-job"));
        assert_eq!(
            manifest
                .play_settings
                .get("section.key")
                .map(String::as_str),
            Some("[1.0, 2.0]"),
            "the play settings are recorded for players"
        );
        let fresh = ActorCriticConfig::new(manifest.observation_len, manifest.mask_len)
            .with_hidden(16)
            .init(&device);
        assert!(fresh.try_load_file(run.path.join(&manifest.model)).is_ok());
    }

    /// Trains PPO on `env` as `spec` says, asking it to stop (as Ctrl-C does) once an update
    /// reaches `stop_from` rounds; returns the run and each update's step, curves and finished
    /// episodes' returns.
    fn train_logged<E: SchedulingEnv>(
        env: &E,
        config: &serde_json::Value,
        spec: TrainSpec,
        stop_from: Option<u64>,
    ) -> (RunDir, Vec<String>) {
        let stop = AtomicBool::new(false);
        let spec = TrainSpec {
            stop: Some(&stop),
            ..spec
        };
        let mut log = Vec::new();
        let run = train(
            AgentKind::named("ppo"),
            env,
            config.clone(),
            &spec,
            Device::flex().autodiff(),
            &mut |p| {
                let returns: Vec<f64> = p
                    .stats
                    .finished
                    .iter()
                    .map(|m| m.episode_return())
                    .collect();
                log.push(format!(
                    "{} {:?} {returns:?}",
                    p.stats.env_steps, p.stats.scalars
                ));
                if stop_from.is_some_and(|s| p.stats.env_steps >= s) {
                    stop.store(true, Ordering::Relaxed);
                }
            },
        )
        .unwrap();
        (run, log)
    }

    /// A run stopped at a checkpoint and resumed trains as the run that never stopped: the
    /// same curves and episodes after the checkpoint, and the same weights at the end.
    fn resumes_as_if_never_stopped<E: SchedulingEnv>(
        env: &E,
        workload: &Path,
        config: serde_json::Value,
        (stop_from, total): (u64, u64),
    ) {
        let whole_out = tempfile::tempdir().unwrap();
        let (whole, whole_log) = train_logged(
            env,
            &config,
            spec(workload, whole_out.path(), total, None),
            None,
        );
        let part_out = tempfile::tempdir().unwrap();
        let (part, mut log) = train_logged(
            env,
            &config,
            spec(workload, part_out.path(), total, None),
            Some(stop_from),
        );
        let manifest = Manifest::read(&part.path).unwrap();
        assert!(
            manifest.step > stop_from && manifest.step < total,
            "{}",
            manifest.step
        );
        let state = manifest.read_resume_state(&part.path).unwrap().unwrap();
        let in_flight = state["collector"]["rollouts"]["history"]["actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|copy| !copy.as_array().unwrap().is_empty());
        assert!(in_flight, "episodes run on across the checkpoint: {state}");
        let (resumed, rest) = train_logged(
            env,
            &config,
            spec(workload, part_out.path(), total, Some(&part.path)),
            None,
        );
        assert_eq!(resumed.path, part.path);
        log.extend(rest);
        assert_eq!(log, whole_log);
        // the final weights act the same (record files differ in their parameter ids): the
        // first 200 greedy steps of an episode
        let greedy_steps = |run: &RunDir| {
            let mut policy =
                crate::algorithms::load_agent(&run.path, &env.context(), &Device::flex(), &[])
                    .unwrap();
            let mut env = env.fresh_copy();
            let (mut observation, _) = env.reset(7).unwrap();
            let mut steps = Vec::new();
            for _ in 0..200 {
                let action = policy.act(&observation);
                let step = env.step(&action).unwrap();
                steps.push((action, step.reward));
                if step.terminated || step.truncated {
                    break;
                }
                observation = step.observation;
            }
            steps
        };
        assert_eq!(greedy_steps(&resumed), greedy_steps(&whole));
    }

    /// `keep_best` keeps the network of the best greedy evaluation, which the run folder then
    /// plays; without evaluation episodes it is refused before a folder is made.
    #[test]
    fn keep_best_plays_the_network_of_the_best_evaluation() {
        let (workload, scenario) = small();
        let out = tempfile::tempdir().unwrap();
        let mut config = tiny();
        config["keep_best"] = serde_json::json!(true);
        let mut evaluations: Vec<(u64, f64)> = Vec::new();
        let evaluated = TrainSpec {
            eval_episodes: 2,
            ..spec(&workload, out.path(), 96, None)
        };
        let run = train(
            AgentKind::named("ppo"),
            &scenario,
            config.clone(),
            &evaluated,
            Device::flex().autodiff(),
            &mut |p| {
                if let Some(episodes) = p.evaluation {
                    let mean = episodes.iter().map(|m| m.episode_return()).sum::<f64>()
                        / episodes.len() as f64;
                    evaluations.push((p.stats.env_steps, mean));
                }
            },
        )
        .unwrap();
        assert_eq!(evaluations.len(), 6, "{evaluations:?}");
        let (best_step, best_return) = evaluations
            .iter()
            .copied()
            .fold((0, f64::MIN), |b, e| if e.1 > b.1 { e } else { b });
        let manifest = Manifest::read(&run.path).unwrap();
        let best = manifest.best.clone().expect("a best network");
        assert_eq!((best.step, best.eval_return), (best_step, best_return));
        assert_eq!(manifest.policy_model(), format!("best-{best_step}.bpk"));
        let kept: Vec<String> = files(&run.path)
            .into_iter()
            .filter(|f| f.starts_with("best-"))
            .collect();
        assert_eq!(kept, vec![manifest.policy_model().to_owned()]);
        // the folder plays the best network: as the record that holds it, not the last
        let policy =
            crate::algorithms::load_agent(&run.path, &scenario.context(), &Device::flex(), &[]);
        assert!(policy.is_ok());
        if best_step != manifest.step {
            std::fs::remove_file(run.path.join(&manifest.model)).unwrap();
            assert!(
                crate::algorithms::load_agent(&run.path, &scenario.context(), &Device::flex(), &[])
                    .is_ok(),
                "the last record is not what plays"
            );
        }
        let empty = tempfile::tempdir().unwrap();
        let err = train(
            AgentKind::named("ppo"),
            &scenario,
            config,
            &TrainSpec {
                eval_episodes: 0,
                ..spec(&workload, empty.path(), 96, None)
            },
            Device::flex().autodiff(),
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("keep_best needs evaluation episodes"), "{err}");
        assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_resumed_run_trains_as_one_that_never_stopped() {
        let (workload, scenario) = small();
        resumes_as_if_never_stopped(&scenario, &workload, tiny(), (16, 64));
    }

    /// philly-mini's jobs through `interface`.
    fn philly_mini(interface: &str) -> (PathBuf, schedlab_env::jobs::JobsEnv) {
        use schedlab_env::jobs::{JobsEnv, JobsWorkload};
        let workload =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/philly-mini.toml");
        let settings = [("window.interface".to_string(), interface.to_string())];
        let env = JobsEnv::new(std::sync::Arc::new(
            JobsWorkload::load(&workload, &settings).unwrap(),
        ));
        (workload, env)
    }

    /// The same on philly-mini's jobs through the one-choice interface, with a curriculum, a
    /// trajectory filter and forced decisions skipped: episodes reset under an earlier plan
    /// are replayed under it.
    #[test]
    fn a_resumed_jobs_run_with_a_curriculum_and_a_filter_trains_as_one_that_never_stopped() {
        let (workload, env) = philly_mini("one-choice");
        let config = PpoConfig::new()
            .with_envs(2)
            .with_rollout_steps(8)
            .with_per_unit(true)
            .with_hidden(16)
            .with_curriculum_start_s(1800.0)
            .with_curriculum_end_s(7200.0)
            .with_filter_heuristic("fifo".into())
            .with_filter_pool(4)
            .with_filter_quantile(0.5)
            .with_filter_share(0.5)
            .with_discount_time_s(3600.0)
            .with_skip_forced(true);
        resumes_as_if_never_stopped(
            &env,
            &workload,
            serde_json::to_value(config).unwrap(),
            (16, 64),
        );
    }

    /// A run trained with `starts_only` plays from its folder without changing a running job,
    /// and one trained with `grow_only` without shrinking or preempting one, where the env
    /// would let them; through the per-slot interface they are refused by name, and together
    /// at all.
    #[test]
    fn a_restricted_run_plays_only_the_choices_it_trained_with() {
        use schedlab_env::jobs::Choice;
        let (workload, env) = philly_mini("one-choice");
        let device = Device::flex().autodiff();
        let base = PpoConfig::new()
            .with_envs(2)
            .with_rollout_steps(8)
            .with_per_unit(true)
            .with_hidden(16);
        let layout = env.choice_layout().unwrap().clone();
        // why training `config` on `env` is refused
        let refusal = |env: &schedlab_env::jobs::JobsEnv, config: serde_json::Value| {
            let empty = tempfile::tempdir().unwrap();
            let spec = spec(&workload, empty.path(), 32, None);
            train(
                AgentKind::named("ppo"),
                env,
                config,
                &spec,
                device.clone(),
                &mut |_| {},
            )
            .unwrap_err()
            .to_string()
        };
        for (option, starts_only, grow_only) in
            [("starts_only", true, false), ("grow_only", false, true)]
        {
            let config = base
                .clone()
                .with_starts_only(starts_only)
                .with_grow_only(grow_only);
            let config = serde_json::to_value(config).unwrap();
            let out = tempfile::tempdir().unwrap();
            let run = train(
                AgentKind::named("ppo"),
                &env,
                config.clone(),
                &spec(&workload, out.path(), 32, None),
                device.clone(),
                &mut |_| {},
            )
            .unwrap();
            let mut policy =
                crate::algorithms::load_agent(&run.path, &env.context(), &Device::flex(), &[])
                    .unwrap();
            let mut env = env.fresh_copy();
            let (mut observation, _) = env.reset(0).unwrap();
            let (mut offered, mut steps) = (0, 0);
            loop {
                // what the restriction leaves out: any change to a running job, or one to a
                // lower level than it holds
                let left_out = |c: usize| {
                    let slot = c / layout.per_slot();
                    let running =
                        c < layout.advance() && observation.action_mask[slot * layout.per_slot()];
                    running
                        && match layout.decode(c) {
                            Choice::Set {
                                workers_level,
                                size_level,
                                ..
                            } => {
                                let current = layout.running_levels(&observation.features, slot);
                                starts_only || workers_level < current.0 || size_level < current.1
                            }
                            _ => true,
                        }
                };
                let choice = policy.act(&observation)[0];
                offered += usize::from(
                    (0..layout.advance()).any(|c| observation.action_mask[c] && left_out(c)),
                );
                assert!(!left_out(choice), "{option}: {:?}", layout.decode(choice));
                let step = env.step(&[choice]).unwrap();
                steps += 1;
                if step.terminated || step.truncated || steps == 2_000 {
                    break;
                }
                observation = step.observation;
            }
            assert!(
                offered > 0,
                "the env never offered what {option} leaves out"
            );
            let err = refusal(&philly_mini("per-slot").1, config);
            assert!(
                err.contains(&format!("{option} needs the one-choice interface")),
                "{err}"
            );
        }
        let both = serde_json::to_value(base.with_starts_only(true).with_grow_only(true)).unwrap();
        let err = refusal(&env, both);
        assert!(
            err.contains("starts_only and grow_only exclude each other"),
            "{err}"
        );
    }

    #[test]
    fn a_run_resumes_from_its_last_checkpoint_and_refuses_bad_ones() {
        let (workload, scenario) = small();
        let out = tempfile::tempdir().unwrap();
        let device = Device::flex().autodiff();
        let run = train(
            AgentKind::named("ppo"),
            &scenario,
            tiny(),
            &spec(&workload, out.path(), 16, None),
            device.clone(),
            &mut |_| {},
        )
        .unwrap();
        // the checkpoint keeps the reward scale's statistics, and a restored learner has them
        let saved = Manifest::read(&run.path).unwrap();
        let stats = saved.return_stats.expect("PPO scales rewards by default");
        assert!(stats.count > 1.0, "{stats:?}");
        let mut restored = AgentKind::named("ppo")
            .learner(&scenario, &saved.config, 0, device.clone())
            .unwrap();
        assert_ne!(restored.return_stats(), Some(stats));
        restored.restore(&run.path, &saved).unwrap();
        assert_eq!(restored.return_stats(), Some(stats));
        // a checkpoint from before `same_window` existed still resumes
        let mut older = saved.clone();
        older.config.as_object_mut().unwrap().remove("same_window");
        run.write_json("manifest.json", &older).unwrap();
        let mut steps = Vec::new();
        // the resumed run keeps its own hyperparameters whatever is passed
        let resumed = train(
            AgentKind::named("ppo"),
            &scenario,
            AgentKind::named("ppo").default_config(schedlab_agents::EnvKind::SingleJob),
            &spec(&workload, out.path(), 48, Some(&run.path)),
            device.clone(),
            &mut |p| steps.push(p.stats.env_steps),
        )
        .unwrap();
        assert_eq!(resumed.path, run.path);
        assert_eq!(steps, vec![32, 48], "continues from step 16");
        assert_eq!(Manifest::read(&run.path).unwrap().step, 48);
        assert_eq!(
            files(&run.path)
                .iter()
                .filter(|f| f.starts_with("events.out.tfevents"))
                .count(),
            2,
            "one event file per process"
        );

        // another workload file is refused
        let svm = workload.with_file_name("a9a-svm.toml");
        let err = train(
            AgentKind::named("ppo"),
            &SingleJobEnv::new(Scenario::load(&svm).unwrap()),
            tiny(),
            &spec(&svm, out.path(), 64, Some(&run.path)),
            device.clone(),
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("cannot resume") && err.contains("different file"),
            "{err}"
        );

        // so is the same file under other settings than the run trained with
        let settings = [("job.lr".to_owned(), "0.5".to_owned())];
        let err = train(
            AgentKind::named("ppo"),
            &scenario,
            tiny(),
            &TrainSpec {
                workload_settings: &settings,
                ..spec(&workload, out.path(), 64, Some(&run.path))
            },
            device.clone(),
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("cannot resume") && err.contains("job.lr"),
            "{err}"
        );

        // a corrupt model is refused, not trained on
        let manifest = Manifest::read(&run.path).unwrap();
        std::fs::write(run.path.join(&manifest.model), b"not a burn record").unwrap();
        let err = train(
            AgentKind::named("ppo"),
            &scenario,
            tiny(),
            &spec(&workload, out.path(), 64, Some(&run.path)),
            device,
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("model-48.bpk"), "{err}");
    }

    #[test]
    fn dqn_checkpoints_hold_its_target_network_resume_and_load_as_a_greedy_policy() {
        let (workload, scenario) = small();
        let out = tempfile::tempdir().unwrap();
        let device = Device::flex().autodiff();
        let run = train(
            AgentKind::named("dqn"),
            &scenario,
            serde_json::to_value(tiny_dqn()).unwrap(),
            &spec(&workload, out.path(), 16, None),
            device.clone(),
            &mut |_| {},
        )
        .unwrap();
        let manifest = Manifest::read(&run.path).unwrap();
        assert_eq!(manifest.target.as_deref(), Some("target-16.bpk"));
        let mut steps = Vec::new();
        let mut tags = Vec::new();
        train(
            AgentKind::named("dqn"),
            &scenario,
            AgentKind::named("dqn").default_config(schedlab_agents::EnvKind::SingleJob),
            &spec(&workload, out.path(), 32, Some(&run.path)),
            device.clone(),
            &mut |p| {
                steps.push(p.stats.env_steps);
                tags.extend(p.stats.scalars.iter().map(|(t, _)| *t));
            },
        )
        .unwrap();
        assert_eq!(steps, vec![24, 32], "continues from step 16");
        assert!(
            tags.contains(&"losses/td_loss"),
            "a resumed run trains again once its replay holds learning_starts: {tags:?}"
        );
        let names = files(&run.path);
        for f in ["model-32.bpk", "optim-32.bpk", "target-32.bpk"] {
            assert!(names.contains(&f.to_owned()), "{f} missing: {names:?}");
        }
        assert_eq!(names.iter().filter(|f| f.ends_with(".bpk")).count(), 3);

        let mut env = scenario.fresh_copy();
        let ctx = env.policy_context();
        let mut policy =
            crate::algorithms::load_agent(&run.path, &env.context(), &device, &[]).unwrap();
        assert_eq!(policy.name(), "dqn");
        let (obs, _) = env.reset(0).unwrap();
        let first = policy.act(&obs);
        assert_eq!(first, policy.act(&obs), "greedy: no exploration left");
        for (d, &level) in first.iter().enumerate() {
            assert!(obs.mask_of(&ctx.action_space, d)[level]);
        }

        // a missing target network is refused
        std::fs::remove_file(run.path.join("target-32.bpk")).unwrap();
        let err = train(
            AgentKind::named("dqn"),
            &scenario,
            AgentKind::named("dqn").default_config(schedlab_agents::EnvKind::SingleJob),
            &spec(&workload, out.path(), 48, Some(&run.path)),
            device,
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("cannot resume") && err.contains("target-32.bpk"),
            "{err}"
        );
    }

    #[test]
    fn a_diverging_loss_stops_training_with_the_step_and_tag() {
        let (workload, scenario) = small();
        let out = tempfile::tempdir().unwrap();
        let err = train(
            AgentKind::named("dqn"),
            &scenario,
            serde_json::to_value(tiny_dqn().with_lr(1e30)).unwrap(),
            &spec(&workload, out.path(), 400, None),
            Device::flex().autodiff(),
            &mut |_| {},
        )
        .unwrap_err();
        assert!(
            matches!(err, TrainError::Diverged { tag, .. } if tag.starts_with("losses/")),
            "{err}"
        );
    }

    #[test]
    fn bad_hyperparameters_are_refused_before_a_run_folder_is_made() {
        let (workload, scenario) = small();
        let out = tempfile::tempdir().unwrap();
        let mut config = AgentKind::named("dqn").default_config(schedlab_agents::EnvKind::SingleJob);
        config["batch_size"] = serde_json::json!(0);
        let err = train(
            AgentKind::named("dqn"),
            &scenario,
            config,
            &spec(&workload, out.path(), 16, None),
            Device::flex().autodiff(),
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("dqn hyperparameters: need batch_size >= 1"),
            "{err}"
        );
        assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
    }

    #[test]
    fn a2c_trains_one_step_per_rollout_into_its_own_run_and_is_not_resumed_as_ppo() {
        let (workload, scenario) = small();
        let out = tempfile::tempdir().unwrap();
        let config = PpoConfig::a2c().with_envs(2).with_hidden(16);
        assert_eq!(
            (
                config.epochs,
                config.minibatches,
                config.normalize_advantages
            ),
            (1, 1, false)
        );
        let run = train(
            AgentKind::named("a2c"),
            &scenario,
            serde_json::to_value(config).unwrap(),
            &spec(&workload, out.path(), 20, None),
            Device::flex().autodiff(),
            &mut |_| {},
        )
        .unwrap();
        assert!(
            run.path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .contains("__a2c__")
        );
        let manifest = Manifest::read(&run.path).unwrap();
        assert_eq!((manifest.agent.as_str(), manifest.step), ("a2c", 20));
        let err = train(
            AgentKind::named("ppo"),
            &scenario,
            tiny(),
            &spec(&workload, out.path(), 40, Some(&run.path)),
            Device::flex().autodiff(),
            &mut |_| {},
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("agent `a2c` is not ppo"), "{err}");
    }
}
