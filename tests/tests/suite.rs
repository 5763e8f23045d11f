//! `schedlab suite`: a result scored on a versioned suite validates by replay, and every edit
//! of it, every changed suite file and every superseded version is refused by name.

use std::path::{Path, PathBuf};
use std::process::Command;

use schedlab_tests::data_dir;

fn schedlab(cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap()
}

fn ok(cwd: &Path, args: &[&str]) -> String {
    let out = schedlab(cwd, args);
    assert!(
        out.status.success(),
        "schedlab {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn refused(cwd: &Path, args: &[&str]) -> String {
    let out = schedlab(cwd, args);
    assert!(
        !out.status.success(),
        "schedlab {args:?} should have failed"
    );
    String::from_utf8(out.stderr).unwrap()
}

/// A copy of the shipped suite `id` under `root/data/suites/as_id`, `edit` applied to its
/// suite.toml, re-manifested where `manifest` says so.
fn copy_suite(root: &Path, id: &str, as_id: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let from = data_dir().join("suites").join(id);
    let to = root.join("data/suites").join(as_id);
    for entry in walk(&from) {
        let target = to.join(entry.strip_prefix(&from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &target).unwrap();
    }
    let toml = to.join("suite.toml");
    std::fs::write(&toml, edit(std::fs::read_to_string(&toml).unwrap())).unwrap();
    to
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn write_json(path: &Path, value: &serde_json::Value) {
    std::fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}

/// One score of `las` on philly-v1's test split: it validates, is the same at 1 and 2
/// threads, and an edited metric, an edited action digest, another suite version and other
/// suite files are each refused, naming what differs.
#[test]
fn a_scored_result_validates_and_each_edit_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let result = dir.path().join("las.json");
    let (r, r1) = (result.to_str().unwrap(), dir.path().join("las-1.json"));
    let score_las = |threads: &str, out: &str| {
        let args = [
            "--threads",
            threads,
            "suite",
            "score",
            "philly-v1",
            "--policy",
            "las",
        ];
        ok(here, &[&args[..], &["--out", out]].concat())
    };
    let out = score_las("2", r);
    assert!(
        out.contains("las on philly-v1 (Test, 36 episodes): IQM jct_avg_s / fifo"),
        "{out}"
    );
    score_las("1", r1.to_str().unwrap());
    assert_eq!(
        std::fs::read(&result).unwrap(),
        std::fs::read(&r1).unwrap(),
        "1 and 2 threads"
    );
    let scored = json(&result);
    assert_eq!(scored["episodes"].as_array().unwrap().len(), 36);
    assert_eq!(scored["entry"]["trained"], false);
    let out = ok(here, &["--threads", "2", "suite", "validate", r]);
    assert!(out.contains("validated, 36 episodes replayed"), "{out}");

    let edited = dir.path().join("edited.json");
    let e = edited.to_str().unwrap();
    let mut metric = scored.clone();
    let jct = metric["episodes"][4]["metrics"]["jct_avg_s"]
        .as_f64()
        .unwrap();
    metric["episodes"][4]["metrics"]["jct_avg_s"] = (jct * 0.9).into();
    write_json(&edited, &metric);
    let err = refused(here, &["suite", "validate", e]);
    let window = scored["episodes"][4]["window"].as_str().unwrap();
    assert!(
        err.contains(&format!("episode {window} seed 1: jct_avg_s is")),
        "{err}"
    );

    let mut digest = scored.clone();
    digest["episodes"][0]["actions_sha256"] = "0".repeat(64).into();
    write_json(&edited, &digest);
    let err = refused(here, &["suite", "validate", e]);
    assert!(err.contains("seed 0: actions_sha256 is 0000"), "{err}");

    let mut version = scored.clone();
    version["suite"]["id"] = "philly-v0".into();
    write_json(&edited, &version);
    let err = refused(here, &["suite", "validate", e]);
    assert!(err.contains("no suite \"philly-v0\""), "{err}");

    let mut files = scored.clone();
    files["suite"]["manifest_sha256"] = "f".repeat(64).into();
    write_json(&edited, &files);
    let err = refused(here, &["suite", "validate", e]);
    assert!(
        err.contains("scored on other files than philly-v1's"),
        "{err}"
    );
}

/// A result of a version that a newer one supersedes is refused naming the newer one, and a
/// suite file changed on disk is refused at score time, naming the file.
#[test]
fn a_superseded_version_and_a_changed_suite_file_are_refused_by_name() {
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path();
    copy_suite(cwd, "philly-v1", "philly-v1", |t| t);
    let newer = copy_suite(cwd, "philly-v1", "philly-v2", |t| {
        t.replace("version = 1", "version = 2")
    });
    let result = cwd.join("fifo.json");
    let r = result.to_str().unwrap();
    let score_newer = [
        "suite",
        "score",
        "philly-v2",
        "--policy",
        "fifo",
        "--out",
        r,
    ];
    let err = refused(cwd, &score_newer);
    assert!(
        err.contains("suite.toml changed since the suite was made"),
        "{err}"
    );
    // the new version's own manifest, as a maintainer writes it
    let out = ok(cwd, &["suite", "manifest", newer.to_str().unwrap()]);
    assert!(out.contains("MANIFEST.sha256"), "{out}");
    ok(cwd, &score_newer);
    let mut old = json(&result);
    old["suite"]["id"] = "philly-v1".into();
    write_json(&result, &old);
    let err = refused(cwd, &["suite", "validate", r]);
    assert!(
        err.contains("scored on philly-v1, which philly-v2 supersedes"),
        "{err}"
    );

    let window = newer.join("test/philly-heldout-03.toml");
    let text = std::fs::read_to_string(&window).unwrap();
    std::fs::write(&window, text + "# edited\n").unwrap();
    let err = refused(cwd, &score_newer);
    assert!(
        err.contains("test/philly-heldout-03.toml changed since the suite was made"),
        "{err}"
    );
    std::fs::write(newer.join("test/extra.toml"), "").unwrap();
    std::fs::write(
        &window,
        std::fs::read_to_string(data_dir().join("suites/philly-v1/test/philly-heldout-03.toml"))
            .unwrap(),
    )
    .unwrap();
    let err = refused(cwd, &score_newer);
    assert!(
        err.contains("test/extra.toml is not in the suite's manifest"),
        "{err}"
    );
}

/// Every shipped suite keeps a stored result of its reference heuristic that still replays,
/// and the leaderboard's stored results of a trained policy do too: a simulator change that
/// moves a score fails here, and the suite then gets a new version (docs/benchmark.md).
#[test]
fn every_suite_keeps_a_stored_result_that_replays() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let suites: Vec<String> = std::fs::read_dir(data_dir().join("suites"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(suites.len() >= 7, "{suites:?}");
    let reference_of = |id: &str| -> String {
        let text = std::fs::read_to_string(data_dir().join("suites").join(id).join("suite.toml"));
        let table: toml::Table = text.unwrap().parse().unwrap();
        table["reference"].as_str().unwrap().to_owned()
    };
    let mut stored: Vec<PathBuf> = suites
        .iter()
        .map(|id| {
            let reference = reference_of(id);
            data_dir()
                .join("leaderboard")
                .join(id)
                .join(format!("{reference}.json"))
        })
        .collect();
    stored.push(data_dir().join("leaderboard/philly-v1/philly-es.json"));
    for result in stored {
        let out = ok(
            here,
            &[
                "--threads",
                "2",
                "suite",
                "validate",
                result.to_str().unwrap(),
            ],
        );
        assert!(out.contains("validated"), "{out}");
    }
}

/// Where a suite's episodes are drawn by seed, its validation and test seeds must lie outside
/// its training seeds; and every workload must be of the suite's kind.
#[test]
fn a_suite_whose_seeds_overlap_or_whose_kind_differs_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path();
    let cases = [
        (
            "seeds = [2000,",
            "seeds = [5, 2000,",
            "seed 5 is both a validation or test seed and in train_seeds [0, 1000)",
        ),
        (
            "kind = \"network\"",
            "kind = \"jobs\"",
            "kind is \"jobs\", but",
        ),
    ];
    for (from, to, refusal) in cases {
        let suite = copy_suite(cwd, "network-a9a-v1", "network-a9a-v1", |t| {
            t.replacen(from, to, 1)
        });
        ok(cwd, &["suite", "manifest", suite.to_str().unwrap()]);
        let err = refused(cwd, &["suite", "episodes", "network-a9a-v1"]);
        assert!(err.contains(refusal), "{err}");
    }
}

/// The leaderboard ranks results by IQM ratio, names the best heuristic each entry is tested
/// against, marks a result that does not replay, and draws the performance profile.
#[test]
fn the_leaderboard_ranks_validates_and_draws() {
    let dir = tempfile::tempdir().unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let stored = data_dir().join("leaderboard/philly-v1");
    let edited = dir.path().join("sjf-edited.json");
    let mut sjf = json(&stored.join("sjf.json"));
    sjf["episodes"][0]["actions_sha256"] = "1".repeat(64).into();
    write_json(&edited, &sjf);
    let out = dir.path().join("board.md");
    let printed = ok(
        here,
        &[
            "suite",
            "leaderboard",
            stored.join("fifo.json").to_str().unwrap(),
            stored.join("philly-es.json").to_str().unwrap(),
            edited.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(
        printed.contains("1 of 3 results did not validate"),
        "{printed}"
    );
    let board = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<&str> = board
        .lines()
        .filter(|l| l.starts_with("| 1 ") || l.starts_with("| 2 ") || l.starts_with("| 3 "))
        .collect();
    assert!(rows[0].contains("`philly-es` | trained"), "{board}");
    assert!(
        rows[0].contains("(`fifo`)") && rows[0].ends_with("| yes |"),
        "{board}"
    );
    assert!(
        rows.iter().any(|r| r.contains("`sjf`")
            && r.contains("**no**: episode philly-heldout-00 seed 0: actions_sha256")),
        "{board}"
    );
    let png = dir.path().join("board-philly-v1-test.png");
    assert!(schedlab_tests::png_size(&png).0 > 0);
}
