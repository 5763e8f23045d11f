//! `schedlab reproduce`: the workbench's versions of the reference paper's convergence figure
//! (fig2), resource-use table (table1) and end-to-end table (table2), each a sweep over the
//! shipped workloads, summarized with confidence intervals and Welch's p-values, plotted, and
//! assembled into EXPERIMENTS.md.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use schedlab_env::{ClusterEnv, Scenario};
use schedlab_trainer::tensorboard::read_scalars;

use super::bench::shipped_workload;
use super::jobs_compare::completion_hours;
use super::parse_overrides;
use super::summarize::{number, p_text};
use crate::output::write_atomic;
use crate::plots::{self, XScale};
use crate::stats::{summarize, welch};
use crate::sweep::journal::Row;
use crate::sweep::run::{SweepOptions, latest_run, run as run_sweep};
use crate::sweep::spec::{Shard, SweepSpec, TrainSettings, pairs};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Target {
    Fig2,
    Table1,
    Table2,
    All,
}

#[derive(Args)]
pub struct ReproduceArgs {
    target: Target,
    /// Seeds 0..N per cell.
    #[arg(long, default_value_t = 5)]
    seeds: u64,
    /// Rounds of PPO and DQN training for table1 (each round trains the real model for two
    /// virtual seconds: about 55 rounds per second on 2 cores).
    #[arg(long, default_value_t = 20_000)]
    steps: u64,
    /// Sweep folders (resumable: a rerun skips finished episodes).
    #[arg(long, default_value = "results/reproduce")]
    out: PathBuf,
    /// The document to (re)write from every section reproduced so far.
    #[arg(long, default_value = "EXPERIMENTS.md")]
    doc: PathBuf,
    /// Where the figures go (linked from the document by relative path).
    #[arg(long, default_value = "docs/figures")]
    figures: PathBuf,
}

/// The optimisers of the single-job workloads, by override-set name.
const OPTIMIZERS: [(&str, &str); 4] = [
    ("adam", "Adam"),
    ("async_sgd", "asynchronous SGD"),
    (HB_ASGD, "HB-ASGD"),
    ("sync_sgd", "synchronous SGD"),
];

/// The paper's optimiser (the only one of table1, whose question is the schedulers').
const HB_ASGD: &str = "hb_asgd";

/// Learning rates tried per optimiser before fig2 and table2: one shipped lr would favour the
/// optimiser it was chosen for (Adam wants steps a hundred times smaller than SGD). The grids
/// stop below the rates at which plain asynchronous SGD diverges on paper-10node (0.8), whose
/// episodes would run to the time limit at full update rate.
const SGD_LRS: [f64; 4] = [0.05, 0.1, 0.2, 0.4];
const ADAM_LRS: [f64; 4] = [3e-4, 1e-3, 3e-3, 1e-2];
/// Tuning uses its own seeds so the reported seeds do not choose their own learning rate.
const TUNING_SEEDS: [u64; 3] = [1000, 1001, 1002];

fn lr_grid(optimizer: &str) -> [f64; 4] {
    if optimizer == "adam" {
        ADAM_LRS
    } else {
        SGD_LRS
    }
}

fn tuning_set_name(optimizer: &str, lr: f64) -> String {
    format!("{optimizer}-lr{lr}")
}

/// Scheduling rounds of the single-job experiments, virtual seconds. At their tuned rates the
/// asynchronous optimisers reach the target in 10–30 virtual seconds: inside paper-10node's
/// shipped 30 s first round, where every policy makes one and the same decision.
const ROUND_S: f64 = 2.0;
/// Rounds in the shipped one-hour limit.
const MAX_ROUNDS: i64 = 1800;

/// paper-10node with `optimizer` at `lr` and [`ROUND_S`] rounds.
fn optimizer_set(optimizer: &str, lr: f64) -> BTreeMap<String, toml::Value> {
    BTreeMap::from([
        (
            "job.optimizer".to_owned(),
            toml::Value::String(optimizer.into()),
        ),
        ("job.lr".to_owned(), toml::Value::Float(lr)),
        (
            "episode.round_interval_s".to_owned(),
            toml::Value::Float(ROUND_S),
        ),
        (
            "episode.max_rounds".to_owned(),
            toml::Value::Integer(MAX_ROUNDS),
        ),
    ])
}

/// Each optimiser at its tuned learning rate, by optimiser name.
fn optimizer_sets(tuned: &Tuned) -> BTreeMap<String, BTreeMap<String, toml::Value>> {
    OPTIMIZERS
        .iter()
        .map(|(name, _)| ((*name).into(), optimizer_set(name, tuned[*name])))
        .collect()
}

/// The chosen learning rate per optimiser.
type Tuned = BTreeMap<String, f64>;

struct Context<'a> {
    args: &'a ReproduceArgs,
    paper: PathBuf,
}

impl Context<'_> {
    fn seeds(&self) -> Vec<u64> {
        (0..self.args.seeds).collect()
    }

    fn sweep(&self, spec: &SweepSpec) -> anyhow::Result<Vec<Row>> {
        println!("sweep {}: {} episodes", spec.name, spec.grid().len());
        let rows = run_sweep(
            spec,
            &SweepOptions {
                out: self.args.out.join(&spec.name),
                shard: Shard::WHOLE,
                jobs: None,
            },
        )?;
        write_atomic(
            &self.args.out.join(&spec.name).join("spec.toml"),
            toml::to_string(spec)?.as_bytes(),
        )?;
        Ok(rows)
    }

    fn figure(&self, name: &str) -> anyhow::Result<PathBuf> {
        std::fs::create_dir_all(&self.args.figures)?;
        Ok(self.args.figures.join(name))
    }

    /// The figure's path as the document links it.
    fn link(&self, name: &str) -> String {
        let doc_dir = self.args.doc.parent().unwrap_or(Path::new(""));
        let fig = self.args.figures.join(name);
        fig.strip_prefix(doc_dir)
            .unwrap_or(&fig)
            .display()
            .to_string()
    }

    fn command(&self, target: &str) -> String {
        format!(
            "schedlab reproduce {target} --seeds {} --steps {}",
            self.args.seeds, self.args.steps
        )
    }
}

/// A metric's values over seeds for one policy and override set.
fn values(rows: &[Row], policy: &str, overrides: &str, metric: &str) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.key.policy == policy && r.key.overrides == overrides)
        .filter_map(|r| r.metrics.iter().find(|(n, _)| n == metric).map(|m| m.1))
        .collect()
}

/// `mean ± ci95` of values.
fn mean_ci(v: &[f64]) -> String {
    let s = summarize(v);
    format!("{} ± {}", number(s.mean), number(s.ci95))
}

fn mean(v: &[f64]) -> f64 {
    summarize(v).mean
}

/// Plays every optimiser at every rate of its grid on the tuning seeds and keeps, per
/// optimiser, the rate with the least mean virtual time to target (the time limit when missed).
fn tune(cx: &Context) -> anyhow::Result<(String, Tuned)> {
    let overrides = OPTIMIZERS
        .iter()
        .flat_map(|(opt, _)| {
            lr_grid(opt)
                .into_iter()
                .map(move |lr| (tuning_set_name(opt, lr), optimizer_set(opt, lr)))
        })
        .collect();
    let spec = SweepSpec {
        name: "tuning".into(),
        policies: vec!["static".into()],
        workloads: vec![cx.paper.clone()],
        seeds: TUNING_SEEDS.to_vec(),
        overrides,
        train: TrainSettings::default(),
    };
    let rows = cx.sweep(&spec)?;
    let mut tuned = Tuned::new();
    let mut text = format!(
        "## Learning rates (tuning)\n\nEach optimiser is compared at its own best learning rate, chosen on seeds {} (not the reported ones) by mean virtual time to target with static allocation on paper-10node; the chosen rate is in bold. Cells: mean virtual seconds to target (targets reached / episodes).\n\n| optimiser | {} |\n| --- | --- | --- | --- | --- |\n",
        TUNING_SEEDS.map(|s| s.to_string()).join(", "),
        (1..=4)
            .map(|k| format!("rate {k}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    for (opt, label) in OPTIMIZERS {
        let times: Vec<(f64, f64, usize, usize)> = lr_grid(opt)
            .into_iter()
            .map(|lr| {
                let set = tuning_set_name(opt, lr);
                let reached = values(&rows, "static", &set, "target_reached");
                (
                    lr,
                    mean(&values(&rows, "static", &set, "completion_time_s")),
                    reached.iter().filter(|&&r| r > 0.5).count(),
                    reached.len(),
                )
            })
            .collect();
        let best = times
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("a grid of four rates");
        tuned.insert(opt.to_owned(), best.0);
        let cells: Vec<String> = times
            .iter()
            .map(|&(lr, t, hit, n)| {
                let cell = format!("lr {lr}: {} ({hit}/{n})", number(t));
                if lr == best.0 {
                    format!("**{cell}**")
                } else {
                    cell
                }
            })
            .collect();
        text += &format!("| {label} | {} |\n", cells.join(" | "));
    }
    let at_edge: Vec<&str> = OPTIMIZERS
        .iter()
        .filter(|(opt, _)| {
            let grid = lr_grid(opt);
            tuned[*opt] == grid[0] || tuned[*opt] == grid[grid.len() - 1]
        })
        .map(|(_, label)| *label)
        .collect();
    if !at_edge.is_empty() {
        text += &format!(
            "\nThe rate chosen for {} is at the edge of its grid, so a rate beyond it might do better; the grids are kept small because an episode that diverges runs the full virtual hour at full update rate (minutes of real time each).\n",
            at_edge.join(" and ")
        );
    }
    text += "\n";
    Ok((text, tuned))
}

fn fig2(cx: &Context, tuned: &Tuned) -> anyhow::Result<String> {
    let spec = SweepSpec {
        name: "fig2".into(),
        policies: vec!["static".into()],
        workloads: vec![cx.paper.clone()],
        seeds: cx.seeds(),
        overrides: optimizer_sets(tuned),
        train: TrainSettings::default(),
    };
    let rows = cx.sweep(&spec)?;
    let paper = |opt: &str| match opt {
        HB_ASGD => "1,420",
        "adam" => "2,250",
        "sync_sgd" => "1,950",
        _ => "—",
    };
    let mut text = format!(
        "## Convergence (fig2)\n\n`{}` (static allocation on paper-10node; every optimiser trains the same model on the same data; {} seeds)\n\n\
         | optimiser | lr | paper: iterations to target (ImageNet) | iterations to target | virtual time to target (s) | virtual s per update | target reached | p (iterations vs HB-ASGD) |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
        cx.command("fig2"),
        cx.args.seeds
    );
    let base = values(&rows, "static", HB_ASGD, "iterations");
    for (opt, label) in OPTIMIZERS {
        let it = values(&rows, "static", opt, "iterations");
        let reached = values(&rows, "static", opt, "target_reached");
        let p = if opt == HB_ASGD {
            String::new()
        } else {
            p_text(welch(&it, &base).2)
        };
        text += &format!(
            "| {label} | {} | {} | {} | {} | {:.3} | {}/{} | {p} |\n",
            tuned[opt],
            paper(opt),
            mean_ci(&it),
            mean_ci(&values(&rows, "static", opt, "completion_time_s")),
            seconds_per_update(&rows, opt),
            reached.iter().filter(|&&r| r > 0.5).count(),
            reached.len()
        );
    }
    // convergence curves of seed 0
    let mut by_time = Vec::new();
    let mut by_iter = Vec::new();
    for (opt, label) in OPTIMIZERS {
        let scenario = Scenario::load_with_overrides(
            &cx.paper,
            &parse_overrides(&pairs(&optimizer_set(opt, tuned[opt])))?,
        )?;
        let mut env = ClusterEnv::new(scenario.clone());
        let ctx = schedlab_agents::PolicyContext::of(&env);
        let mut policy = schedlab_agents::by_name("static", ctx, &[])?;
        let mut curve = Vec::new();
        schedlab_agents::run_episode_observed(&mut env, policy.as_mut(), 0, |step| {
            curve.push((
                step.info.time_s,
                step.info.iterations as f64,
                step.info.val_loss,
            ));
        })?;
        by_time.push((label.to_owned(), curve.iter().map(|c| (c.0, c.2)).collect()));
        by_iter.push((label.to_owned(), curve.iter().map(|c| (c.1, c.2)).collect()));
    }
    plots::lines(
        &cx.figure("fig2-loss-vs-time.png")?,
        "Validation loss vs virtual time (seed 0)",
        ("virtual seconds (log scale)", "validation loss"),
        &by_time,
        XScale::Log,
    )?;
    plots::lines(
        &cx.figure("fig2-loss-vs-iterations.png")?,
        "Validation loss vs iterations (seed 0)",
        ("parameter-server updates", "validation loss"),
        &by_iter,
        XScale::Linear,
    )?;
    text += &format!(
        "\n![loss vs time]({})\n![loss vs iterations]({})\n\n",
        cx.link("fig2-loss-vs-time.png"),
        cx.link("fig2-loss-vs-iterations.png")
    );
    let by_iterations = ordered(&rows, "iterations");
    let by_time = ordered(&rows, "completion_time_s");
    let (hb_rate, async_rate) = (tuned[HB_ASGD], tuned["async_sgd"]);
    let rate_note = match hb_rate.total_cmp(&async_rate) {
        std::cmp::Ordering::Greater => format!(
            "which is consistent with tuning giving it the larger rate ({hb_rate} against {async_rate})"
        ),
        std::cmp::Ordering::Equal => format!("yet tuning chose the same rate for both ({hb_rate})"),
        std::cmp::Ordering::Less => {
            format!("although tuning gave it the smaller rate ({hb_rate} against {async_rate})")
        }
    };
    let (hb_pace, async_pace) = (
        seconds_per_update(&rows, HB_ASGD),
        seconds_per_update(&rows, "async_sgd"),
    );
    let pace_note = if hb_pace > async_pace {
        format!(
            "it therefore makes fewer, larger updates: {hb_pace:.3} virtual s per update against asynchronous SGD's {async_pace:.3}, whose fast workers push many small, fresh updates"
        )
    } else {
        format!(
            "yet it updates no slower than asynchronous SGD ({hb_pace:.3} against {async_pace:.3} virtual s per update)"
        )
    };
    let sync_note =
        if by_iterations[0].1 == "sync_sgd" && by_time.last().map(|o| o.1) == Some("sync_sgd") {
            "so it needs the fewest updates but the longest time".to_owned()
        } else {
            format!(
                "which costs it {} virtual s per update",
                number(seconds_per_update(&rows, "sync_sgd"))
            )
        };
    text += &format!(
        "**Where it differs.** The paper trains ResNet on ImageNet for thousands of iterations; here an MLP trains on 4,000 real MNIST digits to a fixed validation loss, so only orderings compare, not counts. The paper's order by iterations is HB-ASGD < synchronous SGD < Adam. Here, by iterations: {}; by virtual time: {}.\n\n\
         Three mechanisms of the simulated loop bear on this. (1) HB-ASGD weighs a gradient that is k updates stale by β^k (β = 0.8) and drops it beyond τ = 8; with ten asynchronous workers most gradients are several updates stale, so at equal rates its updates move less than plain asynchronous SGD's, {rate_note}. (2) Its hierarchical batch gives fast workers proportionally larger batches, so that every worker takes about the average time per iteration; {pace_note}. (3) Synchronous SGD applies one averaged update per step and waits for the slowest container each step (the CPU nodes under background load), {sync_note}. The SGD rate grid stops at 0.4 because in probes outside this command (seeds 0–2) plain asynchronous SGD at 0.8 never reached the target within the hour, while HB-ASGD did in two of three: on this workload the staleness weighting buys robustness at large rates rather than speed at tuned ones.\n\n",
        ranked(&by_iterations),
        ranked(&by_time),
    );
    Ok(text)
}

/// Mean virtual seconds per parameter-server update of an optimiser's episodes.
fn seconds_per_update(rows: &[Row], optimizer: &str) -> f64 {
    let time = values(rows, "static", optimizer, "completion_time_s");
    let updates = values(rows, "static", optimizer, "iterations");
    let per: Vec<f64> = time
        .iter()
        .zip(&updates)
        .filter(|(_, u)| **u > 0.0)
        .map(|(t, u)| t / u)
        .collect();
    mean(&per)
}

/// The optimisers by a metric's mean, smallest first: (mean, name, label).
fn ordered(rows: &[Row], metric: &str) -> Vec<(f64, &'static str, &'static str)> {
    let mut order: Vec<_> = OPTIMIZERS
        .iter()
        .map(|&(opt, label)| (mean(&values(rows, "static", opt, metric)), opt, label))
        .collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    order
}

/// `A (1) < B (2) < ...`
fn ranked(order: &[(f64, &str, &str)]) -> String {
    order
        .iter()
        .map(|(v, _, label)| format!("{label} ({})", number(*v)))
        .collect::<Vec<_>>()
        .join(" < ")
}

fn table1(cx: &Context, tuned: &Tuned) -> anyhow::Result<String> {
    let policies = ["static", "periodic", "raes", "train:dqn", "train:ppo"];
    let spec = SweepSpec {
        name: "table1".into(),
        policies: policies.iter().map(|p| p.to_string()).collect(),
        workloads: vec![cx.paper.clone()],
        seeds: cx.seeds(),
        overrides: BTreeMap::from([(HB_ASGD.to_owned(), optimizer_set(HB_ASGD, tuned[HB_ASGD]))]),
        train: TrainSettings {
            steps: cx.args.steps,
            ..TrainSettings::default()
        },
    };
    let rows = cx.sweep(&spec)?;
    let paper = |p: &str| match p {
        "static" => ("61.2%", "34.7%"),
        "periodic" => ("75.3%", "18.9%"),
        "raes" => ("89.4%", "6.5%"),
        _ => ("—", "—"),
    };
    let mut text = format!(
        "## Resource use (table1)\n\n`{}` (paper-10node, {} seeds; `train:*` trained {} rounds on the same workload first; p: Welch against static)\n\n\
         | policy | paper: GPU utilisation | GPU utilisation | p | paper: fragmentation | fragmentation | p | occupancy |\n| --- | --- | --- | --- | --- | --- | --- | --- |\n",
        cx.command("table1"),
        cx.args.seeds,
        cx.args.steps
    );
    let mut util_bars = Vec::new();
    let mut frag_bars = Vec::new();
    for p in policies {
        let util = values(&rows, p, HB_ASGD, "gpu_util");
        let frag = values(&rows, p, HB_ASGD, "fragmentation");
        let (pu, pf) = if p == "static" {
            (String::new(), String::new())
        } else {
            (
                p_text(welch(&util, &values(&rows, "static", HB_ASGD, "gpu_util")).2),
                p_text(welch(&frag, &values(&rows, "static", HB_ASGD, "fragmentation")).2),
            )
        };
        let (paper_util, paper_frag) = paper(p);
        text += &format!(
            "| {p} | {paper_util} | {} | {pu} | {paper_frag} | {} | {pf} | {} |\n",
            mean_ci(&util),
            mean_ci(&frag),
            mean_ci(&values(&rows, p, HB_ASGD, "occupancy"))
        );
        let label = p.trim_start_matches("train:").to_owned();
        util_bars.push((label.clone(), mean(&util), summarize(&util).ci95));
        frag_bars.push((label, mean(&frag), summarize(&frag).ci95));
    }
    plots::bars(
        &cx.figure("table1-gpu-util.png")?,
        "GPU utilisation (paper-10node)",
        "gpu_util",
        &util_bars,
    )?;
    plots::bars(
        &cx.figure("table1-fragmentation.png")?,
        "Fragmentation (paper-10node)",
        "fragmentation",
        &frag_bars,
    )?;
    training_curves(cx, &spec)?;
    text += &format!(
        "\n![GPU utilisation]({})\n![fragmentation]({})\n![training]({})\n\n",
        cx.link("table1-gpu-util.png"),
        cx.link("table1-fragmentation.png"),
        cx.link("table1-training.png")
    );

    // the same schedulers' families on a real trace: the jobs cluster
    let mini = shipped_workload("philly-mini.toml");
    let jobs_policies = ["static", "periodic", "pollux", "raes", "las", "fifo"];
    let jobs_spec = SweepSpec {
        name: "table1-jobs".into(),
        policies: jobs_policies.iter().map(|p| p.to_string()).collect(),
        workloads: vec![mini.clone()],
        seeds: cx.seeds(),
        overrides: BTreeMap::new(),
        train: TrainSettings::default(),
    };
    let jobs_rows = cx.sweep(&jobs_spec)?;
    text += &format!(
        "On the jobs cluster (philly-mini: 82 Philly jobs on 8 PAI machines, {} seeds; p: Welch against static):\n\n\
         | policy | GPU occupancy | p | fragmentation | p | mean JCT (s) | p |\n| --- | --- | --- | --- | --- | --- | --- |\n",
        cx.args.seeds
    );
    for p in jobs_policies {
        let mut cells = Vec::new();
        for m in ["gpu_occupancy", "fragmentation", "jct_avg_s"] {
            let v = values(&jobs_rows, p, "default", m);
            cells.push(mean_ci(&v));
            cells.push(if p == "static" {
                String::new()
            } else {
                p_text(welch(&v, &values(&jobs_rows, "static", "default", m)).2)
            });
        }
        text += &format!("| {p} | {} |\n", cells.join(" | "));
    }
    let jobs = crate::jobs::load(&mini)?;
    let samples = jobs_policies
        .iter()
        .map(|p| Ok((p.to_string(), completion_hours(&jobs, p, 0)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    plots::cdfs(
        &cx.figure("table1-jobs-jct-cdf.png")?,
        "Job completion times, philly-mini (seed 0)",
        ("JCT (hours, log scale)", "share of jobs"),
        &samples,
        XScale::Log,
    )?;
    text += &format!("\n![JCT CDF]({})\n\n", cx.link("table1-jobs-jct-cdf.png"));
    let util = |p: &str| 100.0 * mean(&values(&rows, p, HB_ASGD, "gpu_util"));
    let frag = |p: &str| 100.0 * mean(&values(&rows, p, HB_ASGD, "fragmentation"));
    let most_fragmented = ["static", "periodic", "raes"]
        .into_iter()
        .map(frag)
        .fold(0.0, f64::max);
    text += &format!(
        "**Where it differs.** The paper measures a shared GPU cluster running many jobs; the single-job env measures one job's containers (HB-ASGD at its tuned rate), so utilisation is how busy the allocated GPUs are: static {:.1}%, periodic {:.1}%, RAES {:.1}% against the paper's 61.2 / 75.3 / 89.4%. Fragmentation is free capacity stranded by the job's allocation and the background load; with one job most of the cluster is simply free rather than stranded, so it stays at or below {most_fragmented:.1}% for the three heuristics against the paper's 6.5–34.7%. The jobs-cluster rows are the closer analogue: occupancy and fragmentation there come from real Philly arrivals competing for 8 machines, and the elastic schedulers (periodic, pollux, raes) raise GPU occupancy over static, as in the paper, at a few points more fragmentation. After {} rounds of training each, DQN reaches {:.1}% GPU utilisation and PPO {:.1}% (training curves above).\n\n",
        util("static"),
        util("periodic"),
        util("raes"),
        cx.args.steps,
        util("train:dqn"),
        util("train:ppo"),
    );
    Ok(text)
}

/// The learned agents' episodic return while they trained, from their TensorBoard files.
fn training_curves(cx: &Context, spec: &SweepSpec) -> anyhow::Result<()> {
    let runs = cx.args.out.join(&spec.name).join("runs").join(HB_ASGD);
    let workload_name = schedlab_env::Workload::load(&cx.paper)?.name;
    let mut curves = Vec::new();
    for agent in ["dqn", "ppo"] {
        let run = latest_run(&runs, &workload_name, agent, spec.train.seed)
            .with_context(|| format!("no {agent} run in {}", runs.display()))?;
        let scalars = read_scalars(&run)?;
        let points: Vec<(f64, f64)> = scalars
            .by_tag
            .get("charts/episodic_return")
            .with_context(|| format!("{}: no episodic returns", run.display()))?
            .iter()
            .map(|&(step, v)| (step as f64, v))
            .collect();
        curves.push((
            agent.to_owned(),
            plots::moving_average(&points, TRAINING_SMOOTHING),
        ));
    }
    plots::lines(
        &cx.figure("table1-training.png")?,
        &format!(
            "Training on paper-10node: episodic return (mean of the last {TRAINING_SMOOTHING} episodes)"
        ),
        ("env rounds", "episodic return"),
        &curves,
        XScale::Linear,
    )
}

/// Episodes averaged per point of the training curves.
const TRAINING_SMOOTHING: usize = 20;

fn table2(cx: &Context, tuned: &Tuned) -> anyhow::Result<String> {
    let spec = SweepSpec {
        name: "table2".into(),
        policies: vec!["static".into(), "periodic".into(), "raes".into()],
        workloads: vec![cx.paper.clone()],
        seeds: cx.seeds(),
        overrides: optimizer_sets(tuned),
        train: TrainSettings::default(),
    };
    let rows = cx.sweep(&spec)?;
    let combos = [
        ("Adam + static", "adam", "static", 15.2),
        ("synchronous SGD + periodic", "sync_sgd", "periodic", 13.8),
        ("asynchronous SGD + static", "async_sgd", "static", 12.1),
        ("HB-ASGD + RAES", HB_ASGD, "raes", 9.8),
        ("HB-ASGD alone (+ static)", HB_ASGD, "static", 12.3),
        ("RAES alone (+ asynchronous SGD)", "async_sgd", "raes", 11.9),
    ];
    let ours = values(&rows, "raes", HB_ASGD, "completion_time_s");
    let mut text = format!(
        "## End to end (table2)\n\n`{}` (paper-10node, {} seeds; completion time = virtual seconds to the target loss; ratios to HB-ASGD + RAES; p: Welch against HB-ASGD + RAES)\n\n\
         | configuration | paper (h) | paper ratio | completion time (s) | ratio | p |\n| --- | --- | --- | --- | --- | --- |\n",
        cx.command("table2"),
        cx.args.seeds
    );
    for (label, opt, policy, hours) in combos {
        let v = values(&rows, policy, opt, "completion_time_s");
        let p = if (opt, policy) == (HB_ASGD, "raes") {
            String::new()
        } else {
            p_text(welch(&v, &ours).2)
        };
        text += &format!(
            "| {label} | {hours} | {:.2} | {} | {:.2} | {p} |\n",
            hours / 9.8,
            mean_ci(&v),
            mean(&v) / mean(&ours)
        );
    }
    let time = |policy: &str, opt: &str| mean(&values(&rows, policy, opt, "completion_time_s"));
    let best = combos
        .iter()
        .min_by(|a, b| time(a.2, a.1).total_cmp(&time(b.2, b.1)))
        .expect("six configurations");
    let effect = |optimizer: &str, label: &str| {
        let (with, without) = (time("raes", optimizer), time("static", optimizer));
        let p = welch(
            &values(&rows, "raes", optimizer, "completion_time_s"),
            &values(&rows, "static", optimizer, "completion_time_s"),
        )
        .2;
        if with < without {
            format!(
                "shortens {label}'s time to target by {:.0}% ({})",
                100.0 * (1.0 - with / without),
                p_text(p)
            )
        } else {
            format!(
                "lengthens {label}'s time to target by {:.0}% ({})",
                100.0 * (with / without - 1.0),
                p_text(p)
            )
        }
    };
    let fastest_optimizer = ordered(&rows, "completion_time_s")[0].2;
    text += &format!(
        "\nThe full grid (every optimiser with static, periodic and raes) is in `{}/table2/results.csv`.\n\n**Where it differs.** The paper's times are hours of ImageNet training on a GPU cluster; these are virtual seconds of a small model on a simulated 10-node cluster, so only ratios compare, and with {} seeds the intervals are wide. Here the fastest configuration is {}. RAES instead of static allocation {} and {}; in the paper RAES shortens HB-ASGD's time by 20% (12.3 to 9.8 h) and asynchronous SGD's by 2% (12.1 to 11.9 h). Each optimiser runs at its tuned rate (see the tuning section), so the optimiser rows inherit fig2's ordering, in which {fastest_optimizer} is fastest on this workload; HB-ASGD's advantage in the paper does not carry over to this small model (fig2 gives the mechanisms).\n\n",
        cx.args.out.display(),
        cx.args.seeds,
        best.0,
        effect(HB_ASGD, "HB-ASGD"),
        effect("async_sgd", "asynchronous SGD"),
    );
    Ok(text)
}

const SECTIONS: [&str; 4] = ["tuning", "fig2", "table1", "table2"];

pub fn run(args: ReproduceArgs) -> anyhow::Result<()> {
    let cx = Context {
        paper: shipped_workload("paper-10node.toml"),
        args: &args,
    };
    let targets: Vec<&str> = match args.target {
        Target::Fig2 => vec!["fig2"],
        Target::Table1 => vec!["table1"],
        Target::Table2 => vec!["table2"],
        Target::All => vec!["fig2", "table1", "table2"],
    };
    let (section, tuned) = tune(&cx)?;
    write_atomic(&args.out.join("tuning.md"), section.as_bytes())?;
    for target in targets {
        let section = match target {
            "fig2" => fig2(&cx, &tuned)?,
            "table1" => table1(&cx, &tuned)?,
            _ => table2(&cx, &tuned)?,
        };
        write_atomic(&args.out.join(format!("{target}.md")), section.as_bytes())?;
    }
    let mut doc = format!(
        "# Experiments\n\nThe workbench's versions of the reference paper's results, regenerated by `schedlab reproduce` (release build, this repository's shipped workloads). Every number below is what the command printed into this file; mean ± 95% confidence half-width over seeds; p-values are Welch's two-sided t-test. The single-job sections run paper-10node with scheduling rounds of {ROUND_S} virtual seconds (`episode.round_interval_s = {ROUND_S}`, `episode.max_rounds = {MAX_ROUNDS}`, still one virtual hour): at tuned rates the job reaches its target in 10–30 virtual seconds, so with the shipped 30 s rounds every policy would make one and the same single decision.\n\n",
    );
    for section in SECTIONS {
        if let Ok(text) = std::fs::read_to_string(args.out.join(format!("{section}.md"))) {
            doc += &text;
        }
    }
    write_atomic(&args.doc, doc.as_bytes())?;
    println!(
        "wrote {} and figures in {}",
        args.doc.display(),
        args.figures.display()
    );
    Ok(())
}
