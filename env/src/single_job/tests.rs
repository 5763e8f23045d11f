use crate::error::EnvError;
use crate::single_job::{SingleJobEnv, SingleJobInfo};
use crate::testkit::{scenario, two_node_workload};

/// The same level per node: `[cpu, mem, gpu]`.
fn uniform(nodes: usize, levels: [usize; 3]) -> Vec<usize> {
    (0..nodes).flat_map(|_| levels).collect()
}

#[test]
fn hb_asgd_gives_the_faster_node_the_larger_batch() {
    let mut env = SingleJobEnv::new(scenario(&two_node_workload("hb_asgd", "")));
    env.reset(3).unwrap();
    let action = uniform(2, [2, 2, 0]);
    env.step(&action).unwrap();
    let step = env.step(&action).unwrap();
    let (fast, slow) = (step.info.workers[0].batch, step.info.workers[1].batch);
    assert!(
        fast > slow,
        "fast node batch {fast}, slow node batch {slow}"
    );
    // speed 2 vs 0.5: about 16 * 1.25 vs 16 * 0.3125 once the rule has settled
    assert!(fast >= 16 && slow <= 16, "fast {fast}, slow {slow}");
}

#[test]
fn fixed_batch_optimizers_keep_the_base_batch() {
    for optimizer in ["sync_sgd", "async_sgd", "adam", "momentum", "nesterov"] {
        let mut env = SingleJobEnv::new(scenario(&two_node_workload(optimizer, "")));
        env.reset(3).unwrap();
        let step = env.step(&uniform(2, [2, 2, 0])).unwrap();
        assert!(
            step.info.workers.iter().all(|w| w.batch == 16),
            "{optimizer}: {:?}",
            step.info.workers
        );
        assert!(step.info.iterations > 0, "{optimizer} made progress");
    }
}

/// By default the factor falls with tight allocations and stays at 1 with ample ones; bounds
/// above 1 let ample allocations raise it.
#[test]
fn learning_rate_falls_with_tight_allocations_and_rises_only_where_bounds_allow() {
    let factors = |job_extra: &str| {
        let mut env = SingleJobEnv::new(scenario(&two_node_workload("hb_asgd", job_extra)));
        env.reset(0).unwrap();
        let tight = env.step(&uniform(2, [1, 1, 0])).unwrap().info.lr_factor;
        let ample = env.step(&uniform(2, [3, 2, 0])).unwrap().info.lr_factor;
        (tight, ample)
    };
    let (tight, ample) = factors("");
    assert!(tight < 1.0 && ample == 1.0, "tight {tight}, ample {ample}");
    let (tight, ample) = factors("lr_factor_bounds = [0.5, 2.0]");
    assert!(tight < 1.0 && ample > 1.0, "tight {tight}, ample {ample}");
}

#[test]
fn stale_gradients_beyond_the_window_are_discarded_and_counted() {
    // tau = 0: every gradient computed on an older version than the current one is dropped
    let mut env = SingleJobEnv::new(scenario(&two_node_workload("hb_asgd", "tau = 0")));
    env.reset(1).unwrap();
    let step = env.step(&uniform(2, [2, 2, 0])).unwrap();
    let discarded: u64 = step.info.workers.iter().map(|w| w.discarded).sum();
    let pushed: u64 = step.info.workers.iter().map(|w| w.gradients).sum();
    assert!(discarded > 0, "two async workers collide at least once");
    assert_eq!(step.info.iterations, pushed - discarded);
}

#[test]
fn infeasible_and_malformed_actions_are_refused_with_the_reason() {
    let mut env = SingleJobEnv::new(scenario(&two_node_workload("hb_asgd", "")));
    let (obs, _) = env.reset(0).unwrap();
    let space = env.action_space().clone();
    // the ladder has no GPU sizes: only level 0 exists
    assert_eq!(space.nvec()[..3], [4, 3, 1]);
    assert!(
        obs.mask_of(&space, 0).iter().all(|&ok| ok),
        "4 cores fit every CPU size"
    );
    match env.step(&[2, 2, 1, 2, 2, 0]) {
        Err(EnvError::BadAction(m)) => assert!(m.contains("node 0 / gpu level 1"), "{m}"),
        other => panic!("expected a malformed action, got {other:?}"),
    }
    match env.step(&[2, 2]) {
        Err(EnvError::BadAction(m)) => assert!(m.contains("2 entries"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_allocation_beyond_free_capacity_is_masked_and_rejected() {
    let text = two_node_workload("hb_asgd", "").replace(
        "[background]\nsource = \"none\"",
        "[background]\nsource = \"stochastic\"\nmean_share = 0.6\nvolatility = 0.0\nmax_share = 0.6",
    );
    let mut env = SingleJobEnv::new(scenario(&text));
    let (obs, _) = env.reset(0).unwrap();
    let space = env.action_space().clone();
    // 60% of 4 cores are taken: 1 core fits, 2 and 4 do not
    assert_eq!(obs.mask_of(&space, 0), &[true, true, false, false]);
    match env.step(&uniform(2, [2, 1, 0])) {
        Err(EnvError::Infeasible {
            node: 0,
            resource: "cpu",
            level: 2,
            requested,
            free,
            ..
        }) => {
            assert_eq!(requested, 2.0);
            assert!((free - 1.6).abs() < 1e-9, "free {free}");
        }
        other => panic!("expected an infeasible action, got {other:?}"),
    }
}

#[test]
fn an_episode_ends_at_the_target_or_a_limit_and_then_refuses_steps() {
    let mut env = SingleJobEnv::new(scenario(
        &two_node_workload("hb_asgd", "").replace("target_loss = 0.05", "target_loss = 0.3"),
    ));
    env.reset(0).unwrap();
    let mut last = None;
    for _ in 0..8 {
        let step = env.step(&uniform(2, [3, 2, 0])).unwrap();
        let done = step.terminated || step.truncated;
        last = Some(step);
        if done {
            break;
        }
    }
    let step = last.unwrap();
    assert!(
        step.terminated,
        "softmax on digits reaches loss 0.3 within 40 virtual seconds"
    );
    let m = step.info.metrics.unwrap();
    assert!(m.target_reached && m.final_loss <= 0.3);
    assert!(m.completion_time_s < 40.0 && m.completion_time_s > 0.0);
    assert!(matches!(
        env.step(&uniform(2, [3, 2, 0])),
        Err(EnvError::EpisodeOver)
    ));
}

#[test]
fn divergence_is_reported_instead_of_propagating_nan() {
    let text = two_node_workload("async_sgd", "").replace("lr = 0.1", "lr = 1e30");
    let mut env = SingleJobEnv::new(scenario(&text));
    env.reset(0).unwrap();
    let err = (0..8)
        .find_map(|_| env.step(&uniform(2, [2, 2, 0])).err())
        .expect("the run diverges");
    assert!(err.to_string().contains("non-finite"), "{err}");
}

#[test]
fn no_container_means_no_progress_and_a_full_time_penalty() {
    let mut env = SingleJobEnv::new(scenario(&two_node_workload("hb_asgd", "")));
    env.reset(0).unwrap();
    let step = env.step(&uniform(2, [0, 2, 0])).unwrap();
    assert_eq!(step.info.iterations, 0);
    assert_eq!(
        step.info.allocation,
        vec![[0.0; 3]; 2],
        "CPU level 0 releases the whole container"
    );
    assert!((step.reward + 1.0).abs() < 1e-12, "reward {}", step.reward);
}

/// The price (default prices) of what a round of `dt` seconds held and of what its workers
/// used, computed from the step's info, apart from the env's own accounting.
fn priced_held_and_used(info: &SingleJobInfo, dt: f64) -> (f64, f64) {
    let prices = crate::schema::Prices::default().per_second();
    let held = info
        .allocation
        .iter()
        .map(|a| (0..3).map(|r| prices[r] * a[r] * dt).sum::<f64>())
        .sum();
    let used = info
        .workers
        .iter()
        .map(|w| prices[0] * w.cpu_used_s + prices[1] * w.mem_used_gb_s + prices[2] * w.gpu_used_s)
        .sum();
    (held, used)
}

/// `reward.lambda_held_idle` charges the unused share of what the job holds (priced), per round
/// of time, from the round's allocation and its workers' use; holding nothing costs nothing.
#[test]
fn the_held_idle_term_charges_the_unused_share_of_what_is_held() {
    let held_idle_only = "[reward]\nlambda_time = 0.0\nlambda_idle = 0.0\nlambda_held_idle = 2.0";
    let mut env = SingleJobEnv::new(scenario(&two_node_workload("hb_asgd", held_idle_only)));
    env.reset(0).unwrap();
    let step = env.step(&uniform(2, [2, 1, 0])).unwrap();
    let dt = step.info.time_s;
    let (held, used) = priced_held_and_used(&step.info, dt);
    assert!(held > used && used > 0.0, "held {held}, used {used}");
    let expected = -2.0 * dt / 5.0 * (held - used) / held;
    assert!(
        (step.reward - expected).abs() < 1e-9,
        "reward {} expected {expected}",
        step.reward
    );
    let nothing_held = env.step(&uniform(2, [0, 2, 0])).unwrap();
    assert_eq!(nothing_held.reward, 0.0);
}

/// `reward.lambda_episode_idle` is paid once, at the episode's last step: the episode's idle
/// cost over the cost of all it held, summed from every round's allocation and use; the episode
/// return counts it.
#[test]
fn the_episode_idle_term_is_paid_once_at_the_end() {
    let episode_idle_only =
        "[reward]\nlambda_time = 0.0\nlambda_idle = 0.0\nlambda_episode_idle = 3.0";
    let mut env = SingleJobEnv::new(scenario(&two_node_workload("hb_asgd", episode_idle_only)));
    env.reset(0).unwrap();
    let (mut held, mut used, mut t0, mut rewards) = (0.0, 0.0, 0.0, Vec::new());
    loop {
        let step = env.step(&uniform(2, [1, 1, 0])).unwrap();
        let (round_held, round_used) = priced_held_and_used(&step.info, step.info.time_s - t0);
        (held, used, t0) = (held + round_held, used + round_used, step.info.time_s);
        rewards.push(step.reward);
        if let Some(metrics) = step.info.metrics {
            assert!(rewards.len() > 1, "the episode should take several rounds");
            assert_eq!(metrics.episode_return, rewards.iter().sum::<f64>());
            break;
        }
    }
    let (last, earlier) = rewards.split_last().unwrap();
    assert!(earlier.iter().all(|&r| r == 0.0), "{rewards:?}");
    let expected = -3.0 * (held - used) / held;
    assert!(
        (last - expected).abs() < 1e-9,
        "last reward {last}, expected {expected}"
    );
    assert!(*last < 0.0);
}

/// A compressed push is smaller, so the same allocation sends fewer bits and pushes more
/// gradients in a round when bandwidth binds; the workers' bits add up to the total; the
/// decompressed gradient, not the exact one, reaches the server.
#[test]
fn compression_shrinks_the_bits_and_changes_the_training() {
    // 1 Gbit/s links and a 100 MB model: a push takes most of an iteration uncompressed
    let slow_links = |compression: &str| {
        two_node_workload("async_sgd", &format!("compression = {compression}"))
            .replace("bandwidth_gbps = 10", "bandwidth_gbps = 1")
            .replace("model_mb = 10.0", "model_mb = 100.0")
    };
    let play = |compression: &str| {
        let mut env = SingleJobEnv::new(scenario(&slow_links(compression)));
        env.reset(2).unwrap();
        let mut step = env.step(&uniform(2, [2, 2, 0])).unwrap();
        let mut pushes = 0;
        let mut bits = 0;
        loop {
            pushes += step.info.workers.iter().map(|w| w.gradients).sum::<u64>();
            bits += step.info.workers.iter().map(|w| w.bits_sent).sum::<u64>();
            if step.terminated || step.truncated {
                let m = step.info.metrics.clone().unwrap();
                assert_eq!(m.bits_sent, bits as f64, "{compression}");
                assert_eq!(m.bits_per_worker, m.bits_sent / 2.0);
                return (pushes, m);
            }
            step = env.step(&uniform(2, [2, 2, 0])).unwrap();
        }
    };
    let (plain_pushes, plain) = play("{ kind = \"none\" }");
    for compression in [
        "{ kind = \"qsgd\", levels = 4 }",
        "{ kind = \"top-k\", ratio = 0.01 }",
        "{ kind = \"sign\" }",
    ] {
        let (pushes, m) = play(compression);
        assert!(
            pushes > plain_pushes,
            "{compression}: {pushes} against {plain_pushes}"
        );
        assert!(
            m.bits_sent / (pushes as f64) < plain.bits_sent / plain_pushes as f64,
            "{compression}"
        );
        assert_ne!(m.final_loss, plain.final_loss, "{compression}");
    }
    // the same seed repeats a stochastic compressor exactly
    assert_eq!(
        play("{ kind = \"qsgd\", levels = 4 }").1,
        play("{ kind = \"qsgd\", levels = 4 }").1
    );
}

/// Pushes per worker over an episode of `optimizer` with `job_extra`, and the updates made.
fn pushes_and_updates(optimizer: &str, job_extra: &str) -> (Vec<u64>, Vec<u64>, u64) {
    let mut env = SingleJobEnv::new(scenario(&two_node_workload(optimizer, job_extra)));
    env.reset(5).unwrap();
    let (mut pushes, mut cancelled) = (vec![0u64; 2], vec![0u64; 2]);
    loop {
        let step = env.step(&uniform(2, [2, 2, 0])).unwrap();
        for (w, round) in step.info.workers.iter().enumerate() {
            pushes[w] += round.gradients;
            cancelled[w] += round.cancelled;
        }
        if step.terminated || step.truncated {
            return (pushes, cancelled, step.info.iterations);
        }
    }
}

/// A staleness bound holds the fast worker to the slow one's pace; without it the fast node
/// (4 times the speed) pushes far more.
#[test]
fn a_staleness_bound_keeps_the_fast_worker_near_the_slow_one() {
    let (free, _, _) = pushes_and_updates("async_sgd", "");
    assert!(free[0] > 2 * free[1], "{free:?}");
    for bound in [0u64, 2] {
        let (bounded, _, _) =
            pushes_and_updates("async_sgd", &format!("staleness_bound = {bound}"));
        assert!(
            bounded[0] <= bounded[1] + bound + 1,
            "bound {bound}: {bounded:?}"
        );
        assert!(
            bounded[0] < free[0],
            "bound {bound}: {bounded:?} against {free:?}"
        );
    }
}

/// With one backup worker a synchronous step closes on the fast node's push: the slow one's
/// iterations are cancelled and steps come faster.
#[test]
fn backup_workers_close_steps_without_the_straggler() {
    let (_, none_cancelled, plain_steps) = pushes_and_updates("sync_sgd", "");
    assert_eq!(none_cancelled, vec![0, 0]);
    let (pushes, cancelled, steps) = pushes_and_updates("sync_sgd", "backup_workers = 1");
    assert!(
        cancelled[1] > 0 && pushes[0] > pushes[1],
        "{pushes:?} {cancelled:?}"
    );
    assert!(steps > plain_steps, "{steps} against {plain_steps}");
}

fn episode_metrics(optimizer: &str, job_extra: &str) -> crate::SingleJobMetrics {
    let mut env = SingleJobEnv::new(scenario(&two_node_workload(optimizer, job_extra)));
    env.reset(9).unwrap();
    loop {
        let step = env.step(&uniform(2, [2, 2, 0])).unwrap();
        if let Some(m) = step.info.metrics {
            return m;
        }
    }
}

/// Local SGD with one local step is synchronous SGD, bit for bit; with four it pushes a
/// quarter as often for the same samples and trains differently.
#[test]
fn local_sgd_with_one_step_is_sync_sgd_and_with_more_sends_less() {
    let sync = episode_metrics("sync_sgd", "");
    let local_one = episode_metrics("local_sgd", "local_steps = 1");
    assert_eq!(
        serde_json::to_string(&sync).unwrap(),
        serde_json::to_string(&local_one).unwrap()
    );
    let local_four = episode_metrics("local_sgd", "local_steps = 4");
    assert_ne!(local_four.final_loss, sync.final_loss);
    let per_update = |m: &crate::SingleJobMetrics| m.bits_sent / m.iterations as f64;
    // an average every four local steps: about the same two messages per worker per average
    // (iterations cut off at the episode's end make it inexact), so fewer bits in all
    let ratio = per_update(&local_four) / per_update(&sync);
    assert!((0.8..1.25).contains(&ratio), "{ratio}");
    assert!(
        local_four.iterations < sync.iterations,
        "{local_four:?} {sync:?}"
    );
    assert!(
        local_four.bits_sent < sync.bits_sent,
        "{local_four:?} {sync:?}"
    );
}

/// In a ring the workers pull nothing and each sends `2 (N - 1) / N` of a message per step:
/// with two workers half the parameter server's bits per update; and the steps are timed
/// differently, so the run differs.
#[test]
fn ring_all_reduce_halves_two_workers_bits_and_changes_the_clock() {
    let server = episode_metrics("sync_sgd", "");
    let ring = episode_metrics("sync_sgd", "topology = \"ring-all-reduce\"");
    let per_update = |m: &crate::SingleJobMetrics| m.bits_sent / m.iterations as f64;
    let ratio = per_update(&ring) / per_update(&server);
    assert!((0.4..0.6).contains(&ratio), "{ratio}");
    assert_ne!(ring.iterations, server.iterations);
    // local SGD averages through the ring too
    let local = episode_metrics(
        "local_sgd",
        "local_steps = 2\ntopology = \"ring-all-reduce\"",
    );
    assert!(local.iterations > 0 && local.bits_sent < ring.bits_sent);
}

/// Gradients are computed when pulled on one thread and lazily, in batches, on several: the
/// episodes agree bit for bit, local SGD's inner steps included (a batch computed while a
/// worker is between local steps must not leave it a gradient of an earlier step).
#[test]
fn eager_and_lazy_gradients_give_the_same_episode() {
    for (optimizer, extra) in [
        ("hb_asgd", ""),
        ("async_sgd", "staleness_bound = 1"),
        ("sync_sgd", "backup_workers = 1"),
        ("local_sgd", "local_steps = 3"),
        // compressors draw random numbers and keep error-feedback residuals per worker
        ("hb_asgd", r#"compression = { kind = "qsgd", levels = 4 }"#),
        (
            "sync_sgd",
            r#"compression = { kind = "top-k", ratio = 0.1 }"#,
        ),
        (
            "local_sgd",
            "local_steps = 2\ncompression = { kind = \"sign\" }",
        ),
    ] {
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let metrics = pool.install(|| episode_metrics(optimizer, extra));
            serde_json::to_string(&metrics).unwrap()
        };
        assert_eq!(on(1), on(3), "{optimizer} {extra}");
    }
}

#[test]
fn the_remembered_initial_loss_is_only_reused_for_the_same_parameters() {
    let scenario = scenario(&two_node_workload("hb_asgd", ""));
    let validation = &scenario.data.validation;
    let zeros = vec![0.0f32; scenario.model.num_params()];
    let shifted: Vec<f32> = (0..zeros.len()).map(|i| (i % 7) as f32 * 0.1).collect();
    // the first call remembers; other parameters must not get the remembered loss
    for params in [&zeros, &shifted, &zeros, &shifted] {
        assert_eq!(
            scenario.initial_loss(params).to_bits(),
            scenario.model.mean_loss(params, validation).to_bits()
        );
    }
    assert_ne!(
        scenario.initial_loss(&zeros),
        scenario.initial_loss(&shifted)
    );
}

#[test]
fn fewer_training_rows_than_workers_are_refused_by_name() {
    let text = two_node_workload("hb_asgd", "")
        .replace("name = \"slow\"", "name = \"slow\"\ncount = 5000");
    let path = crate::testkit::write_workload(&text);
    let err = crate::Scenario::load(&path).unwrap_err().to_string();
    assert!(
        err.contains("job.dataset") && err.contains("no shard for each of the 5001 nodes"),
        "{err}"
    );
}
