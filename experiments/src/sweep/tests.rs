use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::journal::{JOURNAL, read_rows};
use super::merge::merge;
use super::run::{SweepOptions, run, train_all};
use super::spec::{Shard, SweepSpec, TrainSettings};
use crate::sources::SOURCES_FINGERPRINT;
use schedlab_trainer::run::Manifest;

fn grid_spec(policies: usize, workloads: usize, variants: usize, seeds: u64) -> SweepSpec {
    let shipped = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads");
    SweepSpec {
        name: "test".into(),
        policies: ["static", "random", "periodic", "greedy"][..policies]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        workloads: ["small-4node.toml", "a9a-svm.toml"][..workloads]
            .iter()
            .map(|w| shipped.join(w))
            .collect(),
        seeds: (0..seeds).collect(),
        overrides: (0..variants)
            .map(|v| {
                let mut set = BTreeMap::new();
                set.insert(
                    "episode.max_rounds".into(),
                    toml::Value::Integer(3 + v as i64),
                );
                (format!("v{v}"), set)
            })
            .collect(),
        train: TrainSettings::default(),
    }
}

fn options(out: &Path, shard: Shard) -> SweepOptions {
    SweepOptions {
        out: out.to_owned(),
        shard,
        runs: out.join("runs"),
        jobs: Some(2),
        replay_other_sources: false,
    }
}

proptest! {
    #[test]
    fn shards_partition_the_grid_exactly(
        policies in 1usize..4, workloads in 1usize..3, variants in 0usize..3, seeds in 1u64..6,
        count in 1usize..9,
    ) {
        let spec = grid_spec(policies, workloads, variants, seeds);
        let grid = spec.grid();
        let mut covered = vec![0; grid.len()];
        for index in 0..count {
            let shard = Shard { index, count };
            for (k, _) in grid.iter().enumerate().filter(|(k, _)| shard.holds(*k)) {
                covered[k] += 1;
            }
        }
        prop_assert!(covered.iter().all(|&c| c == 1), "{covered:?}");
        let keys: HashSet<_> = grid.iter().map(|c| spec.key(c)).collect();
        prop_assert_eq!(keys.len(), grid.len(), "every cell has its own key");
    }
}

#[test]
fn shard_text_is_checked() {
    assert_eq!(Shard::parse("1/4").unwrap(), Shard { index: 1, count: 4 });
    for bad in ["4/4", "1", "a/2", "0/0"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
}

/// The journal's rows as text lines.
fn journal_lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join(JOURNAL))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_rerun_skips_finished_rows_and_redoes_only_missing_or_torn_ones() {
    let dir = tempfile::tempdir().unwrap();
    let spec = grid_spec(2, 1, 1, 2);
    let first = run(&spec, &options(dir.path(), Shard::WHOLE)).unwrap();
    assert_eq!(first.len(), 4);
    // mark one finished row: a rerun must keep it as written, not play it again
    let mut lines = journal_lines(dir.path());
    let marked = lines[0].replacen("\"completion_time_s\",", "\"completion_time_s\",-", 1);
    assert_ne!(marked, lines[0]);
    lines[0] = marked;
    // drop another row and tear the last one, as a kill mid-write would
    let dropped = lines.remove(1);
    let last = lines.pop().unwrap();
    let mut text = lines.join("\n") + "\n";
    text += &last[..last.len() / 2];
    std::fs::write(dir.path().join(JOURNAL), text).unwrap();

    let again = run(&spec, &options(dir.path(), Shard::WHOLE)).unwrap();
    assert_eq!(again.len(), 4);
    let marked: super::journal::Row = serde_json::from_str(&lines[0]).unwrap();
    for (before, after) in first.iter().zip(&again) {
        assert_eq!(before.key, after.key, "rows come back in grid order");
        if after.key == marked.key {
            assert_eq!(
                after.metrics[0].1, -before.metrics[0].1,
                "kept, not replayed"
            );
        } else {
            assert_eq!(
                after, before,
                "the dropped and the torn rows are played again, identically"
            );
        }
    }
    assert!(journal_lines(dir.path()).contains(&dropped));
    let journaled = read_rows(&dir.path().join(JOURNAL)).unwrap();
    assert!(journaled.torn.is_none() && journaled.rows.len() == 4);
    // the tables hold the same rows
    let table = super::table::read_results(dir.path()).unwrap();
    assert_eq!(table.keys.len(), 4);
    let csv = super::table::read_results(&dir.path().join("results.csv")).unwrap();
    assert_eq!(csv.keys, table.keys);

    // another spec in the same folder is refused
    let err = run(&grid_spec(1, 1, 1, 2), &options(dir.path(), Shard::WHOLE))
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds another sweep"), "{err}");
}

/// A sweep that forgets a policy (one its changed spec no longer names) keeps the other
/// policies' rows as written (a marked row
/// stays marked, so it is not played again), and a spec that replaces the forgotten policy
/// plays only the replacement's cells, ending with the rows of a fresh run of that spec.
#[test]
fn a_forgotten_policy_is_replaced_without_playing_the_others_again() {
    let dir = tempfile::tempdir().unwrap();
    let spec = grid_spec(2, 1, 1, 2);
    run(&spec, &options(dir.path(), Shard::WHOLE)).unwrap();
    let mut lines = journal_lines(dir.path());
    let static_row = lines.iter().position(|l| l.contains("\"static\"")).unwrap();
    lines[static_row] =
        lines[static_row].replacen("\"completion_time_s\",", "\"completion_time_s\",-", 1);
    let marked = lines[static_row].clone();
    std::fs::write(dir.path().join(JOURNAL), lines.join("\n") + "\n").unwrap();
    // the policy a changed spec no longer names is the one forgotten
    let mut replaced = spec.clone();
    replaced.policies[1] = "periodic".into();
    let kept = super::run::forget_policies_not_in(dir.path(), &replaced).unwrap();
    assert_eq!(kept, 2);
    assert!(
        journal_lines(dir.path())
            .iter()
            .all(|l| !l.contains("\"random\""))
    );
    let rows = run(&replaced, &options(dir.path(), Shard::WHOLE)).unwrap();
    assert!(
        journal_lines(dir.path()).contains(&marked),
        "the kept rows were not replayed"
    );
    // a spec that names every policy of the folder leaves it, its record with it, so a spec
    // that differs otherwise is still refused
    assert_eq!(
        super::run::forget_policies_not_in(dir.path(), &replaced).unwrap(),
        4
    );
    let mut other_seeds = replaced.clone();
    other_seeds.seeds = vec![0];
    let err = run(&other_seeds, &options(dir.path(), Shard::WHOLE))
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds another sweep"), "{err}");
    // a policy added with nothing else changed is taken, its cells played beside the kept rows
    let mut added = replaced.clone();
    added.policies.push("greedy".into());
    assert_eq!(
        super::run::forget_policies_not_in(dir.path(), &added).unwrap(),
        4
    );
    assert_eq!(
        run(&added, &options(dir.path(), Shard::WHOLE))
            .unwrap()
            .len(),
        6
    );
    assert!(journal_lines(dir.path()).contains(&marked));
    let fresh_dir = tempfile::tempdir().unwrap();
    let fresh = run(&replaced, &options(fresh_dir.path(), Shard::WHOLE)).unwrap();
    assert_eq!(rows.len(), fresh.len());
    for (row, fresh) in rows.iter().zip(&fresh) {
        assert_eq!(row.key, fresh.key);
        if row.key.policy == "periodic" {
            assert_eq!(row.metrics, fresh.metrics);
        }
    }
    // a folder that is not there keeps nothing and is not made
    assert_eq!(
        super::run::forget_policies(&dir.path().join("absent"), |_| true).unwrap(),
        0
    );
    assert!(!dir.path().join("absent").exists());
}

#[test]
fn rows_played_by_other_sources_are_refused_or_played_again() {
    let dir = tempfile::tempdir().unwrap();
    let spec = grid_spec(2, 1, 0, 2);
    let rows = run(&spec, &options(dir.path(), Shard::WHOLE)).unwrap();
    assert!(rows.iter().all(|r| r.sources == SOURCES_FINGERPRINT));
    // one row of another build, one of a journal from before rows named their sources
    let lines = journal_lines(dir.path());
    let other = lines[1].replace(SOURCES_FINGERPRINT, "0123456789abcdef");
    let unrecorded = lines[2].replace(&format!(r#","sources":"{SOURCES_FINGERPRINT}""#), "");
    assert!(other != lines[1] && unrecorded != lines[2] && !unrecorded.contains("sources"));
    let edited = [&lines[0], &other, &unrecorded, &lines[3]];
    let text: String = edited.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.path().join(JOURNAL), text).unwrap();
    let refused = run(&spec, &options(dir.path(), Shard::WHOLE))
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains(JOURNAL)
            && refused.contains("2 of its 4 rows")
            && refused.contains("0123456789abcdef")
            && refused.contains("--replay-other-sources"),
        "{refused}"
    );
    let replayed = run(
        &spec,
        &SweepOptions {
            replay_other_sources: true,
            ..options(dir.path(), Shard::WHOLE)
        },
    )
    .unwrap();
    assert_eq!(
        replayed, rows,
        "the two rows are played again, as this build plays them"
    );
    assert!(
        dir.path().join(super::run::RECORD).exists(),
        "the spec record is kept"
    );
    let kept = journal_lines(dir.path());
    assert!(kept.contains(&lines[0]) && kept.contains(&lines[3]));
    // shards of two builds are not merged into one folder
    let shards: Vec<PathBuf> = (0..2)
        .map(|index| {
            let shard = dir.path().join(format!("shard-{index}"));
            run(&spec, &options(&shard, Shard { index, count: 2 })).unwrap();
            shard
        })
        .collect();
    let journal = shards[1].join(JOURNAL);
    let text = std::fs::read_to_string(&journal).unwrap();
    std::fs::write(
        &journal,
        text.replace(SOURCES_FINGERPRINT, "0123456789abcdef"),
    )
    .unwrap();
    let mixed = merge(&shards, &dir.path().join("merged"))
        .unwrap_err()
        .to_string();
    assert!(mixed.contains("played by other sources"), "{mixed}");
}

#[test]
fn shards_merge_into_the_whole_sweep_and_overlaps_or_gaps_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let spec = grid_spec(2, 1, 2, 2);
    let whole = run(&spec, &options(&root.path().join("whole"), Shard::WHOLE)).unwrap();
    let shard = |i: usize| {
        let dir = root.path().join(format!("s{i}"));
        run(&spec, &options(&dir, Shard { index: i, count: 3 })).unwrap();
        dir
    };
    let dirs: Vec<PathBuf> = (0..3).map(shard).collect();
    let merged = merge(&dirs, &root.path().join("merged")).unwrap();
    assert_eq!(merged, whole, "sharded and whole runs give the same rows");

    let err = merge(&[dirs[0].clone(), dirs[1].clone()], &root.path().join("m2"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("cells are missing"), "{err}");
    let copy = root.path().join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    for f in ["sweep.json", JOURNAL] {
        std::fs::copy(dirs[0].join(f), copy.join(f)).unwrap();
    }
    let mut with_copy = dirs.clone();
    with_copy.push(copy);
    let err = merge(&with_copy, &root.path().join("m3"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("shards overlap"), "{err}");
}

/// The run folders under `runs` (one per variant folder).
fn run_folders(runs: &Path) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(runs)
        .unwrap()
        .flat_map(|variant| std::fs::read_dir(variant.unwrap().path()).unwrap())
        .map(|run| run.unwrap().path())
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    folders
}

/// `train:AGENT` trained once before the shards: shards sharing the runs folder train nothing
/// more, and their merged rows equal a whole sweep that trained for itself.
#[test]
fn shards_sharing_pretrained_runs_train_nothing_and_merge_into_the_whole() {
    let root = tempfile::tempdir().unwrap();
    let mut spec = grid_spec(1, 1, 2, 2);
    spec.policies.push("train:ppo".into());
    spec.train.steps = 64;
    let shared = root.path().join("runs");
    assert_eq!(train_all(&spec, &shared).unwrap(), 2, "one run per variant");
    let trained = run_folders(&shared);
    assert_eq!(trained.len(), 2);
    assert_eq!(train_all(&spec, &shared).unwrap(), 2);
    assert_eq!(
        run_folders(&shared),
        trained,
        "a second call trains nothing"
    );
    let dirs: Vec<PathBuf> = (0..2)
        .map(|index| {
            let dir = root.path().join(format!("s{index}"));
            let options = SweepOptions {
                runs: shared.clone(),
                ..options(&dir, Shard { index, count: 2 })
            };
            run(&spec, &options).unwrap();
            dir
        })
        .collect();
    assert_eq!(run_folders(&shared), trained, "the shards trained nothing");
    let merged = merge(&dirs, &root.path().join("merged")).unwrap();
    let whole = run(&spec, &options(&root.path().join("whole"), Shard::WHOLE)).unwrap();
    assert_eq!(merged, whole);
}

/// A run that other env, agents or trainer sources trained is not played as this build's:
/// the sweep trains a new one beside it.
#[test]
fn runs_trained_by_other_sources_are_trained_again() {
    let root = tempfile::tempdir().unwrap();
    let mut spec = grid_spec(1, 1, 1, 1);
    spec.policies.push("train:ppo".into());
    spec.train.steps = 32;
    let shared = root.path().join("runs");
    train_all(&spec, &shared).unwrap();
    let trained = run_folders(&shared);
    assert_eq!(trained.len(), 1);
    let sources: Vec<PathBuf> = std::fs::read_dir(shared.join(spec.variant_name(0)))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sources"))
        .collect();
    assert_eq!(sources.len(), 1, "{sources:?}");
    std::fs::write(&sources[0], "another build").unwrap();
    train_all(&spec, &shared).unwrap();
    let now = run_folders(&shared);
    assert_eq!(now.len(), 2, "a new run beside the old: {now:?}");
    assert_eq!(
        std::fs::read_to_string(&sources[0]).unwrap(),
        SOURCES_FINGERPRINT
    );
    train_all(&spec, &shared).unwrap();
    assert_eq!(run_folders(&shared), now, "and that one is reused");
}

/// Two sweeps started together on one folder: one writes, the other is refused naming the
/// writer, and the folder then holds each cell once (before the lock, each cell was played
/// and journaled twice).
#[test]
fn a_second_sweep_on_a_folder_is_refused_while_the_first_writes() {
    let dir = tempfile::tempdir().unwrap();
    let spec = grid_spec(2, 1, 1, 3);
    let start = std::sync::Barrier::new(2);
    let outcomes: Vec<Result<usize, String>> = std::thread::scope(|s| {
        let sweeps: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    start.wait();
                    run(&spec, &options(dir.path(), Shard::WHOLE))
                        .map(|rows| rows.len())
                        .map_err(|e| e.to_string())
                })
            })
            .collect();
        sweeps.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let refused: Vec<&String> = outcomes.iter().filter_map(|o| o.as_ref().err()).collect();
    assert_eq!(refused.len(), 1, "{outcomes:?}");
    assert!(
        refused[0].contains("another writer")
            && refused[0].contains(&format!("pid {}", std::process::id())),
        "{}",
        refused[0]
    );
    assert!(outcomes.contains(&Ok(6)), "{outcomes:?}");
    let journaled = read_rows(&dir.path().join(JOURNAL)).unwrap();
    let keys: HashSet<_> = journaled.rows.iter().map(|r| r.key.clone()).collect();
    assert_eq!((journaled.rows.len(), keys.len()), (6, 6));
    assert_eq!(
        super::table::read_results(dir.path()).unwrap().keys.len(),
        6
    );
    // the writer let go: a rerun finds every cell done
    assert_eq!(
        run(&spec, &options(dir.path(), Shard::WHOLE))
            .unwrap()
            .len(),
        6
    );
}

#[test]
fn sweep_spec_errors_name_the_key_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.toml");
    std::fs::write(
        &path,
        "name = \"s\"\npolicies = [\"static\"]\nworkloads = [\"w.toml\"]\nseeds = [0]\n\n[train]\nsteps = \"many\"\n",
    )
    .unwrap();
    let e = SweepSpec::load(&path).unwrap_err().to_string();
    assert!(
        e.contains("spec.toml: `train.steps`: line 7, column 9"),
        "{e}"
    );
}

/// `[train] workload_set`: the agents train under its settings on top of the override set's
/// (the manifest records both), and a run trained without them is not reused for it.
#[test]
fn agents_train_under_the_workload_set_and_a_run_without_it_is_not_reused() {
    let root = tempfile::tempdir().unwrap();
    let mut spec = grid_spec(1, 1, 1, 1);
    spec.policies.push("train:ppo".into());
    spec.train.steps = 64;
    let runs = root.path().join("runs");
    let newest_settings = || {
        let newest = run_folders(&runs).pop().unwrap();
        Manifest::read(&newest).unwrap().workload_settings
    };
    train_all(&spec, &runs).unwrap();
    let plain = newest_settings();
    assert_eq!(plain.keys().collect::<Vec<_>>(), ["episode.max_rounds"]);
    spec.train
        .workload_set
        .insert("reward.lambda_idle".into(), toml::Value::Float(5.0));
    train_all(&spec, &runs).unwrap();
    let shaped = newest_settings();
    assert_eq!(shaped["episode.max_rounds"], plain["episode.max_rounds"]);
    assert_eq!(shaped["reward.lambda_idle"].parse::<f64>().unwrap(), 5.0);
    assert_eq!(shaped.len(), 2);
}

#[test]
fn a_workload_set_key_must_be_dotted_and_not_also_an_override() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spec.toml");
    let workload =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
    let head = format!(
        "name = \"s\"\npolicies = [\"train:ppo\"]\nworkloads = [{:?}]\nseeds = [0]\n\n[overrides.short]\n\"episode.max_rounds\" = 3\n\n[train.workload_set]\n",
        workload.display().to_string()
    );
    for (line, expected) in [
        ("lambda_idle = 5.0", "`lambda_idle`: not a workload setting"),
        (
            "\"episode.max_rounds\" = 4",
            "`episode.max_rounds` is also set by [overrides.short]",
        ),
    ] {
        std::fs::write(&path, format!("{head}{line}\n")).unwrap();
        let e = format!("{:#}", SweepSpec::load(&path).unwrap_err());
        assert!(e.contains(expected), "{e}");
    }
    std::fs::write(&path, format!("{head}\"reward.lambda_idle\" = 5.0\n")).unwrap();
    assert_eq!(SweepSpec::load(&path).unwrap().train.workload_set.len(), 1);
}

/// Runs started within one second are told apart by their `-N` suffix as a number, so the
/// tenth such run is newer than the ninth; folders of another agent, seed or without a
/// checkpoint are not candidates.
#[test]
fn latest_run_orders_same_second_runs_by_number() {
    let runs = tempfile::tempdir().unwrap();
    let folder = |name: &str, checkpointed: bool| {
        let path = runs.path().join(name);
        std::fs::create_dir(&path).unwrap();
        if checkpointed {
            std::fs::write(path.join("manifest.json"), "{}").unwrap();
        }
        path
    };
    folder("w__ppo__0__100", true);
    folder("w__ppo__0__200-9", true);
    let newest = folder("w__ppo__0__200-10", true);
    folder("w__ppo__0__200-11", false);
    folder("w__ppo__1__300", true);
    folder("w__dqn__0__300", true);
    assert_eq!(
        super::run::latest_run(runs.path(), "w", "ppo", 0),
        Some(newest)
    );
    assert_eq!(super::run::latest_run(runs.path(), "w", "ppo", 2), None);
}

/// A trained policy's rows record the SHA-256 of its folder's manifest. Once the folder holds
/// other weights under the same name (here: a manifest written again), a rerun plays its rows
/// again and keeps the heuristic's as written; a row from before rows recorded weights is kept.
#[test]
fn rows_of_a_policy_given_other_weights_are_played_again() {
    let root = tempfile::tempdir().unwrap();
    let mut trainer = grid_spec(1, 1, 1, 1);
    trainer.policies = vec!["train:ppo".into()];
    trainer.train.steps = 32;
    let shared = root.path().join("runs");
    train_all(&trainer, &shared).unwrap();
    let policy_folder = run_folders(&shared).remove(0);
    let policy = policy_folder.display().to_string();
    let mut spec = grid_spec(1, 1, 1, 3);
    spec.policies.push(policy.clone());
    let out = root.path().join("sweep");
    run(&spec, &options(&out, Shard::WHOLE)).unwrap();
    let manifest = policy_folder.join("manifest.json");
    let played_with = schedlab_artifacts::sha256_file(&manifest).unwrap();
    let rows = read_rows(&out.join(JOURNAL)).unwrap().rows;
    for row in &rows {
        let expected = if row.key.policy == policy {
            played_with.as_str()
        } else {
            ""
        };
        assert_eq!(row.policy_sha256, expected, "{}", row.key);
    }
    // mark every row, so that a row played again shows, and make one policy row a legacy one
    let legacy_seed = rows
        .iter()
        .find(|r| r.key.policy == policy)
        .unwrap()
        .key
        .seed;
    let marked: Vec<String> = journal_lines(&out)
        .iter()
        .map(|line| {
            let mut row: super::journal::Row = serde_json::from_str(line).unwrap();
            row.metrics[0].1 = -1.0;
            if row.key.policy == policy && row.key.seed == legacy_seed {
                row.policy_sha256.clear();
            }
            serde_json::to_string(&row).unwrap()
        })
        .collect();
    std::fs::write(out.join(JOURNAL), marked.join("\n") + "\n").unwrap();
    run(&spec, &options(&out, Shard::WHOLE)).unwrap();
    assert_eq!(
        journal_lines(&out),
        marked,
        "the same weights: nothing played again"
    );

    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text + "\n").unwrap();
    let now = schedlab_artifacts::sha256_file(&manifest).unwrap();
    assert_ne!(now, played_with);
    run(&spec, &options(&out, Shard::WHOLE)).unwrap();
    let rows = read_rows(&out.join(JOURNAL)).unwrap().rows;
    assert_eq!(rows.len(), 6);
    for row in rows {
        let replayed = row.key.policy == policy && row.key.seed != legacy_seed;
        assert_eq!(row.metrics[0].1 != -1.0, replayed, "{}", row.key);
        if replayed {
            assert_eq!(row.policy_sha256, now, "{}", row.key);
        }
    }
}
