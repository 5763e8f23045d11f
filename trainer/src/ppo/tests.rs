use std::path::PathBuf;
use std::sync::Arc;

use burn::tensor::Device;
use schedlab_env::{Environment, Observation, Scenario, SingleJobEnv, episode_seed};

use schedlab_agents::{SchedulingEnv, registry};

use super::record::Record;
use super::rollout::Experience;
use super::same_window::{HeuristicRollout, Played};
use super::update::explained_variance;
use super::windows::WINDOW_SEEDS;
use super::*;
use crate::learner::{EpisodeTally, Learner};
use crate::play_settings::PlaySettings;

#[test]
fn explained_variance_compares_the_critic_with_the_targets_mean() {
    let record = |value: f32| Record {
        observation: Observation {
            features: Vec::new(),
            action_mask: Vec::new(),
        },
        action: Vec::new(),
        log_prob: 0.0,
        value,
        reward: 0.0,
        elapsed_s: 0.0,
        discount: 1.0,
        lambda: 1.0,
        terminated: false,
        truncated: false,
        final_value: None,
    };
    let ev = |values: [f32; 3], targets: [f32; 3]| {
        let records = values.map(record);
        let rows: Vec<(&Record, f32, f32)> = records
            .iter()
            .zip(targets)
            .map(|(r, g)| (r, 0.0, g))
            .collect();
        explained_variance(&rows)
    };
    assert_eq!(ev([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]), Some(1.0));
    // a constant critic explains nothing; one off by a constant everything
    assert_eq!(ev([5.0, 5.0, 5.0], [1.0, 2.0, 3.0]), Some(0.0));
    assert_eq!(ev([0.0, 1.0, 2.0], [1.0, 2.0, 3.0]), Some(1.0));
    // residuals (1, -1, 0) of targets with variance 2/3: 1 - (2/3)/(2/3)
    assert_eq!(ev([0.0, 3.0, 3.0], [1.0, 2.0, 3.0]), Some(0.0));
    assert_eq!(ev([1.0, 2.0, 3.0], [4.0, 4.0, 4.0]), None);
}

fn trainer_with(config: PpoConfig, seed: u64) -> PpoTrainer<SingleJobEnv> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
    let scenario = Scenario::load(&path).unwrap();
    PpoTrainer::new(
        &SingleJobEnv::new(scenario),
        PpoConfig {
            play: PlaySettings::new(32),
            ..config
        },
        seed,
        Device::flex().autodiff(),
    )
    .unwrap()
}

type Tally = EpisodeTally<<SingleJobEnv as schedlab_env::Environment>::Metrics>;

/// One rollout phase of `t`, raw rewards.
fn collect(t: &mut PpoTrainer<SingleJobEnv>) -> (Experience, Tally) {
    t.rollout.collect(&mut t.agent, &t.config).unwrap()
}

/// One phase of whole episodes of `t`, rewards scaled as the update scales them.
fn play_windows(
    t: &mut PpoTrainer<SingleJobEnv>,
) -> (Vec<Played>, Tally, Option<Vec<HeuristicRollout>>) {
    let (mut experience, tally) = collect(t);
    t.advantages.scale_rewards(&mut experience, &t.config);
    match experience {
        Experience::Episodes { played, heuristic } => (played, tally, heuristic),
        _ => panic!("a whole-episode collector"),
    }
}

fn trainer(seed: u64) -> PpoTrainer<SingleJobEnv> {
    trainer_with(
        PpoConfig {
            envs: 2,
            rollout_steps: 8,
            ..PpoConfig::default()
        },
        seed,
    )
}

fn run(seed: u64) -> Vec<(u64, f32, f32, f32, usize)> {
    let mut t = trainer(seed);
    (0..3)
        .map(|_| {
            let s = t.update().unwrap();
            let tags: Vec<&str> = s.scalars.iter().map(|(tag, _)| *tag).collect();
            assert_eq!(
                tags[..7],
                [
                    "losses/policy_loss",
                    "losses/value_loss",
                    "losses/entropy",
                    "losses/approx_kl",
                    "losses/clipfrac",
                    "losses/grad_norm",
                    "charts/learning_rate"
                ]
            );
            let chart = |tag: &str| s.scalars.iter().find(|(t, _)| *t == tag).map(|c| c.1);
            // the first epoch starts at the old policy: KL and clipping only grow from 0
            let kl = chart("losses/approx_kl").unwrap();
            let clipped = chart("losses/clipfrac").unwrap();
            assert!(kl >= -1e-6 && kl.is_finite(), "{kl}");
            assert!((0.0..=1.0).contains(&clipped), "{clipped}");
            let grad_norm = chart("losses/grad_norm").unwrap();
            assert!(grad_norm > 0.0 && grad_norm.is_finite(), "{grad_norm}");
            if let Some(ev) = chart("losses/explained_variance") {
                assert!(ev <= 1.0 && ev.is_finite(), "{ev}");
            }
            (
                s.env_steps,
                s.scalars[0].1,
                s.scalars[1].1,
                s.scalars[2].1,
                s.finished.len(),
            )
        })
        .collect()
}

#[test]
fn updates_count_steps_report_finite_losses_and_repeat_with_the_seed() {
    let first = run(4);
    for (k, &(steps, policy, value, entropy, _)) in first.iter().enumerate() {
        assert_eq!(steps, (k as u64 + 1) * 2 * 8);
        assert!(
            policy.is_finite() && value.is_finite() && entropy > 0.0,
            "{:?}",
            first[k]
        );
    }
    // 48 rounds of a workload whose episodes last 7-12 rounds: some episodes ended
    assert!(first.iter().map(|s| s.4).sum::<usize>() > 0);
    assert_eq!(first, run(4), "the same seed trains identically");
}

/// Rollouts of 80 copies (inference in pieces) and minibatches of 640 rows (update in
/// shards), per job and flat, train the same weights on 1, 2 and 4 threads.
#[test]
fn training_is_identical_at_any_thread_count() {
    let env = one_choice_philly_mini();
    let train = |threads: usize, per_unit: bool| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let config = PpoConfig {
                envs: 80,
                rollout_steps: 8,
                minibatches: 1,
                epochs: 2,
                per_unit,
                play: PlaySettings::new(16),
                ..PpoConfig::default()
            };
            let mut t = PpoTrainer::new(&env, config, 3, Device::flex().autodiff()).unwrap();
            let losses: Vec<Vec<f32>> = (0..3)
                .map(|_| t.update().unwrap().scalars.iter().map(|s| s.1).collect())
                .collect();
            // the trained critic on the prototype's first observation
            let mut probe = env.fresh_copy();
            let (first, _) = probe.reset(9).unwrap();
            (losses, t.agent.values(&[&first]))
        })
    };
    for per_unit in [true, false] {
        let one = train(1, per_unit);
        assert_eq!(
            one,
            train(2, per_unit),
            "per_unit {per_unit}: 1 and 2 threads"
        );
        assert_eq!(
            one,
            train(4, per_unit),
            "per_unit {per_unit}: 1 and 4 threads"
        );
    }
}

/// Two groups of two copies.
fn window_trainer(seed: u64) -> PpoTrainer<SingleJobEnv> {
    trainer_with(
        PpoConfig {
            envs: 4,
            baseline: Baseline {
                same_window: 2,
                ..Baseline::default()
            },
            ..PpoConfig::default()
        },
        seed,
    )
}

#[test]
fn same_window_plays_whole_episodes_a_window_per_group_and_repeats_with_the_seed() {
    let mut t = window_trainer(5);
    let (played, tally, heuristic) = play_windows(&mut t);
    assert!(heuristic.is_none(), "no baseline heuristic asked for");
    let (finished, _) = tally.finish();
    assert_eq!(finished.len(), 4, "one whole episode per copy");
    assert!(
        played
            .iter()
            .all(|e| e.records.last().unwrap().terminated || e.records.last().unwrap().truncated)
    );
    let first = |c: usize| &played[c].records[0].observation.features;
    assert_eq!(first(0), first(1), "a group starts on one window");
    assert_eq!(first(2), first(3));
    assert_ne!(first(0), first(2), "groups draw their own windows");
    let decisions: usize = played.iter().map(|e| e.records.len()).sum();
    assert_eq!(t.rollout.env_steps(), decisions as u64);
    for e in &played {
        assert_eq!(e.times.len(), e.records.len());
        assert_eq!(
            e.times[0], 0.0,
            "a decision's time is the clock before its step"
        );
        assert!(e.times.windows(2).all(|w| w[1] > w[0]), "{:?}", e.times);
    }
    let (again, ..) = play_windows(&mut t);
    assert_ne!(
        &again[0].records[0].observation.features,
        first(0),
        "the next update draws new windows"
    );

    let update = |seed| {
        let mut t = window_trainer(seed);
        (0..2)
            .map(|_| {
                let s = t.update().unwrap();
                assert!(s.scalars.iter().all(|(_, v)| v.is_finite()), "{s:?}");
                (s.env_steps, s.scalars)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(update(5), update(5), "the same seed trains identically");
}

/// philly-mini's env through the one-choice interface.
fn one_choice_philly_mini() -> schedlab_env::jobs::JobsEnv {
    use schedlab_env::jobs::{JobsEnv, JobsWorkload};
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/philly-mini.toml");
    let one_choice = [("window.interface".to_string(), "one-choice".to_string())];
    JobsEnv::new(Arc::new(JobsWorkload::load(&path, &one_choice).unwrap()))
}

/// philly-mini through the one-choice interface, trained per job under a curriculum, a
/// trajectory filter, a KL bound and an entropy schedule.
fn shaped_jobs_trainer(seed: u64) -> PpoTrainer<schedlab_env::jobs::JobsEnv> {
    let env = one_choice_philly_mini();
    let config = PpoConfig {
        envs: 2,
        rollout_steps: 32,
        per_unit: true,
        target_kl: 1e-6,
        anneal_entropy: true,
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
            pool: 8,
            quantile: 0.5,
            ..TrajectoryFilter::default()
        },
        ..PpoConfig::default()
    };
    config.check().unwrap();
    let mut trainer = PpoTrainer::new(&env, config, seed, Device::flex().autodiff()).unwrap();
    trainer.plan(4 * 2 * 32);
    trainer
}

#[test]
fn curriculum_filter_and_schedules_follow_the_run_and_repeat_with_the_seed() {
    let run = |seed| {
        let mut t = shaped_jobs_trainer(seed);
        let kept = t.kept_windows.clone().expect("a filter was asked for");
        (0..4)
            .map(|_| {
                let s = t.update().unwrap();
                let scalar = |tag: &str| {
                    s.scalars
                        .iter()
                        .find(|(t, _)| *t == tag)
                        .unwrap_or_else(|| panic!("no {tag} in {:?}", s.scalars))
                        .1
                };
                (
                    scalar("charts/cut_mean_s"),
                    scalar("charts/filtering"),
                    scalar("charts/entropy_coef"),
                    scalar("losses/epochs_run"),
                    s.env_steps,
                )
            })
            .collect::<Vec<_>>()
            .into_iter()
            .chain(std::iter::once((kept.len() as f32, 0.0, 0.0, 0.0, 0)))
            .collect::<Vec<_>>()
    };
    let first = run(3);
    let kept = first[4].0;
    assert!((4.0..8.0).contains(&kept), "kept {kept} of 8 windows");
    // the cut's mean grows from the start over the first half, then episodes are whole
    assert_eq!(first[0].0, 1800.0);
    assert_eq!(first[1].0, 1800.0 + 5400.0 * 0.5);
    assert_eq!((first[2].0, first[3].0), (0.0, 0.0));
    // the filter holds for the first half only; the entropy bonus falls to 0
    assert_eq!(
        first[..4].iter().map(|s| s.1).collect::<Vec<_>>(),
        [1.0, 1.0, 0.0, 0.0]
    );
    assert!(first[0].2 > first[1].2 && first[3].2 < first[0].2);
    // a KL bound of 1e-6 stops updates before their 4 epochs (the rate anneals, so the
    // later ones move less per epoch and run longer)
    assert!(
        first[..4].iter().all(|s| (1.0..=4.0).contains(&s.3)),
        "{first:?}"
    );
    assert!(first[..4].iter().any(|s| s.3 < 4.0), "{first:?}");
    assert_eq!(first, run(3), "the same seed trains identically");
}

#[test]
fn the_differential_form_measures_rewards_against_the_running_rate_and_checkpoints_it() {
    let config = || PpoConfig {
        envs: 2,
        rollout_steps: 8,
        normalize_rewards: false,
        differential: true,
        ..PpoConfig::default()
    };
    let mut t = trainer_with(config(), 3);
    t.update().unwrap();
    let stats = t.return_stats().expect("the rate is kept in checkpoints");
    assert!(stats.seconds > 0.0 && stats.reward_sum != 0.0, "{stats:?}");
    let rate = t.advantages.scale().reward_rate();
    assert_eq!(rate, stats.reward_sum / stats.seconds);
    // the next rollout's rewards are its raw ones less that rate times their span
    let (mut experience, _) = collect(&mut t);
    t.advantages.scale_rewards(&mut experience, &t.config);
    let Experience::Steps { records, .. } = experience else {
        panic!("a rollout collector");
    };
    let raw: f64 = records.iter().flatten().map(|r| f64::from(r.reward)).sum();
    let after = t.advantages.scale().stats();
    let (rewards, seconds) = (
        after.reward_sum - stats.reward_sum,
        after.seconds - stats.seconds,
    );
    let expected = rewards - rate * seconds;
    assert!(
        (raw - expected).abs() < 1e-3 * expected.abs().max(1.0),
        "{raw} vs {expected}"
    );
    let mut again = trainer_with(config(), 3);
    again.update().unwrap();
    assert_eq!(
        again.return_stats(),
        Some(stats),
        "the same seed, the same rate"
    );
}

#[test]
fn same_window_needs_whole_groups_of_two_or_more() {
    for (envs, group) in [(4, 1), (4, 3), (2, 4)] {
        let config = PpoConfig {
            envs,
            baseline: Baseline {
                same_window: group,
                ..Baseline::default()
            },
            ..PpoConfig::default()
        };
        assert!(
            config
                .check()
                .unwrap_err()
                .to_string()
                .contains("same_window"),
            "{envs} {group}"
        );
    }
    assert!(
        PpoConfig {
            envs: 4,
            baseline: Baseline {
                same_window: 4,
                ..Baseline::default()
            },
            ..PpoConfig::default()
        }
        .check()
        .is_ok()
    );
}

#[test]
fn a_baseline_heuristic_plays_each_copys_own_seed_and_trains_repeatably() {
    let config = || PpoConfig {
        envs: 2,
        minibatch_size: 8,
        baseline: Baseline {
            heuristic: "static".into(),
            ..Baseline::default()
        },
        ..PpoConfig::default()
    };
    let mut t = trainer_with(config(), 3);
    let (played, _, heuristic) = play_windows(&mut t);
    let heuristic = heuristic.expect("the heuristic played");
    assert_eq!(heuristic.len(), 2);
    let first = |c: usize| &played[c].records[0].observation.features;
    assert_ne!(first(0), first(1), "each copy on its own seed");
    // each rollout is the heuristic's episode on its copy's seed, in the copies' unit
    let mut env = t.prototype.fresh_copy();
    let mut fixed = registry::build("static", &env.context(), &[]).unwrap();
    for (c, rollout) in heuristic.iter().enumerate() {
        let seed = episode_seed(3 ^ WINDOW_SEEDS, c as u64, 0);
        let mut alone =
            same_window::play_heuristic(&mut env, fixed.as_mut(), seed, (0.99, 0.0)).unwrap();
        same_window::scale_heuristic(t.advantages.scale(), std::slice::from_mut(&mut alone));
        assert_eq!(rollout, &alone, "copy {c}");
    }
    let update = |seed| {
        let mut t = trainer_with(config(), seed);
        (0..2)
            .map(|_| {
                let s = t.update().unwrap();
                assert!(s.scalars.iter().all(|(_, v)| v.is_finite()), "{s:?}");
                (s.env_steps, s.gradient_steps, s.scalars)
            })
            .collect::<Vec<_>>()
    };
    let first = update(3);
    // the update's decisions cut into minibatches of 8 rows, over 4 epochs
    let (rows, gradient_steps) = (first[0].0, first[0].1);
    assert!(rows > 8, "{rows} decisions");
    assert_eq!(gradient_steps, 4 * rows.div_ceil(8));
    assert_eq!(first, update(3), "the same seed trains identically");
    let unknown = PpoTrainer::new(
        &t.prototype,
        PpoConfig {
            baseline: Baseline {
                heuristic: "nope".into(),
                ..config().baseline
            },
            ..config()
        },
        3,
        Device::flex().autodiff(),
    )
    .err()
    .expect("an unknown heuristic is refused")
    .to_string();
    assert!(unknown.contains("baseline heuristic `nope`"), "{unknown}");
    for refused in [
        PpoConfig {
            envs: 4,
            baseline: Baseline {
                same_window: 2,
                ..config().baseline
            },
            ..config()
        },
        PpoConfig {
            differential: true,
            ..config()
        },
    ] {
        let err = refused.check().unwrap_err().to_string();
        assert!(err.contains("baseline heuristic"), "{err}");
    }
}
