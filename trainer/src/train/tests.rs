use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use burn::module::Module;
use burn::tensor::Device;
use schedlab_agents::SchedulingEnv;
use schedlab_agents::learned::actor_critic::ActorCriticConfig;
use schedlab_artifacts::sha256_file;
use schedlab_env::{Environment, EpisodeSummary, Scenario, SingleJobEnv};

use super::*;
use crate::algorithms::AgentKind;
use crate::play_settings::PlaySettings;
use crate::ppo::{Curriculum, PpoConfig, TrajectoryFilter};
use crate::run::{Manifest, RunDir};

fn small() -> (PathBuf, SingleJobEnv) {
    let workload =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
    let env = SingleJobEnv::new(Scenario::load(&workload).unwrap());
    (workload, env)
}

fn tiny() -> serde_json::Value {
    let config = PpoConfig {
        envs: 2,
        rollout_steps: 8,
        play: PlaySettings::new(16),
        ..PpoConfig::default()
    };
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

#[test]
fn a_run_of_no_steps_is_checkpointed_with_its_initial_network() {
    let (workload, scenario) = small();
    let out = tempfile::tempdir().unwrap();
    let device = Device::flex().autodiff();
    let mut updates = 0;
    let run = train(
        AgentKind::named("ppo"),
        &scenario,
        tiny(),
        &spec(&workload, out.path(), 0, None),
        device.clone(),
        &mut |_| updates += 1,
    )
    .unwrap();
    assert_eq!(updates, 0);
    let manifest = Manifest::read(&run.path).unwrap();
    assert_eq!((manifest.step, manifest.model.as_str()), (0, "model-0.bpk"));
    let loaded =
        crate::algorithms::load_agent(&run.path, &scenario.context(), &Device::flex(), &[]);
    assert!(loaded.is_ok(), "{:?}", loaded.err());
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
            crate::algorithms::load_agent(&run.path, &env.context(), &Device::flex(), &[]).unwrap();
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
    let config = PpoConfig {
        envs: 2,
        rollout_steps: 8,
        per_unit: true,
        discount_time_s: 3600.0,
        skip_forced: true,
        play: PlaySettings::new(16),
        curriculum: Curriculum {
            start_s: 1800.0,
            end_s: 7200.0,
            ..Curriculum::default()
        },
        filter: TrajectoryFilter {
            heuristic: "fifo".into(),
            pool: 4,
            quantile: 0.5,
            share: 0.5,
        },
        ..PpoConfig::default()
    };
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
    let base = PpoConfig {
        envs: 2,
        rollout_steps: 8,
        per_unit: true,
        play: PlaySettings::new(16),
        ..PpoConfig::default()
    };
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
        let mut config = serde_json::to_value(&base).unwrap();
        config["starts_only"] = starts_only.into();
        config["grow_only"] = grow_only.into();
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
            crate::algorithms::load_agent(&run.path, &env.context(), &Device::flex(), &[]).unwrap();
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
    let mut both = serde_json::to_value(&base).unwrap();
    both["starts_only"] = true.into();
    both["grow_only"] = true.into();
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
        err.contains("dqn hyperparameters: `batch_size` = 0: need batch_size >= 1"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

#[test]
fn a2c_trains_one_step_per_rollout_into_its_own_run_and_is_not_resumed_as_ppo() {
    let (workload, scenario) = small();
    let out = tempfile::tempdir().unwrap();
    let config = PpoConfig {
        envs: 2,
        play: PlaySettings::new(16),
        ..PpoConfig::a2c()
    };
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
