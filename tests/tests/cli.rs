//! The `schedlab` binary, driven the way a user drives it.

use std::path::{Path, PathBuf};
use std::process::Command;

use schedlab_tests::{data_dir, png_size, workload};

/// The `schedlab` binary cargo built for this test run.
fn schedlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_schedlab"))
}

fn run_ok(args: &[&str]) -> String {
    succeeded(schedlab().args(args))
}

/// The standard output of `command`, which must succeed (else the test fails with its errors).
fn succeeded(command: &mut Command) -> String {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn run_err(args: &[&str]) -> String {
    let out = schedlab().args(args).output().unwrap();
    assert!(
        !out.status.success(),
        "schedlab {args:?} should have failed"
    );
    String::from_utf8(out.stderr).unwrap()
}

fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn validate_summarises_every_shipped_workload() {
    for name in [
        "small-4node.toml",
        "paper-10node.toml",
        "a9a-svm.toml",
        "openb-slice.toml",
        "openb-busy.toml",
        "philly-week.toml",
        "philly-mini.toml",
    ] {
        let out = run_ok(&["workload", "validate", arg(&workload(name))]);
        assert!(out.starts_with("ok ") && out.lines().count() == 1, "{out}");
    }
}

/// `run` and `eval` take a workload of any kind through the one entry point, with `--policy`
/// (and the old `--agent` spelling); a single-job-only command names the kind it needs.
#[test]
fn run_and_eval_play_jobs_workloads_too() {
    let dir = tempfile::tempdir().unwrap();
    let philly = workload("philly-mini.toml");
    let json = dir.path().join("fifo.json");
    let csv = dir.path().join("steps.csv");
    let out = run_ok(&[
        "run",
        "--workload",
        arg(&philly),
        "--policy",
        "fifo",
        "--json",
        arg(&json),
        "--rounds-csv",
        arg(&csv),
    ]);
    assert!(
        out.contains("jct_avg_s") && out.contains("82 jobs"),
        "{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["episodes"][0]["jobs"], 82);
    let steps = std::fs::read_to_string(&csv).unwrap();
    assert!(steps.starts_with("seed,decision_point,time_s"), "{steps}");
    let finished_last: usize = steps
        .lines()
        .last()
        .unwrap()
        .split(',')
        .nth(6)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        finished_last,
        doc["episodes"][0]["finished"].as_u64().unwrap() as usize
    );
    let again = run_ok(&["run", "--workload", arg(&philly), "--agent", "fifo"]);
    assert_eq!(
        out.lines()
            .filter(|l| !l.starts_with("wrote"))
            .collect::<Vec<_>>(),
        again.lines().collect::<Vec<_>>()
    );
    let eval = run_ok(&[
        "eval",
        "--policy",
        "las:placement=worst-fit",
        "--workload",
        arg(&philly),
        "--seeds",
        "0,1",
    ]);
    assert_eq!(
        eval.lines().filter(|l| l.contains("philly-mini")).count(),
        2,
        "{eval}"
    );
    let err = run_err(&["bench", "env", "--workload", arg(&philly)]);
    assert!(
        err.contains("bench env needs a single-job workload") && err.contains("jobs workload"),
        "{err}"
    );
    let err = run_err(&[
        "eval",
        "--policy",
        "static",
        "--workload",
        arg(&philly),
        arg(&workload("small-4node.toml")),
    ]);
    assert!(err.contains("one kind at a time"), "{err}");
}

#[test]
fn policies_lists_every_scheduler_by_kind_with_typed_options() {
    let out = run_ok(&["policies"]);
    let jobs = out.find("jobs workloads:").unwrap();
    assert!(out[..jobs].contains("  raes") && out[..jobs].contains("solver=exact|heuristic"));
    assert!(
        out[jobs..].contains("  pollux") && out[jobs..].contains("placement=best-fit|worst-fit")
    );
    let err = run_err(&[
        "compare",
        "--workload",
        arg(&workload("philly-mini.toml")),
        "--policy",
        "fifo:backfill=maybe",
    ]);
    assert!(
        err.contains("scheduler `fifo`: option `backfill=maybe`: expected true|false"),
        "{err}"
    );
}

#[test]
fn validate_names_the_file_and_key_of_a_bad_workload() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(workload("small-4node.toml")).unwrap();
    let abs = schedlab_tests::data_dir().join("datasets");
    let text = text.replace("../datasets", arg(&abs));
    for (broken, expect) in [
        (
            text.replace("[episode]", "[episode]\nroundz = 3"),
            "unknown field `roundz`",
        ),
        (
            text.replacen("cpu_cores = 16\n", "cpu_cores = -16\n", 1),
            "nodes[0].cpu_cores",
        ),
        (
            text.replace("digits.csv.gz", "missing.csv"),
            "job.dataset.path",
        ),
    ] {
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, broken).unwrap();
        let err = run_err(&["workload", "validate", arg(&path)]);
        assert!(
            err.contains("bad.toml") && err.contains(expect),
            "expected {expect:?} in {err}"
        );
    }
}

#[test]
fn run_prints_a_table_and_writes_exactly_the_design_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out/metrics.json");
    let out = run_ok(&[
        "run",
        "--workload",
        arg(&workload("small-4node.toml")),
        "--agent",
        "static",
        "--seed",
        "3",
        "--episodes",
        "2",
        "--json",
        arg(&json),
    ]);
    assert!(
        out.contains("completion_time_s") && out.contains("fragmentation"),
        "{out}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let episodes = doc["episodes"].as_array().unwrap();
    assert_eq!(episodes.len(), 2);
    let mut keys: Vec<&str> = episodes[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    let mut expected = vec![
        "completion_time_s",
        "rounds",
        "iterations",
        "final_loss",
        "target_reached",
        "gpu_util",
        "cpu_util",
        "occupancy",
        "fragmentation",
        "idle_cost",
        "bits_sent",
        "bits_per_worker",
        "episode_return",
    ];
    expected.sort();
    assert_eq!(keys, expected);
    assert_eq!(doc["seeds"], serde_json::json!([3, 4]));
}

#[test]
fn runs_are_reproducible_across_invocations_and_thread_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = workload("small-4node.toml");
    let mut outputs = Vec::new();
    for threads in ["1", "2", "2"] {
        let json = dir.path().join(format!("m{}.json", outputs.len()));
        run_ok(&[
            "--threads",
            threads,
            "run",
            "--workload",
            arg(&path),
            "--agent",
            "random",
            "--seed",
            "9",
            "--json",
            arg(&json),
        ]);
        outputs.push(std::fs::read_to_string(&json).unwrap());
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[1], outputs[2]);
}

#[test]
fn unknown_policies_and_bad_overrides_are_explained() {
    let path = workload("small-4node.toml");
    let err = run_err(&["run", "--workload", arg(&path), "--agent", "oracle"]);
    assert!(
        err.contains("unknown scheduler `oracle` for single-job workloads")
            && err.contains("static"),
        "{err}"
    );
    let err = run_err(&["run", "--workload", arg(&path), "--set", "job.lr"]);
    assert!(err.contains("KEY=VALUE"), "{err}");
    let err = run_err(&[
        "run",
        "--workload",
        arg(&path),
        "--set",
        "job.optimizer=sgd",
    ]);
    assert!(err.contains("optimizer") || err.contains("sgd"), "{err}");
}

#[test]
fn bench_env_reports_throughput_and_the_ratio() {
    let out = run_ok(&["bench", "env", "--episodes", "2"]);
    let ratio: f64 = out
        .lines()
        .find_map(|l| l.strip_prefix("ratio "))
        .unwrap_or_else(|| panic!("no ratio line in {out}"))
        .parse()
        .unwrap();
    assert!(ratio > 0.0);
    assert!(
        out.contains("gradient samples/s") && out.contains("peak memory"),
        "{out}"
    );
    // small-4node validates during its episodes, and the passes are part of their time
    let validation = out
        .lines()
        .find_map(|l| l.strip_prefix("validation: "))
        .unwrap_or_else(|| panic!("no validation line in {out}"));
    let passes: u64 = validation.split(' ').next().unwrap().parse().unwrap();
    let share: f64 = validation
        .split("about ")
        .nth(1)
        .and_then(|s| s.split('%').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(passes > 0 && share > 0.0 && share < 100.0, "{validation}");
}

#[test]
fn bench_steps_steps_every_kind_with_allowed_actions_only() {
    // a masked choice would make the env refuse the step and the command fail
    for name in [
        "small-4node",
        "philly-mini",
        "dag-layered",
        "network-diabetes-ridge",
    ] {
        let path = workload(&format!("{name}.toml"));
        let out = run_ok(&[
            "bench",
            "steps",
            "--workload",
            arg(&path),
            "--seconds",
            "0.2",
            "--copies",
            "3",
        ]);
        for prefix in ["single env: ", "vector env (3 copies): "] {
            let rate: f64 = out
                .lines()
                .find_map(|l| l.strip_prefix(prefix))
                .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
                .unwrap_or_else(|| panic!("no `{prefix}` rate in {out}"));
            assert!(rate > 0.0, "{out}");
        }
    }
}

#[test]
fn bench_train_times_each_agent_at_each_env_and_thread_count() {
    let out = run_ok(&[
        "--threads",
        "1,2",
        "bench",
        "train",
        "--seconds",
        "0.5",
        "--envs",
        "2,3",
        "--set",
        "learning_starts=8",
    ]);
    assert!(
        out.starts_with("philly-train ") && out.contains("device "),
        "{out}"
    );
    for agent in ["ppo", "dqn"] {
        let rows: Vec<Vec<&str>> = out
            .lines()
            .filter(|l| l.starts_with(&format!("{agent} ")))
            .map(|l| l.split_whitespace().collect())
            .collect();
        // agent, envs, threads, env steps/s, gradient steps/s, speed-up
        let cells: Vec<(&str, &str)> = rows.iter().map(|r| (r[1], r[2])).collect();
        assert_eq!(
            cells,
            [("2", "1"), ("2", "2"), ("3", "1"), ("3", "2")],
            "{out}"
        );
        for row in &rows {
            let rate: f64 = row[3].parse().unwrap();
            assert!(rate > 0.0, "{out}");
        }
        assert_eq!(rows[0][5], "1.00x", "{out}");
    }
    let err = run_err(&[
        "--threads",
        "1,2",
        "workload",
        "validate",
        arg(&workload("philly-mini.toml")),
    ]);
    assert!(err.contains("only `bench train` times a list"), "{err}");
}

#[test]
fn eval_writes_one_row_per_episode_and_workload() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = (dir.path().join("eval.csv"), dir.path().join("eval.json"));
    let small = workload("small-4node.toml");
    let svm = workload("a9a-svm.toml");
    run_ok(&[
        "eval",
        "--policy",
        "greedy",
        "--workload",
        arg(&small),
        arg(&svm),
        "--seeds",
        "0..2",
        "--csv",
        arg(&csv),
        "--json",
        arg(&json),
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("policy,workload,seed,completion_time_s,"),
        "{}",
        lines[0]
    );
    assert_eq!(lines.len(), 1 + 2 * 3);
    assert!(
        lines[1].starts_with("greedy,small-4node,0,") && lines[6].starts_with("greedy,a9a-svm,2,"),
        "{text}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["rows"].as_array().unwrap().len(), 6);
    // a comma list is compare's: eval says so rather than name an unknown scheduler
    let err = run_err(&[
        "eval",
        "--policy",
        "static,greedy",
        "--workload",
        arg(&small),
    ]);
    assert!(err.contains("schedlab compare --policies"), "{err}");
}

#[test]
fn compare_tabulates_every_policy_and_marks_the_best() {
    let out = run_ok(&[
        "compare",
        "--policies",
        "static,greedy,periodic",
        "--workload",
        arg(&workload("small-4node.toml")),
        "--seeds",
        "0..1",
    ]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[1].contains("completion_time_s") && lines[1].contains("episode_return"),
        "{out}"
    );
    for (line, policy) in lines[2..].iter().zip(["static", "greedy", "periodic"]) {
        assert!(line.trim_start().starts_with(policy), "{out}");
    }
    assert!(out.contains('*') && out.contains('±'), "{out}");
}

/// The network's dynamics are benchmarked with their step-size rule and gaps, and
/// `consensus` plays the single-job env beside `static`.
#[test]
fn bench_network_prints_its_step_rule_and_consensus_plays_beside_static() {
    let out = run_ok(&[
        "bench",
        "network",
        "--centres",
        "40",
        "--degree",
        "6",
        "--iterations",
        "300",
        "--rounds",
        "1",
    ]);
    assert!(out.contains("capacity-proportional"), "{out}");
    for quantizer in ["exact:", "log:"] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(quantizer))
            .unwrap_or_else(|| panic!("{quantizer} in {out}"));
        assert!(
            line.contains("iterations/s") && line.contains("step"),
            "{line}"
        );
    }
    let out = run_ok(&[
        "compare",
        "--policy",
        "static,consensus,consensus:rho=0.2",
        "--workload",
        arg(&workload("small-4node.toml")),
        "--seeds",
        "0..1",
    ]);
    assert_eq!(
        out.lines().filter(|l| l.contains("consensus")).count(),
        2,
        "{out}"
    );
}

/// `reproduce learners` trains each learner of its protocol on a task, sets its curve beside
/// the recorded reference's at the same step and draws the figure; a rerun trains nothing.
#[test]
fn reproduce_learners_sets_each_learner_beside_its_reference() {
    let dir = tempfile::tempdir().unwrap();
    let shipped = std::fs::read_to_string(data_dir().join("experiments/reproduce.toml")).unwrap();
    let protocol = dir.path().join("protocol.toml");
    std::fs::write(
        &protocol,
        shipped[..shipped.find("\n[learners]").unwrap()].to_owned()
            + r#"
[learners]
tasks = ["cartpole.toml"]
bin_steps = 10000
greedy_episodes = 2
references = [
    { name = "SB3", curves = "reference/sb3-curves.csv", runs = "reference/sb3-runs.csv" },
]

[[learners.learners]]
label = "PPO"
agent = "ppo"
steps = 10000
seeds = [0, 1]
set = { envs = 4, rollout_steps = 64, hidden = 16 }

[[learners.learners]]
label = "Q"
agent = "dqn"
steps = 10000
seeds = [0]
set = { learning_starts = 200, hidden = 16 }
"#,
    )
    .unwrap();
    let doc = dir.path().join("EXPERIMENTS.md");
    let reproduce = || {
        run_ok(&[
            "reproduce",
            "learners",
            "--protocol",
            arg(&protocol),
            "--out",
            arg(&dir.path().join("out")),
            "--doc",
            arg(&doc),
            "--figures",
            arg(&dir.path().join("figures")),
        ])
    };
    let first = reproduce();
    assert!(
        first.contains("training PPO seed 1 on cartpole.toml"),
        "{first}"
    );
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(
        text.contains("(learners)") && !text.contains("(tuning)"),
        "{text}"
    );
    // the opening names the protocol's learners with their seeds, and its references and no other
    assert!(
        text.contains("(PPO [0, 1], Q [0])")
            && text.contains("SB3: `data/reference/sb3-curves.csv`")
            && !text.contains("CleanRL"),
        "{text}"
    );
    let row = |label: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("| {label} |")))
            .unwrap_or_else(|| panic!("no row {label}: {text}"))
            .to_owned()
    };
    // PPO's reference is recorded: its final point is SB3's at step 10000, a number
    let ppo: Vec<String> = row("PPO").split('|').map(|c| c.trim().to_owned()).collect();
    assert!(
        ppo[3].split(' ').next().unwrap().parse::<f64>().is_ok(),
        "{ppo:?}"
    );
    assert!(
        ppo[4] == "yes, against SB3" || ppo[4] == "no, against SB3",
        "{ppo:?}"
    );
    // every learner has its own row with its final IQM and greedy return
    let q: Vec<String> = row("Q").split('|').map(|c| c.trim().to_owned()).collect();
    assert_eq!(q.len(), 8, "{q:?}");
    assert!(
        q[2].split(' ').next().unwrap().parse::<f64>().is_ok(),
        "{q:?}"
    );
    assert_eq!(
        png_size(&dir.path().join("figures/learners-cartpole.png")).0,
        900
    );
    let again = reproduce();
    assert!(!again.contains("training"), "{again}");
}

/// `reproduce network` writes its section into a document of its own, keeps the demand
/// throughout and draws its figure; no single-job tuning runs for it.
#[test]
fn reproduce_network_writes_its_section_and_figure() {
    let dir = tempfile::tempdir().unwrap();
    let (out, doc, figures) = (
        dir.path().join("out"),
        dir.path().join("EXPERIMENTS.md"),
        dir.path().join("figures"),
    );
    run_ok(&[
        "reproduce",
        "network",
        "--seeds",
        "2",
        "--out",
        arg(&out),
        "--doc",
        arg(&doc),
        "--figures",
        arg(&figures),
    ]);
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(
        text.contains("## A network of computing centres (network)"),
        "{text}"
    );
    assert!(!text.contains("(tuning)") && !out.join("tuning.md").exists());
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.starts_with("| static |")
                || l.starts_with("| dropout |")
                || l.starts_with("| redraw |")
        })
        .collect();
    assert!(rows.len() >= 15 + 8, "{text}");
    let allocation = rows
        .iter()
        .filter(|row| !row.contains("| loss gap |") && !row.contains("| disagreement |"));
    for row in allocation {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // the residual column of the allocation table is the third from the end
        let residual: f64 = cells[cells.len() - 4].parse().unwrap();
        assert!(residual <= 1e-9, "{row}");
    }
    assert_eq!(png_size(&figures.join("network-gap.png")), (900, 540));
}

/// A network workload runs, sweeps, summarizes and plots like any other: every scheduler
/// keeps the demand, and the dynamics beat the even split they start from.
#[test]
fn network_workloads_run_sweep_and_plot_with_no_special_case() {
    let dir = tempfile::tempdir().unwrap();
    let network = workload("network-diabetes-ridge.toml");
    let json = dir.path().join("run.json");
    let steps = dir.path().join("steps.csv");
    run_ok(&[
        "run",
        "--workload",
        arg(&network),
        "--policy",
        "consensus",
        "--json",
        arg(&json),
        "--rounds-csv",
        arg(&steps),
    ]);
    let text = std::fs::read_to_string(&json).unwrap();
    assert!(
        text.contains("\"cost_gap\"") && text.contains("\"loss_gap\""),
        "{text}"
    );
    let rows = std::fs::read_to_string(&steps).unwrap();
    assert_eq!(rows.lines().count(), 301, "{rows}");
    assert!(
        rows.starts_with("seed,iteration,cost_gap,residual"),
        "{rows}"
    );
    let spec = dir.path().join("spec.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"net\"\npolicies = [\"uniform\", \"consensus:step=local\", \"rikos\", \"random\"]\nworkloads = [{:?}]\nseeds = [0, 1, 2]\n",
            arg(&network)
        ),
    )
    .unwrap();
    let sweep = dir.path().join("sweep");
    run_ok(&["sweep", arg(&spec), "--out", arg(&sweep)]);
    let summary = run_ok(&["summarize", arg(&sweep), "--baseline", "uniform"]);
    assert!(
        summary.contains("cost_gap") && summary.contains("loss_gap"),
        "{summary}"
    );
    let csv = std::fs::read_to_string(sweep.join("results.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let mean_gap = |policy: &str| {
        let gaps: Vec<f64> = csv
            .lines()
            .skip(1)
            .map(|l| l.split(',').collect::<Vec<_>>())
            .filter(|cells| cells[0] == policy)
            .map(|cells| {
                assert!(cells[column("residual_max")].parse::<f64>().unwrap() <= 1e-9);
                cells[column("cost_gap")].parse().unwrap()
            })
            .collect();
        assert_eq!(gaps.len(), 3);
        gaps.iter().sum::<f64>() / 3.0
    };
    assert!(
        mean_gap("consensus:step=local") < mean_gap("uniform"),
        "{csv}"
    );
    let png = dir.path().join("bars.png");
    run_ok(&[
        "plot",
        "bars",
        arg(&sweep),
        "--metric",
        "cost_gap",
        "--out",
        arg(&png),
    ]);
    assert_eq!(png_size(&png), (900, 540));
    let err = run_err(&["run", "--workload", arg(&network), "--policy", "heft"]);
    assert!(
        err.contains("for network workloads") && err.contains("rikos"),
        "{err}"
    );
}

/// The names of the shipped policy folders (data/policies/) that hold `file`, sorted.
fn shipped_policies_holding(file: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir().join("policies"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|dir| dir.join(file).is_file())
        .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The shipped clones of a jobs scheduler: the folders of data/policies/ with a warm-start
/// report, by name.
fn shipped_jobs_clones() -> Vec<String> {
    let clones = shipped_policies_holding("warm_start.json");
    assert!(clones.len() >= 2, "{clones:?}");
    clones
}

/// Every shipped clone of a jobs scheduler (a folder of data/policies/ with a warm-start
/// report) loads by name, whichever hyperparameters its config.json predates, and plays a
/// held-out Philly window to the end; the window's file sets no interface, and the policy
/// plays it with the one it was trained on (its manifest's play settings), as if set by hand.
#[test]
fn every_shipped_jobs_clone_plays_a_held_out_window_by_name() {
    let clones = shipped_jobs_clones();
    let held_out = workload("heldout/philly/philly-heldout-00.toml");
    let eval = |clone: &str, set: &[&str]| {
        let mut args = vec!["eval", "--policy", clone, "--workload", arg(&held_out)];
        args.extend(["--seeds", "0"]);
        args.extend(set);
        let out = run_ok(&args);
        out.lines()
            .find(|l| l.trim_start().starts_with(clone))
            .unwrap_or_else(|| panic!("{clone} in {out}"))
            .to_owned()
    };
    for clone in &clones {
        let row = eval(clone, &[]);
        let finished: f64 = row.split_whitespace().nth(7).unwrap().parse().unwrap();
        assert!(finished > 0.0, "{row}");
        assert_eq!(row, eval(clone, &["--set", "window.interface=one-choice"]));
    }
    // a setting the user gives wins, and the refusal names what the policy was trained with
    let err = run_err(&[
        "eval",
        "--policy",
        &clones[0],
        "--workload",
        arg(&held_out),
        "--seeds",
        "0",
        "--set",
        "window.interface=per-slot",
    ]);
    assert!(
        err.contains("trained for observations of")
            && err.contains("window.interface is one-choice in training and per-slot here"),
        "{err}"
    );
}

/// No shipped clone of a jobs scheduler ends an episode of a held-out or later window with a
/// queued job that fits the idle capacity (issue 38): under work conservation, whatever is left
/// unfinished at the horizon is running or queued behind full capacity. Seed 0 of every window.
#[test]
fn no_shipped_policy_strands_a_job_on_any_held_out_or_later_window() {
    let data = data_dir();
    let mut windows: Vec<PathBuf> = ["heldout/philly", "heldout/openb", "later/philly"]
        .iter()
        .flat_map(|folder| std::fs::read_dir(data.join("workloads").join(folder)).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    windows.sort();
    assert!(windows.len() > 150, "{}", windows.len());
    let clones = shipped_jobs_clones();
    let dir = tempfile::tempdir().unwrap();
    for clone in &clones {
        let csv = dir.path().join(format!("{clone}.csv"));
        let mut args = vec![
            "eval",
            "--policy",
            clone,
            "--seeds",
            "0",
            "--csv",
            arg(&csv),
        ];
        args.push("--workload");
        args.extend(windows.iter().map(|w| arg(w)));
        run_ok(&args);
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let (window, stranded, queued) = (
            column("workload"),
            column("stranded_at_end"),
            column("queued_at_end"),
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), windows.len(), "{clone}");
        for row in &rows {
            assert_eq!(
                row[stranded], "0",
                "{clone} stranded jobs on {}",
                row[window]
            );
            assert!(row[queued].parse::<f64>().is_ok(), "{row:?}");
        }
    }
}

/// The mean of the first metric column in `compare`'s row of `policy` (its spec as given).
fn first_metric(out: &str, policy: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.split_whitespace().next() == Some(policy))
        .unwrap_or_else(|| panic!("{policy} in {out}"));
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches('*')
        .parse()
        .unwrap()
}

/// A trained policy takes play options inline after its name: the learned DAG scheduler
/// decoding several episodes ends no later than its greedy episode; a count of 0 and an option
/// for an agent that takes none are refused, naming the option.
#[test]
fn the_shipped_gnn_decodes_sampled_episodes_and_other_agents_take_no_play_options() {
    let out = run_ok(&[
        "compare",
        "--policy",
        "dag-gnn,dag-gnn:episodes=8",
        "--workload",
        arg(&workload("dag-layered.toml")),
        "--seeds",
        "0..2",
        "--set",
        "dags.layered.tasks=40",
    ]);
    assert!(
        first_metric(&out, "dag-gnn:episodes=8") <= first_metric(&out, "dag-gnn"),
        "{out}"
    );
    for (spec, named) in [
        ("dag-gnn:episodes=0", "episodes=0"),
        ("dag-ppo:episodes=2", "takes none"),
        ("dag-gnn:samples=2", "one of the keys episodes"),
    ] {
        let err = run_err(&[
            "run",
            "--policy",
            spec,
            "--workload",
            arg(&workload("dag-layered.toml")),
        ]);
        assert!(err.contains(named), "{spec}: {err}");
    }
}

/// The shipped learned DAG schedulers play DAG workloads by name; `dag-gnn` guides WORL-RTGS
/// by default, which ends no worse than its guide's greedy plan on generated and on real DAGs;
/// on a platform of another GPU count the default guide still plays, and the 16-GPU DDQN as
/// guide is refused with the shapes.
#[test]
fn worl_rtgs_is_guided_by_the_shipped_gnn_on_any_platform() {
    for (file, size) in [
        ("dag-layered.toml", "dags.layered.tasks=40"),
        ("dag-alibaba-16gpu.toml", "dags.alibaba.tasks=40"),
        ("dag-alibaba.toml", "dags.alibaba.tasks=40"),
    ] {
        let out = run_ok(&[
            "compare",
            "--policy",
            "dag-ppo,dag-gnn,worl-rtgs:evaluations=300,heft",
            "--workload",
            arg(&workload(file)),
            "--seeds",
            "0..1",
            "--set",
            size,
        ]);
        assert!(
            first_metric(&out, "worl-rtgs:evaluations=300") <= first_metric(&out, "dag-gnn"),
            "{out}"
        );
        assert!(first_metric(&out, "dag-ppo") > 0.0, "{out}");
    }
    let err = run_err(&[
        "run",
        "--policy",
        "worl-rtgs:guide=dag-ddqn",
        "--workload",
        arg(&workload("dag-alibaba.toml")),
    ]);
    assert!(
        err.contains("option `guide=dag-ddqn`") && err.contains("trained for observations of 136"),
        "{err}"
    );
}

/// Reads a run folder with real TensorBoard and prints `tag count` per scalar tag, then the
/// text tags. Fails (no silent skip) when TensorBoard cannot be imported.
const READ_EVENTS: &str = r#"
import sys
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
ea = EventAccumulator(sys.argv[1], size_guidance={"scalars": 0, "tensors": 0})
ea.Reload()
for tag in ea.Tags()["scalars"]:
    print(tag, len(ea.Scalars(tag)))
for tag in ea.Tags()["tensors"]:
    print("text", tag)
"#;

/// PPO hyperparameters small enough to train in a test.
const TINY_PPO: [&str; 6] = [
    "--set",
    "envs=2",
    "--set",
    "rollout_steps=8",
    "--set",
    "hidden=16",
];

/// DQN hyperparameters small enough to train in a test: updates of 2 copies x 4 rounds.
const TINY_DQN: [&str; 10] = [
    "--set",
    "envs=2",
    "--set",
    "steps_per_update=4",
    "--set",
    "learning_starts=16",
    "--set",
    "batch_size=8",
    "--set",
    "hidden=16",
];

/// `schedlab train --agent AGENT` (ppo or dqn) on small-4node into the empty folder `out`
/// with [`TINY_PPO`] or [`TINY_DQN`] (and `extra` arguments); returns what it printed and
/// the run folder it made.
fn train_tiny(agent: &str, out: &Path, steps: &str, extra: &[&str]) -> (String, PathBuf) {
    train_tiny_on(&workload("small-4node.toml"), agent, out, steps, extra)
}

/// [`train_tiny`] on any workload file.
fn train_tiny_on(
    workload_file: &Path,
    agent: &str,
    out: &Path,
    steps: &str,
    extra: &[&str],
) -> (String, PathBuf) {
    let mut args = vec![
        "train",
        "--agent",
        agent,
        "--workload",
        arg(workload_file),
        "--steps",
        steps,
        "--out",
        arg(out),
    ];
    args.extend(if agent == "dqn" {
        &TINY_DQN[..]
    } else {
        &TINY_PPO[..]
    });
    args.extend(extra);
    let stdout = run_ok(&args);
    let runs: Vec<PathBuf> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(runs.len(), 1, "one run folder in {}", out.display());
    (stdout, runs[0].clone())
}

/// What real TensorBoard reads from a run folder: `tag count` lines (see [`READ_EVENTS`]).
fn tensorboard_listing(run: &Path) -> String {
    let read = Command::new("python3")
        .args(["-c", READ_EVENTS, arg(run)])
        .output()
        .unwrap();
    assert!(
        read.status.success(),
        "TensorBoard could not read the run:\n{}",
        String::from_utf8_lossy(&read.stderr)
    );
    String::from_utf8(read.stdout).unwrap()
}

/// Points of `tag` in a [`tensorboard_listing`], 0 if absent.
fn tag_count(listing: &str, tag: &str) -> usize {
    listing
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{tag} ")))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[test]
fn train_writes_curves_real_tensorboard_reads_and_a_checkpoint() {
    let out = tempfile::tempdir().unwrap();
    let (stdout, run) = train_tiny("ppo", out.path(), "64", &["--seed", "3"]);
    assert!(
        stdout.contains(&format!("tensorboard --logdir {}", run.display())),
        "{stdout}"
    );
    let run = &run;
    for file in ["config.json", "manifest.json", "model-64.bpk"] {
        assert!(
            run.join(file).is_file(),
            "{file} missing in {}",
            run.display()
        );
    }
    let listing = tensorboard_listing(run);
    let count = |tag: &str| tag_count(&listing, tag);
    // 64 rounds = 4 updates of 2 copies x 8 rounds: one point per update for these tags
    for tag in [
        "charts/SPS",
        "losses/policy_loss",
        "losses/value_loss",
        "losses/entropy",
        "env/train_loss",
        // evaluation every tenth of the run (6 rounds): after every update
        "eval/episodic_return",
        "eval/completion_time_s",
    ] {
        assert_eq!(count(tag), 4, "{tag} in {listing}");
    }
    // one point per finished episode (small-4node episodes last 7-60 rounds)
    assert!(
        count("charts/episodic_return") >= 1
            && count("charts/episodic_return") == count("charts/completion_time_s"),
        "{listing}"
    );
    assert!(listing.contains("text hyperparameters"), "{listing}");
}

#[test]
fn a_trained_run_is_evaluated_like_a_baseline_and_refused_on_another_shape() {
    let out = tempfile::tempdir().unwrap();
    let small = workload("small-4node.toml");
    let runs = tempfile::tempdir().unwrap();
    let (_, run) = train_tiny("ppo", runs.path(), "32", &[]);
    let csv = out.path().join("eval.csv");
    run_ok(&[
        "eval",
        "--policy",
        arg(&run),
        "--workload",
        arg(&small),
        "--seeds",
        "0..1",
        "--csv",
        arg(&csv),
    ]);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    // deterministic acting: the same episode twice gives the same row
    let again = out.path().join("again.csv");
    run_ok(&[
        "eval",
        "--policy",
        arg(&run),
        "--workload",
        arg(&small),
        "--seeds",
        "0..1",
        "--csv",
        arg(&again),
    ]);
    assert_eq!(text, std::fs::read_to_string(&again).unwrap());
    let err = run_err(&[
        "eval",
        "--policy",
        arg(&run),
        "--workload",
        arg(&workload("a9a-svm.toml")),
        "--seeds",
        "0",
    ]);
    assert!(err.contains("trained for observations of"), "{err}");
}

/// `train --set` with a dotted key sets the workload, as `run` and `eval` do: the run records
/// it, plays as it was trained, and a resume loads the workload with it again.
#[test]
fn train_takes_workload_settings_and_a_resume_keeps_them() {
    let runs = tempfile::tempdir().unwrap();
    let mini = workload("philly-mini.toml");
    let settings = [
        "--eval-episodes",
        "0",
        "--set",
        "window.interface=one-choice",
        "--set",
        "reward.remaining_potential=true",
        "--set",
        "per_unit=true",
    ];
    let (_, run) = train_tiny_on(&mini, "ppo", runs.path(), "32", &settings);
    let manifest = |run: &Path| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(run.join("manifest.json")).unwrap()).unwrap()
    };
    let written = manifest(&run);
    assert_eq!(
        written["workload_settings"],
        serde_json::json!({"reward.remaining_potential": "true", "window.interface": "one-choice"})
    );
    // the interface was set when the workload loaded: the network is the one-choice one
    assert_eq!(written["play_settings"]["window.interface"], "one-choice");
    run_ok(&[
        "train",
        "--agent",
        "ppo",
        "--workload",
        arg(&mini),
        "--steps",
        "64",
        "--eval-episodes",
        "0",
        "--resume",
        arg(&run),
    ]);
    let resumed = manifest(&run);
    assert_eq!(resumed["step"], 64);
    assert_eq!(resumed["workload_settings"], written["workload_settings"]);
    let err = run_err(&[
        "train",
        "--agent",
        "ppo",
        "--workload",
        arg(&mini),
        "--steps",
        "32",
        "--out",
        arg(runs.path()),
        "--set",
        "reward.remaining_potentia=true",
    ]);
    assert!(err.contains("remaining_potentia"), "{err}");
}

#[test]
fn ppo_and_dqn_train_on_a_jobs_workload_and_are_compared_with_its_baselines() {
    let runs = tempfile::tempdir().unwrap();
    let mini = workload("philly-mini.toml");
    let mut trained = Vec::new();
    for agent in ["ppo", "dqn"] {
        let out = runs.path().join(agent);
        let (stdout, run) = train_tiny_on(
            &mini,
            agent,
            &out,
            "32",
            &["--eval-episodes", "1", "--eval-every", "32"],
        );
        assert!(
            stdout.contains(&format!("{agent} on philly-mini")),
            "{stdout}"
        );
        let listing = tensorboard_listing(&run);
        // the greedy evaluation plays a whole jobs episode: its JCT curve has a point
        assert_eq!(tag_count(&listing, "eval/jct_avg_s"), 1, "{listing}");
        assert_eq!(
            tag_count(&listing, "env/train_loss"),
            0,
            "the jobs env trains no single job whose loss could be logged: {listing}"
        );
        trained.push(arg(&run).to_owned());
    }
    let policies = format!("{},{},fifo", trained[0], trained[1]);
    let table = run_ok(&[
        "compare",
        "--workload",
        arg(&mini),
        "--seeds",
        "0",
        "--policies",
        &policies,
    ]);
    // columns: policy, then "mean ± std" per metric
    let header: Vec<&str> = table.lines().nth(1).unwrap().split_whitespace().collect();
    let finished_at = 1 + 3 * (header.iter().position(|&c| c == "finished").unwrap() - 1);
    for run in &trained {
        let row: Vec<&str> = table
            .lines()
            .find(|l| l.trim_start().starts_with(run.as_str()))
            .unwrap_or_else(|| panic!("{run} missing:\n{table}"))
            .split_whitespace()
            .collect();
        // an untrained agent may hold a job until the time limit, but it schedules
        let finished: f64 = row[finished_at].parse().unwrap();
        assert!(finished > 0.0 && finished <= 82.0, "{row:?}");
    }
    // a jobs agent is refused on a single-job workload by kind, before its weights load
    let err = run_err(&[
        "eval",
        "--policy",
        &trained[0],
        "--workload",
        arg(&workload("small-4node.toml")),
        "--seeds",
        "0",
    ]);
    assert!(
        err.contains("trained on a jobs workload") && err.contains("this is a single-job workload"),
        "{err}"
    );
}

#[test]
fn quickstart_trains_compares_and_points_at_tensorboard() {
    let out = tempfile::tempdir().unwrap();
    let stdout = run_ok(&["quickstart", "--steps", "64", "--out", arg(out.path())]);
    for policy in ["static", "periodic", "greedy", "random", "raes", "ppo"] {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(policy)),
            "{policy} missing:\n{stdout}"
        );
    }
    // the line names the run folder the quickstart trained into
    let logdir = stdout
        .lines()
        .find_map(|l| l.split("tensorboard --logdir ").nth(1))
        .unwrap_or_else(|| panic!("no tensorboard line in {stdout}"));
    assert!(
        Path::new(logdir.trim()).join("manifest.json").is_file(),
        "{stdout}"
    );
}

/// `train` killed (SIGKILL) mid-run keeps its last whole checkpoint: the manifest's record files
/// are all there, `--resume` continues the run to the rounds asked, it evaluates, and it plays
/// as the run that was never killed. A folder killed before its first checkpoint is refused by
/// name as holding none.
#[test]
fn train_killed_mid_run_resumes_from_its_last_whole_checkpoint() {
    let out = tempfile::tempdir().unwrap();
    let small = workload("small-4node.toml");
    let mut args = vec![
        "train",
        "--agent",
        "ppo",
        "--workload",
        arg(&small),
        "--steps",
        "4000",
        "--eval-episodes",
        "0",
        "--out",
        arg(out.path()),
    ];
    args.extend(TINY_PPO);
    let mut child = schedlab()
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // kill it soon after its first checkpoint
    let started = std::time::Instant::now();
    let run = loop {
        let found = std::fs::read_dir(out.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|run| run.join("manifest.json").is_file());
        if let Some(run) = found {
            break run;
        }
        assert!(
            started.elapsed().as_secs() < 120 && child.try_wait().unwrap().is_none(),
            "no checkpoint appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    std::thread::sleep(std::time::Duration::from_millis(150));
    assert!(
        child.try_wait().unwrap().is_none(),
        "the run ended before its kill"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    let step = manifest["step"].as_u64().unwrap();
    assert!(step > 0 && step < 4000, "{manifest}");
    for record in ["model", "optim"] {
        assert!(
            run.join(format!("{record}-{step}.bpk")).is_file(),
            "{record}-{step}"
        );
    }
    let stdout = run_ok(&[
        "train",
        "--agent",
        "ppo",
        "--workload",
        arg(&small),
        "--steps",
        "4000",
        "--eval-episodes",
        "0",
        "--resume",
        arg(&run),
    ]);
    assert!(stdout.contains("trained 4000 rounds"), "{stdout}");
    run_ok(&[
        "eval",
        "--policy",
        arg(&run),
        "--workload",
        arg(&small),
        "--seeds",
        "0",
    ]);
    // it trained the very run that was never killed: the same play, episode for episode
    let whole_out = tempfile::tempdir().unwrap();
    let out_value = args.iter().position(|a| *a == "--out").unwrap() + 1;
    args[out_value] = arg(whole_out.path());
    run_ok(&args);
    let whole = std::fs::read_dir(whole_out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|run| run.join("manifest.json").is_file())
        .unwrap();
    let play = |run: &Path| {
        let json = out.path().join("played.json");
        run_ok(&[
            "run",
            "--policy",
            arg(run),
            "--workload",
            arg(&small),
            "--episodes",
            "3",
            "--json",
            arg(&json),
        ]);
        let played: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        played["episodes"].clone()
    };
    assert_eq!(play(&run), play(&whole));
    let empty = out.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = run_err(&[
        "train",
        "--agent",
        "ppo",
        "--workload",
        arg(&small),
        "--steps",
        "64",
        "--resume",
        arg(&empty),
    ]);
    assert!(
        err.contains(arg(&empty)) && err.contains("holds no checkpoint"),
        "{err}"
    );
}

#[test]
fn train_resume_and_evaluate_through_the_binary() {
    let out = tempfile::tempdir().unwrap();
    let small = workload("small-4node.toml");
    let (_, run) = train_tiny("ppo", out.path(), "32", &[]);
    let stdout = run_ok(&[
        "train",
        "--agent",
        "ppo",
        "--workload",
        arg(&small),
        "--steps",
        "64",
        "--resume",
        arg(&run),
    ]);
    assert!(stdout.contains("trained 64 rounds"), "{stdout}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["step"], 64);
    assert!(run.join("model-64.bpk").is_file() && !run.join("model-32.bpk").exists());
    let table = run_ok(&[
        "eval",
        "--policy",
        arg(&run),
        "--workload",
        arg(&small),
        "--seeds",
        "0",
    ]);
    assert!(table.lines().count() == 2, "{table}");
    let err = run_err(&[
        "train",
        "--agent",
        "ppo",
        "--workload",
        arg(&small),
        "--steps",
        "96",
        "--resume",
        arg(&run),
        "--set",
        "lr=1",
    ]);
    assert!(err.contains("keeps the hyperparameters"), "{err}");
}

#[test]
fn dqn_trains_on_the_ndarray_device_resumes_and_is_evaluated() {
    let out = tempfile::tempdir().unwrap();
    let small = workload("small-4node.toml");
    let (_, run) = train_tiny("dqn", out.path(), "32", &["--device", "ndarray"]);
    let listing = tensorboard_listing(&run);
    // 32 rounds = 4 updates of 2 x 4 rounds; the TD loss from the update that reaches 16 stored
    assert_eq!(tag_count(&listing, "charts/epsilon"), 4, "{listing}");
    assert_eq!(tag_count(&listing, "losses/td_loss"), 3, "{listing}");
    assert!(run.join("target-32.bpk").is_file());
    let stdout = run_ok(&[
        "train",
        "--agent",
        "dqn",
        "--workload",
        arg(&small),
        "--steps",
        "48",
        "--resume",
        arg(&run),
    ]);
    assert!(stdout.contains("trained 48 rounds of dqn"), "{stdout}");
    assert!(run.join("target-48.bpk").is_file() && !run.join("target-32.bpk").exists());
    let table = run_ok(&[
        "compare",
        "--policies",
        &format!("static,{}", arg(&run)),
        "--workload",
        arg(&small),
        "--seeds",
        "0..1",
    ]);
    assert!(table.lines().any(|l| l.contains("dqn")), "{table}");
    let err = run_err(&[
        "--device",
        "tpu",
        "eval",
        "--policy",
        "static",
        "--workload",
        arg(&small),
    ]);
    assert!(err.contains("unknown device `tpu`"), "{err}");
}

#[test]
fn ctrl_c_saves_a_checkpoint_and_exits_cleanly() {
    let out = tempfile::tempdir().unwrap();
    let child = schedlab()
        .args([
            "train",
            "--agent",
            "ppo",
            "--workload",
            arg(&workload("small-4node.toml")),
            "--steps",
            "1000000",
            "--out",
            arg(out.path()),
        ])
        .args(TINY_PPO)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // wait until training has produced its first checkpoint interval's worth of events
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_dir(out.path()).unwrap().next().is_none()
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("interrupted: checkpoint at"), "{stdout}");
    let run = std::fs::read_dir(out.path())
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("manifest.json")).unwrap()).unwrap();
    let step = manifest["step"].as_u64().unwrap();
    assert!(
        step > 0 && step < 1_000_000 && run.join(format!("model-{step}.bpk")).is_file(),
        "{manifest}"
    );
}

#[test]
fn predictors_fit_on_env_rollouts_and_are_scored_side_by_side() {
    let out = tempfile::tempdir().unwrap();
    let source = format!("env:{}", arg(&workload("small-4node.toml")));
    let fitted = run_ok(&[
        "predictors",
        "fit",
        "--source",
        &source,
        "--episodes",
        "3",
        "--out",
        arg(out.path()),
    ]);
    assert!(fitted.contains("fitted lstm"), "{fitted}");
    for file in ["last.json", "ewma.json", "ar.json", "lstm.json", "lstm.bpk"] {
        assert!(out.path().join(file).is_file(), "{file} missing");
    }
    let table = run_ok(&[
        "predictors",
        "eval",
        arg(out.path()),
        "--source",
        &source,
        "--episodes",
        "3",
    ]);
    for name in ["last", "ewma", "ar", "lstm"] {
        assert!(
            table.lines().any(|l| l.trim_start().starts_with(name)),
            "{name}:\n{table}"
        );
    }
    let err = run_err(&[
        "predictors",
        "eval",
        arg(out.path()),
        "--source",
        "s3:bucket",
    ]);
    assert!(err.contains("expected env:WORKLOAD.toml"), "{err}");
}

/// `raes` plays like any policy with the shipped fitted predictors (the default LSTM, and
/// others by option, inline or by `--set`); bad options are refused by name.
#[test]
fn raes_is_compared_with_its_options_and_bad_ones_are_refused() {
    let small = workload("small-4node.toml");
    let out = run_ok(&[
        "compare",
        "--policies",
        "static,raes,raes:solver=heuristic:predictor=ewma",
        "--set",
        "budget=static",
        "--workload",
        arg(&small),
        "--seeds",
        "0..1",
    ]);
    let rows: Vec<&str> = out.lines().skip(2).collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert!(
        rows[2].trim_start().starts_with("raes:solver=heuristic"),
        "{out}"
    );
    let err = run_err(&[
        "run",
        "--workload",
        arg(&small),
        "--agent",
        "raes:solver=cplex",
    ]);
    assert!(
        err.contains("solver=cplex") && err.contains("exact|heuristic"),
        "{err}"
    );
    let err = run_err(&[
        "compare",
        "--policies",
        "static,greedy",
        "--workload",
        arg(&small),
        "--set",
        "predictor=lstm",
    ]);
    assert!(
        err.contains("no chosen policy") && err.contains("predictor"),
        "{err}"
    );
    let missing = tempfile::tempdir().unwrap();
    let err = run_err(&[
        "run",
        "--workload",
        arg(&small),
        "--agent",
        "raes",
        "--set",
        &format!("predictor_dir={}", arg(missing.path())),
    ]);
    assert!(err.contains("lstm.json"), "{err}");
}

fn trace(path: &str) -> PathBuf {
    schedlab_tests::data_dir().join("traces").join(path)
}

#[test]
fn imported_traces_are_validated_compared_and_benchmarked() {
    let dir = tempfile::tempdir().unwrap();
    let philly = dir.path().join("philly-day.toml");
    let out = run_ok(&[
        "workload",
        "import",
        "--format",
        "philly",
        "--jobs",
        arg(&trace("philly/philly_jobs_2017-09_to_10.csv.gz")),
        "--nodes",
        arg(&trace("alibaba_pai_v2020/pai_machine_spec.csv")),
        "--from",
        "2017-10-02 00:00:00",
        "--to",
        "2017-10-02 06:00:00",
        "--scale",
        "nodes=0.01",
        "-o",
        arg(&philly),
    ]);
    assert!(out.contains("outside --from/--to, 0 dropped"), "{out}");
    assert!(run_ok(&["workload", "validate", arg(&philly)]).starts_with("ok philly-day: "));
    let table = run_ok(&[
        "compare",
        "--workload",
        arg(&philly),
        "--seeds",
        "0..1",
        "--policies",
        "fifo,sjf,las:placement=worst-fit,static,periodic,pollux,raes,random",
    ]);
    for policy in [
        "fifo",
        "sjf",
        "las:placement=worst-fit",
        "static",
        "periodic",
        "pollux",
        "raes",
        "random",
    ] {
        assert!(
            table.lines().any(|l| l.trim_start().starts_with(policy)),
            "{policy}:\n{table}"
        );
    }
    assert!(
        table.contains("jct_avg_s") && table.contains("fragmentation"),
        "{table}"
    );
    let e = run_err(&[
        "compare",
        "--workload",
        arg(&philly),
        "--policies",
        "greedy",
    ]);
    assert!(
        e.contains("unknown scheduler `greedy` for jobs workloads"),
        "{e}"
    );

    let openb = dir.path().join("openb.toml");
    run_ok(&[
        "workload",
        "import",
        "--format",
        "alibaba-openb",
        "--jobs",
        arg(&trace("alibaba_gpu_v2023/openb_pods_before_t12200000.csv")),
        "--nodes",
        arg(&trace("alibaba_gpu_v2023/openb_node_list_all_node.csv")),
        "--to",
        "2000000",
        "-o",
        arg(&openb),
    ]);
    let bench = run_ok(&[
        "bench",
        "cluster",
        "--workload",
        arg(&openb),
        "--repeats",
        "1",
    ]);
    assert!(
        bench.contains(" jobs/s (") && bench.contains("peak memory"),
        "{bench}"
    );

    let e = run_err(&[
        "workload",
        "import",
        "--format",
        "alibaba-v2018",
        "--jobs",
        arg(&trace(
            "alibaba_v2018_batch_dag/batch_task_dags_arrival_day0-4.csv.gz",
        )),
        "--nodes",
        arg(&trace("alibaba_gpu_v2023/openb_node_list_all_node.csv")),
        "-o",
        arg(&dir.path().join("v2018.toml")),
    ]);
    assert!(e.contains("line ") && e.contains("pass --lenient"), "{e}");
}

#[test]
fn a_family_and_later_windows_are_imported_and_played() {
    let dir = tempfile::tempdir().unwrap();
    let (jobs, nodes) = (
        trace("philly/philly_jobs_2017-09_to_10.csv.gz"),
        trace("alibaba_pai_v2020/pai_machine_spec.csv"),
    );
    let philly = [
        "--format",
        "philly",
        "--jobs",
        arg(&jobs),
        "--nodes",
        arg(&nodes),
    ];
    let family = dir.path().join("train.toml");
    let mut import = vec!["workload", "import"];
    import.extend(philly);
    import.extend([
        "--from",
        "2017-10-02",
        "--to",
        "2017-10-03",
        "--scale",
        "nodes=0.01",
        "--family",
        "length_s=3600..7200",
        "--family",
        "machine_share=0.4..0.6",
        "--family",
        "arrival_factor=0.8..1.2",
        "-o",
        arg(&family),
    ]);
    run_ok(&import);
    let text = std::fs::read_to_string(&family).unwrap();
    assert!(
        text.contains("[family]") && text.contains("period_s = 86400.0"),
        "{text}"
    );
    // the family plays a different window per seed, the same one again for the same seed
    let play = |seed: &str| {
        run_ok(&[
            "run",
            "--workload",
            arg(&family),
            "--policy",
            "las",
            "--seed",
            seed,
            "--json",
            arg(&dir.path().join(format!("run-{seed}.json"))),
        ]);
        std::fs::read_to_string(dir.path().join(format!("run-{seed}.json"))).unwrap()
    };
    assert_eq!(play("1"), play("1"));
    assert_ne!(play("1"), play("2"));

    let windows = dir.path().join("later.toml");
    let mut import = vec!["workload", "import"];
    import.extend(philly);
    import.extend([
        "--from",
        "2017-10-04",
        "--to",
        "2017-10-04 06:00:00",
        "--windows",
        "3",
        "--scale",
        "nodes=0.005",
        "-o",
        arg(&windows),
    ]);
    let out = run_ok(&import);
    for k in 0..3 {
        let path = dir.path().join(format!("later-{k:02}.toml"));
        assert!(out.contains(&format!("later-{k:02}.toml")), "{out}");
        let text = std::fs::read_to_string(&path).unwrap();
        let from = format!("from = \"2017-10-04 0{}:00:00\"", 2 * k);
        assert!(text.contains(&from), "{from}\n{text}");
        assert!(run_ok(&["workload", "validate", arg(&path)]).starts_with("ok later-"));
    }
    let mut import = vec!["workload", "import"];
    import.extend(philly);
    import.extend(["--windows", "2", "-o", arg(&windows)]);
    let e = run_err(&import);
    assert!(e.contains("need --from and --to"), "{e}");
}

#[test]
fn a_sweep_runs_resumes_and_is_summarized_with_paired_tests() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    let small = workload("small-4node.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"cli\"\npolicies = [\"static\", \"random\"]\nworkloads = [{:?}]\nseeds = [0, 1, 2]\n\n[overrides.short]\n\"episode.max_rounds\" = 4\n",
            arg(&small)
        ),
    )
    .unwrap();
    let out = dir.path().join("sweep");
    let first = run_ok(&["sweep", arg(&spec), "--out", arg(&out), "--jobs", "2"]);
    assert!(first.contains("6 rows of 6 cells"), "{first}");
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "{csv}");
    assert!(
        csv.starts_with("policy,workload,overrides,seed,completion_time_s"),
        "{csv}"
    );
    // a rerun finds every row done and changes nothing
    run_ok(&["sweep", arg(&spec), "--out", arg(&out)]);
    assert_eq!(
        std::fs::read_to_string(out.join("results.csv")).unwrap(),
        csv
    );
    let summary = run_ok(&["summarize", arg(&out), "--baseline", "static"]);
    assert!(
        summary.contains("against static, the Wilcoxon signed-rank p over the same seeds"),
        "{summary}"
    );
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("| random |") && md.contains("p="), "{md}");
    let err = run_err(&["summarize", arg(&out), "--baseline", "fifo"]);
    assert!(
        err.contains("baseline `fifo` is not among the policies"),
        "{err}"
    );
}

/// A sweep killed (SIGKILL) at several moments, then run again, ends with exactly the rows of an
/// uninterrupted run: a torn journal line is replayed, and the lock the killed process left is
/// taken over because its pid no longer runs.
#[test]
fn a_sweep_killed_at_any_moment_resumes_to_the_rows_of_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"killed\"\npolicies = [\"fifo\", \"sjf\", \"random\"]\nworkloads = [{:?}]\nseeds = [0, 1, 2, 3, 4, 5]\n",
            arg(&workload("philly-mini.toml"))
        ),
    )
    .unwrap();
    let whole = dir.path().join("whole");
    run_ok(&["sweep", arg(&spec), "--out", arg(&whole), "--jobs", "1"]);
    let expected = std::fs::read_to_string(whole.join("results.csv")).unwrap();
    let killed = dir.path().join("killed");
    let mut killed_midway = 0;
    for delay_ms in [30, 80, 160, 320, 640] {
        let mut child = schedlab()
            .args(["sweep", arg(&spec), "--out", arg(&killed), "--jobs", "1"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        if child.try_wait().unwrap().is_none() {
            killed_midway += 1;
        }
        child.kill().unwrap_or(()); // SIGKILL on unix
        child.wait().unwrap();
    }
    assert!(killed_midway > 0, "every sweep ended before its kill");
    let last = run_ok(&["sweep", arg(&spec), "--out", arg(&killed), "--jobs", "1"]);
    assert!(last.contains("18 rows of 18 cells"), "{last}");
    assert_eq!(
        std::fs::read_to_string(killed.join("results.csv")).unwrap(),
        expected
    );
}

/// A per-GPU PPO network (`per_unit = true` on a DAG workload) trained on 16 GPUs plays a
/// platform of 18: its weights do not depend on the GPU count. A flat network is refused there.
#[test]
fn a_per_gpu_dag_policy_plays_another_gpu_count() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("dag-small.toml");
    let text = std::fs::read_to_string(workload("dag-layered.toml")).unwrap();
    assert!(text.contains("tasks = 100"));
    std::fs::write(&small, text.replace("tasks = 100", "tasks = 12")).unwrap();
    let train = |per_unit: &str, out: &str| {
        let per_unit = format!("per_unit={per_unit}");
        let (_, run) = train_tiny_on(
            &small,
            "ppo",
            &dir.path().join(out),
            "256",
            &["--set", &per_unit],
        );
        run.to_str().unwrap().to_owned()
    };
    let (per_gpu, flat) = (train("true", "per-gpu"), train("false", "flat"));
    let play = |policy: &str| {
        schedlab()
            .args([
                "compare",
                "--policy",
                policy,
                "--workload",
                arg(&workload("dag-alibaba.toml")),
                "--seeds",
                "0..1",
                "--set",
                "dags.alibaba.tasks=30",
            ])
            .output()
            .unwrap()
    };
    let played = play(&per_gpu);
    assert!(
        played.status.success(),
        "{}",
        String::from_utf8_lossy(&played.stderr)
    );
    assert!(String::from_utf8_lossy(&played.stdout).contains("makespan_s"));
    let refused = play(&flat);
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("trained for observations of 136 and actions of 16 levels"),
        "{err}"
    );
}

/// A data folder and protocol for a `reproduce learned` that runs in seconds: a family of
/// 15–30 minute windows of philly-train, one held-out window of philly-mini's 16 shortest
/// jobs, `fifo` against two seeds of a 1,024-round PPO (four updates).
fn tiny_learned_protocol(dir: &Path) -> PathBuf {
    let workloads = dir.join("data/workloads");
    std::fs::create_dir_all(workloads.join("heldout/tiny")).unwrap();
    let family = std::fs::read_to_string(workload("philly-train-one-choice.toml")).unwrap();
    let family = family
        .replace("length_s = [3600.0, 10800.0]", "length_s = [900.0, 1800.0]")
        .replace(
            "name = \"philly-train-one-choice\"",
            "name = \"tiny-family\"",
        );
    std::fs::write(workloads.join("tiny-family.toml"), family).unwrap();
    std::fs::copy(
        workload("philly-train.jobs.parquet"),
        workloads.join("philly-train.jobs.parquet"),
    )
    .unwrap();
    let mini = std::fs::read_to_string(workload("philly-mini.toml")).unwrap();
    let mut blocks = mini.split("[[jobs]]");
    let head = blocks
        .next()
        .unwrap()
        .replace("philly-mini", "tiny-heldout");
    let short: Vec<&str> = blocks
        .filter(|b| {
            let duration = b.split("duration_s = ").nth(1).unwrap();
            duration.lines().next().unwrap().parse::<f64>().unwrap() < 20_000.0
        })
        .take(16)
        .collect();
    assert_eq!(short.len(), 16);
    std::fs::write(
        workloads.join("heldout/tiny/tiny-heldout.toml"),
        head + "[[jobs]]" + &short.join("[[jobs]]"),
    )
    .unwrap();
    let shipped = std::fs::read_to_string(data_dir().join("experiments/reproduce.toml")).unwrap();
    let protocol = dir.join("protocol.toml");
    std::fs::write(
        &protocol,
        shipped[..shipped.find("[learned]").unwrap()].to_owned()
            + r#"[learned]
heuristics = ["fifo"]
shipped = []
eval_seeds = 1
set = { "window.interface" = "one-choice" }
budget_s = 3600.0
train_eval_episodes = 1
validation_episodes = 2
training_smoothing = 1

[[learned.traces]]
name = "tiny"
family = "tiny-family.toml"
heldout = "heldout/tiny"

[[learned.learners]]
label = "PPO tiny"
agent = "ppo"
steps = 1024
seeds = [0, 1]
set = { per_unit = true, hidden = 16, rollout_steps = 32 }
"# + &shipped[shipped.find("\n[heterogeneity]").unwrap()..],
    )
    .unwrap();
    protocol
}

/// `schedlab reproduce learned` on `protocol` in `dir` (output in `out`, `doc.md` and
/// `figures` there) with `extra` arguments; its standard output.
fn reproduce_learned(dir: &Path, protocol: &Path, extra: &[&str]) -> String {
    succeeded(
        schedlab()
            .current_dir(dir)
            .args(["reproduce", "learned", "--protocol", arg(protocol)])
            .args(["--out", "out", "--doc", "doc.md", "--figures", "figures"])
            .args(extra),
    )
}

/// A finished run trained by other sources (its `training_sources.txt` differs from this
/// build's) is trained again by default; `--reuse-runs` plays it as it is and the document
/// names its fingerprint.
#[test]
fn reproduce_reuses_runs_of_other_sources_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let protocol = tiny_learned_protocol(dir.path());
    let reproduce = |extra: &[&str]| reproduce_learned(dir.path(), &protocol, extra);
    let first = reproduce(&[]);
    assert!(
        first.contains("learned: training PPO tiny seed 0"),
        "{first}"
    );
    let seeds = dir.path().join("out/learned/runs/tiny/ppo-tiny");
    let run_of = |seed: u64| {
        let folder = seeds.join(format!("seed-{seed}"));
        std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir())
            .unwrap()
    };
    let before = run_of(0);
    for seed in [0, 1] {
        std::fs::write(
            seeds.join(format!("seed-{seed}/training_sources.txt")),
            "0123456789abcdef",
        )
        .unwrap();
    }
    let reused = reproduce(&["--reuse-runs"]);
    assert!(!reused.contains("learned: training"), "{reused}");
    assert_eq!(run_of(0), before);
    let doc = std::fs::read_to_string(dir.path().join("doc.md")).unwrap();
    assert!(doc.contains("fingerprint 0123456789abcdef"), "{doc}");
    let journal = dir.path().join("out/learned-tiny/rows.jsonl");
    let lines = || -> Vec<String> {
        std::fs::read_to_string(&journal)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let old_run = before.file_name().unwrap().to_string_lossy().into_owned();
    let others: Vec<String> = lines()
        .into_iter()
        .filter(|l| !l.contains("ppo-tiny/seed-"))
        .collect();
    assert!(!others.is_empty() && lines().iter().any(|l| l.contains(&old_run)));
    let retrained = reproduce(&[]);
    assert!(
        retrained.contains("learned: training PPO tiny seed 0"),
        "{retrained}"
    );
    assert_ne!(run_of(0), before);
    // the heuristics' rows were kept as written, the old run's are gone
    let after = lines();
    assert!(others.iter().all(|l| after.contains(l)));
    assert!(!after.iter().any(|l| l.contains(&old_run)));
    let doc = std::fs::read_to_string(dir.path().join("doc.md")).unwrap();
    assert!(!doc.contains("fingerprint 0123456789abcdef"), "{doc}");
}

/// A learner given more rounds in the protocol trains a new run from the start: the rounds set
/// its learning-rate and curriculum schedules, so resuming the shorter run would not be the
/// run the protocol names.
#[test]
fn reproduce_trains_again_a_run_planned_for_other_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let protocol = tiny_learned_protocol(dir.path());
    let reproduce = || reproduce_learned(dir.path(), &protocol, &[]);
    let first = reproduce();
    assert!(
        first.contains("learned: training PPO tiny seed 0"),
        "{first}"
    );
    let rounds = dir
        .path()
        .join("out/learned/runs/tiny/ppo-tiny/seed-0/training_rounds.txt");
    assert_eq!(std::fs::read_to_string(&rounds).unwrap(), "1024");
    let longer = std::fs::read_to_string(&protocol)
        .unwrap()
        .replace("steps = 1024", "steps = 2048");
    std::fs::write(&protocol, longer).unwrap();
    let second = reproduce();
    assert!(
        second.contains("learned: training PPO tiny seed 0"),
        "{second}"
    );
    assert!(!second.contains("resuming"), "{second}");
    assert_eq!(std::fs::read_to_string(&rounds).unwrap(), "2048");
}

/// `reproduce learned` killed (SIGKILL) at several moments (training, sweeps, the document) and
/// run again ends with the rows of an uninterrupted run: a run killed after a checkpoint resumes
/// and trains as if never stopped, sweeps resume from their journals, locks are taken over.
#[test]
fn reproduce_learned_killed_at_any_moment_ends_as_an_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let protocol = tiny_learned_protocol(dir.path());
    let reproduce = |out: &str| {
        let mut command = schedlab();
        command.current_dir(dir.path()).args([
            "reproduce",
            "learned",
            "--protocol",
            arg(&protocol),
            "--out",
            out,
            "--doc",
            &format!("{out}.md"),
            "--figures",
            &format!("{out}-figures"),
        ]);
        command
    };
    let status = reproduce("whole").output().unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let printed = dir.path().join("printed.txt");
    let start = || {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&printed)
            .unwrap();
        reproduce("killed")
            .stdout(log)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    // first killed mid-training, just after a checkpoint of seed 0's run
    let mut child = start();
    let runs = dir.path().join("killed/learned/runs/tiny/ppo-tiny/seed-0");
    let checkpointed = || -> Option<u64> {
        let run = std::fs::read_dir(&runs).ok()?.find_map(|e| {
            let path = e.ok()?.path();
            path.join("manifest.json").is_file().then_some(path)
        })?;
        let text = std::fs::read_to_string(run.join("manifest.json")).ok()?;
        serde_json::from_str::<serde_json::Value>(&text).ok()?["step"].as_u64()
    };
    let started = std::time::Instant::now();
    let step = loop {
        if let Some(step) = checkpointed() {
            break step;
        }
        assert!(started.elapsed().as_secs() < 120, "no checkpoint appeared");
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(step < 1024, "seed 0 finished before its kill");
    // then at moments spread over the rest
    let mut killed_midway = 0;
    for delay_ms in [300, 1500, 3500, 6000] {
        let mut child = start();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        if child.try_wait().unwrap().is_none() {
            killed_midway += 1;
        }
        child.kill().unwrap_or(()); // SIGKILL on unix
        child.wait().unwrap();
    }
    assert!(killed_midway >= 2, "the runs ended before their kills");
    let last = reproduce("killed").output().unwrap();
    assert!(
        last.status.success(),
        "{}",
        String::from_utf8_lossy(&last.stderr)
    );
    let printed =
        std::fs::read_to_string(&printed).unwrap() + &String::from_utf8_lossy(&last.stdout);
    assert!(
        printed.contains("learned: resuming PPO tiny"),
        "no training was killed after a checkpoint:\n{printed}"
    );
    // each sweep's rows, with run folders named apart from their creation stamps
    let rows = |out: &str| {
        let mut sweeps: Vec<(String, String)> = std::fs::read_dir(dir.path().join(out))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("results.csv").is_file())
            .map(|p| {
                let text = std::fs::read_to_string(p.join("results.csv")).unwrap();
                let unstamped: Vec<String> = text
                    .lines()
                    .map(|line| {
                        let (policy, rest) = line.split_once(',').unwrap();
                        let policy = policy.rsplit_once("__").map_or(policy, |(run, _)| run);
                        format!("{},{rest}", policy.replacen(out, "OUT", 1))
                    })
                    .collect();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    unstamped.join("\n"),
                )
            })
            .collect();
        sweeps.sort();
        sweeps
    };
    let whole = rows("whole");
    assert_eq!(whole.len(), 4, "{whole:?}");
    assert_eq!(rows("killed"), whole);
}

#[test]
fn plot_draws_sweep_results_training_curves_round_files_and_jct_cdfs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("spec.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"plots\"\npolicies = [\"static\", \"periodic\"]\nworkloads = [{:?}]\nseeds = [0, 1]\n",
            arg(&workload("small-4node.toml"))
        ),
    )
    .unwrap();
    let sweep = dir.path().join("sweep");
    run_ok(&["sweep", arg(&spec), "--out", arg(&sweep)]);
    for kind in ["bars", "cdf"] {
        let png = dir.path().join(format!("{kind}.png"));
        let printed = run_ok(&[
            "plot",
            kind,
            arg(&sweep),
            "--metric",
            "gpu_util",
            "--out",
            arg(&png),
        ]);
        assert!(printed.contains("wrote"), "{printed}");
        assert_eq!(png_size(&png), (900, 540));
    }
    let err = run_err(&[
        "plot",
        "bars",
        arg(&sweep),
        "--metric",
        "nope",
        "--out",
        "x.png",
    ]);
    assert!(
        err.contains("no metric `nope`") && err.contains("gpu_util"),
        "{err}"
    );

    let runs = dir.path().join("runs");
    let (_, run) = train_tiny("ppo", &runs, "32", &[]);
    let curve = dir.path().join("curve.png");
    run_ok(&[
        "plot",
        "curves",
        arg(&run),
        "--y",
        "losses/value_loss",
        "--out",
        arg(&curve),
    ]);
    assert_eq!(png_size(&curve), (900, 540));
    let err = run_err(&[
        "plot",
        "curves",
        arg(&run),
        "--y",
        "nope",
        "--out",
        arg(&curve),
    ]);
    assert!(
        err.contains("no scalar tag `nope`") && err.contains("charts/SPS"),
        "{err}"
    );

    let rounds = dir.path().join("rounds.csv");
    run_ok(&[
        "run",
        "--workload",
        arg(&workload("small-4node.toml")),
        "--rounds-csv",
        arg(&rounds),
    ]);
    let loss = dir.path().join("loss.png");
    run_ok(&[
        "plot",
        "curves",
        arg(&rounds),
        "--x",
        "time_s",
        "--y",
        "val_loss",
        "--out",
        arg(&loss),
    ]);
    assert_eq!(png_size(&loss), (900, 540));

    let cdf = dir.path().join("jct.png");
    let printed = run_ok(&[
        "plot",
        "jct-cdf",
        "--workload",
        arg(&workload("philly-mini.toml")),
        "--policies",
        "fifo,las",
        "--out",
        arg(&cdf),
    ]);
    assert!(printed.contains("wrote"), "{printed}");
    assert_eq!(png_size(&cdf), (900, 540));
}

/// Mean of `column` over the rows of an `eval --csv` file.
fn csv_mean(path: &Path, column: &str) -> f64 {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let at = lines
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == column)
        .unwrap_or_else(|| panic!("no {column} in {}", path.display()));
    let values: Vec<f64> = lines
        .map(|l| l.split(',').nth(at).unwrap().parse().unwrap())
        .collect();
    values.iter().sum::<f64>() / values.len() as f64
}

/// Issue 36's check that the learners learn: PPO from scratch (no teacher, no cloned weights)
/// on the tiny Philly family, 30k rounds keeping the best of its greedy evaluations, plays the
/// family's 16 validation windows with a lower mean JCT than `random`, finishing every job.
/// Training seeds 0..9 of this command all did (10.6k-14.8k s against random's 16.6k;
/// docs/ppo-from-scratch.md, "A tiny family"); without the shaped reward 3 of 6 did.
#[test]
fn ppo_from_scratch_on_the_tiny_family_beats_random_on_its_validation_windows() {
    let dir = tempfile::tempdir().unwrap();
    let tiny = workload("philly-tiny-one-choice.toml");
    let runs = dir.path().join("runs");
    run_ok(&[
        "train",
        "--agent",
        "ppo",
        "--workload",
        arg(&tiny),
        "--seed",
        "0",
        "--steps",
        "30000",
        "--eval-episodes",
        "4",
        "--out",
        arg(&runs),
        "--set",
        "per_unit=true",
        "--set",
        "hidden=64",
        "--set",
        "skip_forced=true",
        "--set",
        "discount_time_s=1800",
        "--set",
        "keep_best=true",
    ]);
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let play = |policy: &str, name: &str| {
        let csv = dir.path().join(name);
        run_ok(&[
            "eval",
            "--policy",
            policy,
            "--workload",
            arg(&tiny),
            "--seeds",
            "0..15",
            "--csv",
            arg(&csv),
        ]);
        (
            csv_mean(&csv, "jct_avg_s"),
            csv_mean(&csv, "queued_at_end") + csv_mean(&csv, "running_at_end"),
        )
    };
    let (learned, learned_left) = play(arg(&run), "learned.csv");
    let (random, _) = play("random", "random.csv");
    assert_eq!(learned_left, 0.0, "every job finishes");
    assert!(
        learned < random,
        "from scratch {learned:.0} s against random's {random:.0} s"
    );
}

/// Where standard error is not a terminal (a log, Slurm, a pipe), a long command writes its
/// progress as plain lines at the interval `SCHEDLAB_PROGRESS_EVERY_S` asks for; a bad interval
/// is refused by name.
#[test]
fn train_writes_progress_lines_into_a_log() {
    let dir = tempfile::tempdir().unwrap();
    let small = workload("small-4node.toml");
    let mut args = vec!["train", "--agent", "ppo", "--workload", arg(&small)];
    args.extend(["--steps", "3000", "--out", arg(dir.path())]);
    args.extend(&TINY_PPO[..]);
    let out = schedlab()
        .args(&args)
        .env("SCHEDLAB_PROGRESS_EVERY_S", "0.1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("/3000 rounds, "))
        .collect();
    assert!(lines.len() >= 2, "{log}");
    assert!(lines.iter().all(|l| l.contains("elapsed, ~")), "{log}");
    let bad = schedlab()
        .args(&args)
        .env("SCHEDLAB_PROGRESS_EVERY_S", "often")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("SCHEDLAB_PROGRESS_EVERY_S=often"));
}

/// A trained policy played on another kind of workload is refused naming both kinds before
/// its weights load (a per-unit network's shapes can fit another env's).
#[test]
fn a_policy_of_another_kind_of_workload_is_refused_by_kind() {
    let err = run_err(&[
        "eval",
        "--policy",
        "philly-es",
        "--workload",
        arg(&workload("dag-layered.toml")),
    ]);
    assert!(
        err.contains("trained on a jobs workload") && err.contains("this is a dag workload"),
        "{err}"
    );
    assert!(!err.contains("shape mismatch"), "{err}");
}

/// Each way a trained policy can miss a workload is refused naming the policy, what it trained
/// on and what differs, never a tensor's shape: another kind (jobs and DAG, DAG and network,
/// jobs and single job), another window, another GPU count for a flat DAG network, a per-unit
/// jobs network trained on other GPU models, and another action layout.
#[test]
fn every_mismatch_of_policy_and_workload_is_named_before_weights_load() {
    let dir = tempfile::tempdir().unwrap();
    let (_, flat_jobs) = train_tiny_on(
        &workload("philly-tiny-one-choice.toml"),
        "ppo",
        dir.path(),
        "32",
        &[],
    );
    let eval_err = |policy: &str, file: &str, set: &[&str]| {
        let mut args = vec!["eval", "--policy", policy, "--workload"];
        let file = workload(file);
        args.push(arg(&file));
        args.extend(["--seeds", "0"]);
        for kv in set {
            args.extend(["--set", kv]);
        }
        let err = run_err(&args);
        assert!(
            !err.contains("shape mismatch") && !err.contains("panicked"),
            "{err}"
        );
        err
    };
    let kinds = [
        (
            "philly-es",
            "dag-layered.toml",
            "trained on a jobs workload",
            "this is a dag workload",
        ),
        (
            "dag-ppo",
            "philly-mini.toml",
            "trained on a dag workload",
            "this is a jobs workload",
        ),
        (
            "dag-ppo",
            "network-diabetes-ridge.toml",
            "trained on a dag workload",
            "this is a network workload",
        ),
        (
            "philly-es",
            "small-4node.toml",
            "trained on a jobs workload",
            "this is a single-job workload",
        ),
    ];
    for (policy, file, trained, here) in kinds {
        let err = eval_err(policy, file, &[]);
        assert!(
            err.contains(policy) && err.contains(trained) && err.contains(here),
            "{err}"
        );
    }
    let window = eval_err(
        arg(&flat_jobs),
        "philly-tiny-one-choice.toml",
        &["window.queued=3"],
    );
    assert!(
        window.contains("window.queued is 12 in training and 3 here"),
        "{window}"
    );
    let gpus = eval_err("dag-ddqn", "dag-alibaba.toml", &[]);
    assert!(
        gpus.contains("dag-ddqn")
            && gpus.contains("actions of 16 levels")
            && gpus.contains("GPUs = 18"),
        "{gpus}"
    );
    let layout = eval_err("dag-ddqn", "dag-layered.toml", &["ready_tasks=2"]);
    assert!(layout.contains("ready_tasks = 2"), "{layout}");
    // a per-unit network trained on three GPU models, on a homogeneous cluster
    let models = eval_err("philly-gavel-es", "philly-mini.toml", &[]);
    assert!(
        models.contains("philly-gavel-es") && models.contains("trained for observations of 353"),
        "{models}"
    );
    let interface = eval_err(
        "philly-es",
        "philly-mini.toml",
        &["window.interface=per-slot"],
    );
    assert!(
        interface.contains("window.interface is one-choice in training and per-slot here"),
        "{interface}"
    );
}

/// Runs `schedlab args` to its end and returns its stderr and its peak resident memory in
/// KB, as the kernel accounted it (what `/usr/bin/time -v` reports).
fn run_err_with_peak_kb(args: &[&str]) -> (String, i64) {
    use std::io::Read;
    #[allow(
        clippy::zombie_processes,
        reason = "reaped by wait4, which also gives its usage"
    )]
    let mut child = schedlab()
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let mut status = 0;
    // SAFETY: rusage is plain data the call fills; the pid is this test's own child
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32, "waiting for schedlab {args:?}");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 1,
        "schedlab {args:?} should have failed with an error, not status {status}: {stderr}"
    );
    (stderr, usage.ru_maxrss)
}

/// A typo in a count (a billion GPUs, a hundred million tasks, a trillion machines, a job of
/// billions of GPUs in a trace) is refused naming the key and the value before anything of
/// that size is built: the command stays far under 200 MB.
#[test]
fn extreme_counts_are_refused_by_key_and_value_before_memory_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let edited = |name: &str, from: &str, to: &str, shipped: &str| {
        let text = std::fs::read_to_string(workload(shipped)).unwrap();
        assert!(text.contains(from), "{shipped} has `{from}`");
        let path = dir.path().join(name);
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        path
    };
    let gpus = edited(
        "gpus.toml",
        "gpus = 4\n",
        "gpus = 4000000000\n",
        "dag-layered.toml",
    );
    let tasks = edited(
        "tasks.toml",
        "tasks = 100\n",
        "tasks = 100000000\n",
        "dag-layered.toml",
    );
    let machines = edited(
        "machines.toml",
        "count = 8\n",
        "count = 1000000000000\n",
        "philly-tiny-one-choice.toml",
    );
    let cases = [
        (&gpus, "`platform.machines[0].gpus`: 4000000000"),
        (&tasks, "`dags.layered.tasks`: 100000000"),
        (&machines, "`machines[0].count`: 1000000000000"),
    ];
    for (path, named) in cases {
        for command in [
            vec!["workload", "validate", arg(path)],
            vec!["run", "--workload", arg(path)],
        ] {
            let (stderr, peak_kb) = run_err_with_peak_kb(&command);
            assert!(
                stderr.contains(named) && stderr.contains("limit"),
                "{stderr}"
            );
            assert!(peak_kb < 200_000, "{command:?} peaked at {peak_kb} KB");
        }
    }
    // found by fuzz/fuzz_targets/workload_sizes.rs: a stochastic background's series ran the
    // length of the episode
    let small = workload("small-4node.toml");
    let (stderr, peak_kb) = run_err_with_peak_kb(&[
        "run",
        "--workload",
        arg(&small),
        "--set",
        "episode.max_time_s=1e15",
    ]);
    assert!(
        stderr.contains("`episode.max_time_s`: 1000000000000000 s of 15 s periods"),
        "{stderr}"
    );
    assert!(peak_kb < 200_000, "peaked at {peak_kb} KB");
    // also found by the fuzz target: every pair of GPUs keeps a transfer time
    let wide = edited(
        "wide.toml",
        "gpus = 4\n",
        "gpus = 4\ncount = 12000\n",
        "dag-layered.toml",
    );
    let (stderr, peak_kb) =
        run_err_with_peak_kb(&["--memory-limit-gb", "8", "workload", "validate", arg(&wide)]);
    assert!(stderr.contains("on 48012 GPUs needs about"), "{stderr}");
    assert!(peak_kb < 200_000, "peaked at {peak_kb} KB");
    // counts given as flags
    let err = run_err(&[
        "run",
        "--workload",
        arg(&small),
        "--episodes",
        "1000000000000",
    ]);
    assert!(
        err.contains("--episodes") && err.contains("1..=1000000"),
        "{err}"
    );
    let err = run_err(&[
        "eval",
        "--policy",
        "static",
        "--workload",
        arg(&small),
        "--seeds",
        "0..1000000000000",
    ]);
    assert!(err.contains("above the limit of 1000000"), "{err}");
    let pods = dir.path().join("pods.csv");
    let shipped =
        std::fs::read_to_string(trace("alibaba_gpu_v2023/openb_pods_before_t12200000.csv"))
            .unwrap();
    let header = shipped.lines().next().unwrap();
    std::fs::write(
        &pods,
        format!("{header}\nopenb-pod-huge,12000,16384,4000000000,1000,,LS,Running,0,12537496,0\n"),
    )
    .unwrap();
    let (stderr, peak_kb) = run_err_with_peak_kb(&[
        "workload",
        "import",
        "--format",
        "alibaba-openb",
        "--jobs",
        arg(&pods),
        "--nodes",
        arg(&trace("alibaba_gpu_v2023/openb_node_list_all_node.csv")),
        "-o",
        arg(&dir.path().join("openb.toml")),
    ]);
    assert!(
        stderr.contains("line 2: column `num_gpu`") && stderr.contains("4000000000"),
        "{stderr}"
    );
    assert!(peak_kb < 200_000, "import peaked at {peak_kb} KB");
}

/// The memory a run is estimated to need is checked against `--memory-limit-gb`.
#[test]
fn a_run_estimated_above_the_memory_limit_is_refused_with_its_estimate() {
    let args = ["--memory-limit-gb", "0.0001", "workload", "validate"];
    let (stderr, _) =
        run_err_with_peak_kb(&[&args[..], &[arg(&workload("dag-layered.toml"))]].concat());
    assert!(
        stderr.contains("`dags.layered.tasks`: 100 tasks on 16 GPUs needs about")
            && stderr.contains("--memory-limit-gb"),
        "{stderr}"
    );
    run_ok(&[
        "--memory-limit-gb",
        "1",
        "workload",
        "validate",
        arg(&workload("dag-layered.toml")),
    ]);
}

/// Every shipped policy plays its held-out episodes as it did when its golden file in
/// `tests/golden/shipped-policies/` was written: the eval CSV, byte for byte (the first two
/// held-out windows of its trace for the jobs policies, a later real-DAG slice and generated
/// DAGs for the DAG ones; seed 0), compared column by column. A change of the simulator, the networks or the loaders that
/// alters how a trained policy plays shows here. Where the change is meant, rewrite the files
/// with `SCHEDLAB_BLESS=1` and say so in the change.
#[test]
fn every_shipped_policy_plays_its_held_out_episodes_as_its_golden_file_says() {
    let data = data_dir();
    let golden = data.join("../tests/golden/shipped-policies");
    let bless = std::env::var_os("SCHEDLAB_BLESS").is_some();
    let policies = shipped_policies_holding("manifest.json");
    assert!(policies.len() >= 7, "{policies:?}");
    let dir = tempfile::tempdir().unwrap();
    let mut differing = Vec::new();
    for policy in &policies {
        // the held-out folder of the longest prefix of the name that has one: philly-gavel-es
        // plays heldout/philly-gavel, philly-bc-raes-ppo heldout/philly
        let parts: Vec<&str> = policy.split('-').collect();
        let trace = (1..parts.len())
            .rev()
            .map(|n| parts[..n].join("-"))
            .find(|t| data.join("workloads/heldout").join(t).is_dir())
            .unwrap_or_default();
        let workloads: Vec<PathBuf> = match parts[0] {
            "dag" => vec![
                workload("dag-alibaba-16gpu-later.toml"),
                workload("dag-layered.toml"),
            ],
            _ => (0..2)
                .map(|k| {
                    data.join(format!(
                        "workloads/heldout/{trace}/{trace}-heldout-{k:02}.toml"
                    ))
                })
                .collect(),
        };
        let csv = dir.path().join(format!("{policy}.csv"));
        let mut args = vec![
            "eval",
            "--policy",
            policy,
            "--seeds",
            "0",
            "--csv",
            arg(&csv),
        ];
        args.push("--workload");
        args.extend(workloads.iter().map(|w| arg(w)));
        run_ok(&args);
        let played = std::fs::read_to_string(&csv).unwrap();
        let expected = golden.join(format!("{policy}.csv"));
        if bless {
            std::fs::create_dir_all(&golden).unwrap();
            std::fs::write(&expected, &played).unwrap();
        } else {
            let golden = std::fs::read_to_string(&expected).unwrap_or_default();
            if let Some(why) = column_differences(&golden, &played) {
                differing.push(format!("{policy}: {why}; now\n{played}"));
            }
        }
    }
    assert!(differing.is_empty(), "{}", differing.join("\n"));
}

/// Where a played CSV differs from its golden file, column by column (by header name), each
/// golden column's cells byte for byte: so a change that adds columns shows that the old ones
/// stand before the files are blessed with the new.
fn column_differences(golden: &str, played: &str) -> Option<String> {
    let table = |text: &str| -> Vec<(String, Vec<String>)> {
        let mut lines = text.lines().map(|l| l.split(',').map(str::to_owned));
        let header: Vec<String> = lines.next().map(Iterator::collect).unwrap_or_default();
        let rows: Vec<Vec<String>> = lines.map(Iterator::collect).collect();
        header
            .into_iter()
            .enumerate()
            .map(|(c, name)| (name, rows.iter().map(|r| r[c].clone()).collect()))
            .collect()
    };
    let (golden, played) = (table(golden), table(played));
    let mut why = Vec::new();
    for (name, cells) in &golden {
        match played.iter().find(|(n, _)| n == name) {
            None => why.push(format!("column `{name}` is gone")),
            Some((_, now)) if now != cells => why.push(format!("column `{name}` differs")),
            Some(_) => {}
        }
    }
    let new: Vec<&str> = played
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !golden.iter().any(|(g, _)| g == n))
        .collect();
    if !new.is_empty() {
        let old = if why.is_empty() {
            "every old one stands: bless"
        } else {
            "and old ones differ"
        };
        why.push(format!("new column(s) {} ({old})", new.join(", ")));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// `train --agent` takes the names of the trainer's table of learners, and its help lists each
/// with its line: a learner added to the table is offered without touching the command line.
#[test]
fn train_offers_every_learner_of_the_table_by_name() {
    let small = workload("small-4node.toml");
    let err = run_err(&["train", "--agent", "nope", "--workload", arg(&small)]);
    let help = run_ok(&["train", "--help"]);
    for row in schedlab_trainer::algorithms::LEARNERS {
        assert!(err.contains(row.name), "{err}");
        assert!(help.contains(row.name) && help.contains(row.help), "{help}");
    }
}

/// A user error prints its message and causes, and no stack frames, even where the user keeps
/// `RUST_BACKTRACE=1` set; the error still names what is wrong.
#[test]
fn a_user_error_prints_no_backtrace_under_rust_backtrace() {
    let out = schedlab()
        .env("RUST_BACKTRACE", "1")
        .args(["workload", "import", "--format", "philly", "--windows", "2"])
        .args([
            "--jobs",
            "missing.csv",
            "--nodes",
            "missing.csv",
            "-o",
            "x.toml",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    // a frame is a symbol line followed by its location, `at src/...:line:column`
    let frames = stderr
        .lines()
        .filter(|l| l.trim_start().starts_with("at ") && l.contains(".rs:"))
        .count();
    let lower = stderr.to_lowercase();
    assert!(
        !lower.contains("backtrace") && !lower.contains("lang_start") && frames == 0,
        "{stderr}"
    );
    assert!(stderr.starts_with("Error: "), "{stderr}");
}

/// `templates gavel` writes one template per job type Gavel measures at 1 GPU on the V100, each
/// naming its type, with a contention fitted where more than one count is measured; a model
/// the matrix lacks is refused by name.
#[test]
fn templates_gavel_writes_a_template_per_job_type_of_the_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = data_dir().join("throughputs/gavel/simulation_throughputs.json");
    let out = dir.path().join("gavel");
    run_ok(&[
        "templates",
        "gavel",
        "--throughputs",
        arg(&matrix),
        "-o",
        arg(&out),
    ]);
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 26);
    let text = std::fs::read_to_string(out.join("gavel-resnet-50-batch-size-64.toml")).unwrap();
    assert!(
        text.contains("job_type = \"ResNet-50 (batch size 64)\""),
        "{text}"
    );
    let contention: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("contention = "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(contention > 0.0, "{text}");
    let e = run_err(&[
        "templates",
        "gavel",
        "--throughputs",
        arg(&matrix),
        "--reference",
        "h100",
        "-o",
        arg(&out),
    ]);
    assert!(e.contains("--reference h100"), "{e}");
}
