//! dag: the DAG schedulers against WORL-RTGS (Du et al. 2025) on generated DAGs of growing
//! size, heterogeneity and bandwidth and on real Alibaba DAGs; the SPD-FTG correlation on real
//! DAGs; WOA's and WORL-RTGS's spread over search seeds; plan wall times.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use rand::SeedableRng;
use rand::rngs::StdRng;
use schedlab_agents::dag::Decoder;
use schedlab_agents::dag::heft;
use schedlab_agents::dag::plan_distance::{pearson, perturbation_pairs, spearman};
use schedlab_env::dag::DagWorkload;

use super::cached_training::{Trained, Training, reused_note, trained};
use super::context::{Context, mean, mean_ci, paired_p, values};
use super::learned_bar::compare;
use super::protocol::{DagProtocol, LearnedRun};
use crate::output::p_text;
use crate::paths::shipped_workload;
use crate::play::play;
use crate::plots::{self, XScale};
use crate::stats::{summarize, wilcoxon};
use crate::sweep::journal::Row;
use crate::sweep::spec::{SweepSpec, TrainSettings};
use crate::workloads::{Dag, Loaded};

const MAKESPAN: &str = "makespan_s";

/// One axis of the study: a sweep over override sets of the generated workload.
struct Axis {
    name: &'static str,
    label: &'static str,
    /// How the headline names a setting of the axis.
    short: &'static str,
    key: &'static str,
    points: Vec<f64>,
}

impl Axis {
    fn variant(&self, x: f64) -> String {
        format!("{}={x}", self.key)
    }
}

/// The key of the generated DAGs' task count, set on every axis but the size one.
const TASKS_KEY: &str = "dags.layered.tasks";

/// The section's three axes: DAG size, GPU heterogeneity, inter-machine bandwidth.
fn axes(p: &DagProtocol) -> [Axis; 3] {
    [
        Axis {
            name: "size",
            label: "tasks",
            short: "tasks",
            key: TASKS_KEY,
            points: p.tasks.iter().map(|&t| t as f64).collect(),
        },
        Axis {
            name: "heterogeneity",
            label: "heterogeneity (speed exponent)",
            short: "heterogeneity",
            key: "platform.heterogeneity",
            points: p.heterogeneity.clone(),
        },
        Axis {
            name: "bandwidth",
            label: "inter-machine MB/s",
            short: "MB/s",
            key: "platform.inter_mbps",
            points: p.inter_mbps.clone(),
        },
    ]
}

/// The section's heading and what it plays.
fn intro(cx: &Context, p: &DagProtocol) -> String {
    format!(
        "## DAG workloads on heterogeneous GPUs, WORL-RTGS (dag)\n\n`{}` ({} seeds per cell, mean ± 95% CI of the makespan in seconds; p against {} on the same instances: Wilcoxon signed-rank; paired t). Generated DAGs are `{}` (layered, {} tasks unless the axis varies it, CCR 1, 16 GPUs of four types); real DAGs are `{}`. WORL-RTGS's guide (`{}`, data/policies/README.md) was trained on {}. Rows named by a learner of the protocol (`[[dag.learners]]`, such as `DDQN from scratch (seed 1)`) are trained by this section from each of their seeds, without a teacher, on `{}` or the workload the learner names (`dag-mixed.toml`: generated DAGs and real ones of the slice's days 0-3, half each); its output folder keeps the runs. GA, WOA and WORL-RTGS have {} plan evaluations each (WORL-RTGS's guide episodes count one each). The paper reports up to {}% shorter completion times than five published schedulers on Alibaba DAGs; only its abstract is at hand.\n\n",
        cx.command("dag"),
        cx.args.seeds,
        p.reference,
        p.workload,
        p.sweep_tasks,
        p.trace_workload,
        p.guide,
        p.guide_trained_on,
        p.workload,
        p.evaluations,
        p.paper_reduction_percent,
    )
}

pub fn dag(cx: &Context) -> anyhow::Result<String> {
    let p = &cx.protocol.dag;
    let generated = shipped_workload(&p.workload);
    let tasks_key = TASKS_KEY;
    let axes = axes(p);
    let mut text = intro(cx, p);
    let trained = p
        .learners
        .iter()
        .flat_map(|learner| learner.seeds.iter().map(move |&seed| (learner, seed)))
        .map(|(learner, seed)| train(cx, &generated, learner, seed))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut labels: Labels = p
        .policies
        .iter()
        .map(|name| (budgeted(name, p), name.clone()))
        .collect();
    labels.extend(trained.iter().flat_map(Trained::rows));
    let policies: Vec<String> = labels.iter().map(|(spec, _)| spec.clone()).collect();
    let mut cells: Vec<Cell> = Vec::new();
    for axis in &axes {
        let overrides = axis
            .points
            .iter()
            .map(|&x| {
                let mut set = BTreeMap::from([(axis.key.to_owned(), toml_number(axis.key, x))]);
                if axis.key != tasks_key {
                    set.insert(
                        tasks_key.to_owned(),
                        toml::Value::Integer(p.sweep_tasks as i64),
                    );
                }
                (axis.variant(x), set)
            })
            .collect();
        let rows = cx.sweep(&SweepSpec {
            name: format!("dag-{}", axis.name),
            policies: policies.clone(),
            workloads: vec![generated.clone()],
            seeds: cx.seeds(),
            overrides,
            train: TrainSettings::default(),
        })?;
        text += &axis_table(cx, p, axis, &rows, &labels)?;
        for &x in &axis.points {
            let name = format!("{} {x}", axis.short);
            cells.push(Cell::of(&rows, &labels, &axis.variant(x), name));
        }
    }
    let trace_rows = cx.sweep(&SweepSpec {
        name: "dag-alibaba".into(),
        policies: policies.clone(),
        workloads: vec![shipped_workload(&p.trace_workload)],
        seeds: cx.seeds(),
        overrides: BTreeMap::new(),
        train: TrainSettings::default(),
    })?;
    text += &trace_table(p, &trace_rows, &labels);
    let trace_name = p.trace_workload.trim_end_matches(".toml").to_owned();
    cells.push(Cell::of(&trace_rows, &labels, "default", trace_name));
    text += &headline(p, &labels, &cells);
    let reused = reused_note(&trained);
    if !reused.is_empty() {
        text += &format!("{}\n\n", reused.trim_start());
    }
    text += &against_baseline(
        (&p.bar_baseline, &p.bar_settings),
        &labels,
        &cells,
        &trained,
    )?;
    text += &correlation(cx, p)?;
    text += &stability(cx, p, &generated)?;
    text += &wall_times(p, &generated)?;
    Ok(text)
}

/// The display name of each policy spec, in row order: a protocol scheduler's plain name, a
/// trained run's learner label and seed.
type Labels = Vec<(String, String)>;

/// Trains `learner` from `seed` on its workload (the generated one unless it names another)
/// into the section's own folder, or
/// returns the finished or resumed run there (`cached_training`); the sweeps that played a
/// retrained run forget its rows.
fn train<'a>(
    cx: &Context,
    generated: &Path,
    learner: &'a LearnedRun,
    seed: u64,
) -> anyhow::Result<Trained<'a>> {
    let stale = ["size", "heterogeneity", "bandwidth", "alibaba"]
        .map(|axis| cx.args.out.join(format!("dag-{axis}")))
        .to_vec();
    let family = learner
        .workload
        .as_deref()
        .map_or_else(|| generated.to_owned(), shipped_workload);
    trained(
        &Training {
            section: "dag",
            family: &family,
            root: cx.args.out.join("dag").join("runs"),
            eval_episodes: cx.protocol.dag.train_eval_episodes,
            stale,
            reuse: cx.args.reuse_runs,
        },
        learner,
        seed,
    )
}

/// A scheduler spec with the protocol's evaluation budget where it takes one, and WORL-RTGS's
/// guide named, so a sweep's rows say which guide played them.
fn budgeted(name: &str, p: &DagProtocol) -> String {
    match name {
        "worl-rtgs" => format!("{name}:evaluations={}:guide={}", p.evaluations, p.guide),
        "ga" | "woa" => format!("{name}:evaluations={}", p.evaluations),
        _ => name.to_owned(),
    }
}

/// The plain name of a spec (`woa:evaluations=3000` is `woa`).
fn short(spec: &str) -> &str {
    spec.split(':').next().unwrap_or(spec)
}

fn toml_number(key: &str, x: f64) -> toml::Value {
    if key.ends_with("tasks") {
        toml::Value::Integer(x as i64)
    } else {
        toml::Value::Float(x)
    }
}

/// The makespans of one setting, per scheduler.
struct Cell {
    name: String,
    by_policy: BTreeMap<String, Vec<f64>>,
}

impl Cell {
    fn of(rows: &[Row], labels: &Labels, variant: &str, name: String) -> Cell {
        let by_policy = labels
            .iter()
            .map(|(spec, label)| (label.clone(), values(rows, spec, variant, MAKESPAN)))
            .collect();
        Cell { name, by_policy }
    }
}

/// The spec of the protocol scheduler `name`.
fn spec_of<'a>(labels: &'a Labels, name: &str) -> &'a str {
    labels
        .iter()
        .find(|(_, label)| label == name)
        .map(|(spec, _)| spec.as_str())
        .expect("the protocol names its reference among its policies")
}

/// `mean ± ci (p)` per scheduler and point of an axis, its figure, and a line on the order.
fn axis_table(
    cx: &Context,
    p: &DagProtocol,
    axis: &Axis,
    rows: &[Row],
    labels: &Labels,
) -> anyhow::Result<String> {
    let header: Vec<String> = axis.points.iter().map(|x| x.to_string()).collect();
    let mut text = format!(
        "### Makespan against {}\n\n| scheduler | {} |\n| --- |{}\n",
        axis.label,
        header.join(" | "),
        " --- |".repeat(header.len())
    );
    let reference = spec_of(labels, &p.reference);
    let mut series = Vec::new();
    for (spec, label) in labels {
        let mut cells = Vec::new();
        let mut line = Vec::new();
        for &x in &axis.points {
            let variant = axis.variant(x);
            let v = values(rows, spec, &variant, MAKESPAN);
            let ours = values(rows, reference, &variant, MAKESPAN);
            let pv = if spec == reference {
                String::new()
            } else {
                format!(" ({})", paired_p(&v, &ours).cell())
            };
            cells.push(format!("{}{pv}", mean_ci(&v)));
            line.push((x, mean(&v)));
        }
        text += &format!("| {label} | {} |\n", cells.join(" | "));
        series.push((label.clone(), line));
    }
    let figure = format!("dag-{}.png", axis.name);
    let scale = if axis.name == "bandwidth" {
        XScale::Log
    } else {
        XScale::Linear
    };
    plots::lines(
        &cx.figure(&figure)?,
        &format!("Makespan against {}", axis.label),
        (axis.label, "makespan (s)"),
        &series,
        scale,
    )?;
    text += &format!(
        "\n![makespan against {}]({})\n\n",
        axis.label,
        cx.link(&figure)
    );
    Ok(text)
}

fn trace_table(p: &DagProtocol, rows: &[Row], labels: &Labels) -> String {
    let reference = spec_of(labels, &p.reference);
    let ours = values(rows, reference, "default", MAKESPAN);
    let mut text = format!(
        "### Real DAGs: `{}`\n\nEpisodes hold consecutive Alibaba jobs of very different lengths, so makespans spread widely between instances; SLR (makespan over the critical-path bound) and the ratio to {}'s makespan on the same instance compare schedulers within an instance.\n\n| scheduler | makespan (s) | SLR | makespan / {}'s, same instance | p (makespan; Wilcoxon; paired t) |\n| --- | --- | --- | --- | --- |\n",
        p.trace_workload, p.reference, p.reference
    );
    for (spec, label) in labels {
        let v = values(rows, spec, "default", MAKESPAN);
        let pv = if spec == reference {
            String::new()
        } else {
            paired_p(&v, &ours).cell()
        };
        // rows come in grid order: both lists are in seed order
        let ratio: Vec<f64> = v.iter().zip(&ours).map(|(m, o)| m / o).collect();
        text += &format!(
            "| {label} | {} | {} | {} | {pv} |\n",
            mean_ci(&v),
            mean_ci(&values(rows, spec, "default", "slr")),
            mean_ci(&ratio)
        );
    }
    text + "\n"
}

/// WORL-RTGS's reduction of the mean makespan against each baseline: the largest over the
/// settings (the paper's "up to") and the mean, with the settings where it is behind.
fn headline(p: &DagProtocol, labels: &Labels, cells: &[Cell]) -> String {
    let mut text = format!(
        "### Headline\n\nReduction of the mean makespan by {} against each baseline, over the {} settings above (each size, heterogeneity, bandwidth and the real DAGs): the largest (the paper's \"up to\" reads this way), the mean, and the settings where {} is the longer.\n\n| baseline | set | largest reduction | mean reduction | settings where {} is longer |\n| --- | --- | --- | --- | --- |\n",
        p.reference,
        cells.len(),
        p.reference,
        p.reference
    );
    // per set: the largest reduction, against whom, where
    let mut by_set: BTreeMap<&str, (f64, &str, &str)> = BTreeMap::new();
    let mut behind_first = (0, 0.0, "");
    for (_, name) in labels {
        let name = name.as_str();
        if name == p.reference {
            continue;
        }
        let reductions: Vec<(f64, &str)> = cells
            .iter()
            .map(|c| {
                let ours = mean(&c.by_policy[p.reference.as_str()]);
                (1.0 - ours / mean(&c.by_policy[name]), c.name.as_str())
            })
            .collect();
        let (largest, where_largest) = reductions
            .iter()
            .copied()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .expect("settings");
        let behind: Vec<&str> = reductions
            .iter()
            .filter(|r| r.0 < 0.0)
            .map(|r| r.1)
            .collect();
        let set = p
            .baseline_sets
            .iter()
            .find(|(_, members)| members.iter().any(|m| m == name))
            .map_or("", |(set, _)| set.as_str());
        let entry = by_set.entry(set).or_insert((f64::MIN, "", ""));
        if largest > entry.0 {
            *entry = (largest, name, where_largest);
        }
        let mean_reduction = summarize(&reductions.iter().map(|r| r.0).collect::<Vec<_>>()).mean;
        if behind.len() > behind_first.0 {
            behind_first = (behind.len(), mean_reduction, name);
        }
        text += &format!(
            "| {name} | {set} | {:.1}% | {:.1}% | {} |\n",
            100.0 * largest,
            100.0 * mean_reduction,
            if behind.is_empty() {
                "none".to_owned()
            } else {
                behind.join(", ")
            }
        );
    }
    text + &headline_summary(p, cells, &by_set, behind_first)
}

/// The headline's closing paragraph: the largest reduction per baseline set, who is fastest
/// in each setting, and where the reference is behind (`behind_first`: the baseline it
/// trails in the most settings, with its mean reduction).
fn headline_summary(
    p: &DagProtocol,
    cells: &[Cell],
    by_set: &BTreeMap<&str, (f64, &str, &str)>,
    behind_first: (usize, f64, &str),
) -> String {
    // who has the shortest mean makespan in each setting
    let mut wins: BTreeMap<&str, usize> = BTreeMap::new();
    for c in cells {
        let best = c
            .by_policy
            .iter()
            .min_by(|a, b| mean(a.1).total_cmp(&mean(b.1)))
            .map(|(name, _)| name.as_str())
            .expect("schedulers");
        *wins.entry(best).or_default() += 1;
    }
    let wins: Vec<String> = wins
        .iter()
        .map(|(name, n)| format!("{name} in {n}"))
        .collect();
    let sets: Vec<String> = by_set
        .iter()
        .map(|(set, (r, name, at))| format!("{set} {:.1}% ({name}, {at})", 100.0 * r))
        .collect();
    format!(
        "\nLargest reduction per baseline set: {}; the paper reports up to {}% against five published schedulers. The shortest mean makespan per setting: {} of the {} settings. {}\n\n",
        sets.join("; "),
        p.paper_reduction_percent,
        wins.join(", "),
        cells.len(),
        if behind_first.0 > 0 {
            let mean_change = -100.0 * behind_first.1;
            format!(
                "{} is behind {} in {} of the {} settings ({:.1}% {} on average over all of them).",
                p.reference,
                behind_first.2,
                behind_first.0,
                cells.len(),
                mean_change.abs(),
                if mean_change > 0.0 {
                    "longer"
                } else {
                    "shorter"
                },
            )
        } else {
            format!(
                "{} is ahead of every baseline in every setting.",
                p.reference
            )
        }
    )
}

/// Every scheduler against `base` on the same instances, pooled over the settings
/// above, as rliable recommends (Agarwal et al., NeurIPS 2021): the geometric mean of the
/// per-instance makespan ratios, their IQM with a stratified bootstrap 95% CI (settings as
/// strata), the probability of a shorter makespan, and the Wilcoxon signed-rank p on log
/// makespans (scale-free across settings); then the geometric-mean ratio in each setting the
/// bar reads, and which learned rows meet it.
fn against_baseline(
    (base, bar_settings): (&str, &[String]),
    labels: &Labels,
    cells: &[Cell],
    trained: &[Trained],
) -> anyhow::Result<String> {
    let bar_cells = bar_settings
        .iter()
        .map(|name| {
            cells
                .iter()
                .find(|c| &c.name == name)
                .with_context(|| format!("dag.bar_settings: no setting `{name}`"))
        })
        .collect::<anyhow::Result<Vec<&Cell>>>()?;
    let by_instance = |label: &str| by_instance(cells, label);
    let reference = by_instance(base);
    let mut text = format!(
        "### Against {base}, paired on the same instances

Every scheduler over the {} settings above ({} instances each), each instance's makespan over {base}'s: geometric mean of the ratios, IQM with a stratified bootstrap 95% CI (settings as strata), the probability that an instance's makespan is the shorter, instances shorter / longer, and the two-sided Wilcoxon signed-rank p on log makespans; then the geometric-mean ratio in each setting issue 36's DAG bar reads. The bar: a learned scheduler trained from scratch below 1 in each of those settings. Learned rows trained by this section give their wall time.\n\n| scheduler | trained (s) | geo-mean ratio | IQM ratio [95% CI] | P(shorter) | shorter / longer | Wilcoxon p | {} |\n| --- | --- | --- | --- | --- | --- | --- |{}\n",
        cells.len(),
        cells.first().map_or(0, |c| c.by_policy[base].len()),
        bar_settings.join(" | "),
        " --- |".repeat(bar_settings.len()),
    );
    let mut meeting = Vec::new();
    let mut closest: Option<(f64, String)> = None;
    for (_, label) in labels.iter().filter(|(_, label)| label != base) {
        let row = by_instance(label);
        let paired = compare(&row, &reference);
        let (a, b): (Vec<f64>, Vec<f64>) = row
            .iter()
            .filter_map(|(key, &x)| reference.get(key).map(|&y| (x.ln(), y.ln())))
            .unzip();
        let per_setting: Vec<f64> = bar_cells
            .iter()
            .map(|c| geo_ratio(&c.by_policy[label.as_str()], &c.by_policy[base]))
            .collect();
        let seconds = trained
            .iter()
            .find(|t| t.rows().iter().any(|(_, row)| row == label))
            .map(|t| t.seconds);
        if seconds.is_some() {
            let worst = per_setting.iter().copied().fold(f64::MIN, f64::max);
            if worst < 1.0 {
                meeting.push(label.clone());
            }
            if closest.as_ref().is_none_or(|(w, _)| worst < *w) {
                closest = Some((worst, label.clone()));
            }
        }
        text += &format!(
            "| {label} | {} | {:.3} | {:.3} [{:.3}, {:.3}] | {:.2} | {} / {} | {} | {} |\n",
            seconds.map_or(String::new(), |s| format!("{s:.0}")),
            (mean(&a) - mean(&b)).exp(),
            paired.iqm_ratio,
            paired.ci.0,
            paired.ci.1,
            paired.improvement,
            paired.lower,
            paired.higher,
            p_text(wilcoxon(&a, &b)),
            per_setting
                .iter()
                .map(|r| format!("{r:.3}"))
                .collect::<Vec<_>>()
                .join(" | "),
        );
    }
    text += &bar_verdict(base, &meeting, closest);
    Ok(text)
}

/// `label`'s makespan by (setting, instance seed); each setting's makespans are in seed
/// order.
fn by_instance(cells: &[Cell], label: &str) -> BTreeMap<(String, u64), f64> {
    cells
        .iter()
        .flat_map(|c| {
            c.by_policy[label]
                .iter()
                .enumerate()
                .map(|(seed, &m)| ((c.name.clone(), seed as u64), m))
        })
        .collect()
}

/// The geometric mean of the ratios of `a` to `b`, pairwise.
fn geo_ratio(a: &[f64], b: &[f64]) -> f64 {
    let logs: Vec<f64> = a.iter().zip(b).map(|(x, y)| (x / y).ln()).collect();
    mean(&logs).exp()
}

/// Which learned rows meet the DAG bar against `base`, or the closest and how far it is.
fn bar_verdict(base: &str, meeting: &[String], closest: Option<(f64, String)>) -> String {
    match (meeting.is_empty(), closest) {
        (false, _) => format!(
            "\nMeets the DAG bar against {base}: {}.\n\n",
            meeting.join(", ")
        ),
        (true, Some((worst, label))) => format!(
            "\nNo learned row meets the DAG bar against {base}; the closest, {label}, is at {worst:.3}x {base}'s geometric-mean makespan in its worst bar setting.\n\n"
        ),
        (true, None) => "\n".to_owned(),
    }
}

/// SPD against FTG on real DAGs: plans made from HEFT's and from random plans by moving a
/// share of their tasks.
fn correlation(cx: &Context, p: &DagProtocol) -> anyhow::Result<String> {
    let path = shipped_workload(&p.correlation_workload);
    let workload = DagWorkload::load(&path, &[])?;
    let mut clouds: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for seed in cx.seeds() {
        let problem = workload.instance(seed);
        let mut decoder = Decoder::new(&problem);
        let mut rng = StdRng::seed_from_u64(seed);
        let heft_plan = heft(&problem).gpu;
        let random_plan: Vec<usize> = decoder
            .fitting
            .iter()
            .map(|gpus| gpus[rand::RngExt::random_range(&mut rng, 0..gpus.len())])
            .collect();
        for (name, base) in [
            ("from HEFT's plan", heft_plan),
            ("from a random plan", random_plan),
        ] {
            clouds.entry(name).or_default().extend(perturbation_pairs(
                &mut decoder,
                &base,
                &p.correlation_shares,
                p.correlation_per_share,
                &mut rng,
            ));
        }
    }
    let mut text = format!(
        "### SPD and FTG on real DAGs\n\nSPD is the share of tasks two plans place on different GPUs; FTG is the difference of their makespans over the shorter. On {} instances of `{}` (Alibaba v2018 DAGs on PAI machines), plans were made from HEFT's plan and from a random plan by moving a share of their tasks ({}; {} plans per share) to other GPUs that hold them.\n\n| base | pairs | Pearson r | Spearman ρ |\n| --- | --- | --- | --- |\n",
        cx.args.seeds,
        p.correlation_workload,
        p.correlation_shares
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        p.correlation_per_share
    );
    let all: Vec<(f64, f64)> = clouds.values().flatten().copied().collect();
    for (name, pairs) in clouds
        .iter()
        .map(|(n, v)| (*n, v.as_slice()))
        .chain([("both", all.as_slice())])
    {
        text += &format!(
            "| {name} | {} | {:.3} | {:.3} |\n",
            pairs.len(),
            pearson(pairs),
            spearman(pairs)
        );
    }
    let figure = "dag-spd-ftg.png";
    let clouds: Vec<(String, Vec<(f64, f64)>)> =
        clouds.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
    plots::scatter(
        &cx.figure(figure)?,
        "Plan distance against finish time gap (Alibaba DAGs)",
        (
            "SPD (share of tasks placed differently)",
            "FTG (makespan gap / shorter)",
        ),
        &clouds,
    )?;
    text += &format!("\n![SPD against FTG]({})\n\n", cx.link(figure));
    Ok(text)
}

/// WOA's and WORL-RTGS's makespans on one instance over search seeds: the coefficient of
/// variation per instance, then its mean over instances.
fn stability(cx: &Context, p: &DagProtocol, generated: &std::path::Path) -> anyhow::Result<String> {
    let searches = ["woa", p.reference.as_str()];
    let policies: Vec<String> = searches
        .iter()
        .flat_map(|name| {
            (0..p.search_seeds).map(move |k| format!("{}:search_seed={k}", budgeted(name, p)))
        })
        .collect();
    let rows = cx.sweep(&SweepSpec {
        name: "dag-stability".into(),
        policies: policies.clone(),
        workloads: vec![generated.to_owned()],
        seeds: cx.seeds(),
        overrides: BTreeMap::from([(
            "stability".to_owned(),
            BTreeMap::from([(
                "dags.layered.tasks".to_owned(),
                toml::Value::Integer(p.sweep_tasks as i64),
            )]),
        )]),
        train: TrainSettings::default(),
    })?;
    let mut text = format!(
        "### Stability over search seeds\n\nEach of {} instances ({} tasks) searched {} times with different search seeds (`search_seed=0..{}`); per instance the spread of the makespans over the searches, then its mean over instances.\n\n| scheduler | mean makespan (s) | coefficient of variation | range / mean |\n| --- | --- | --- | --- |\n",
        cx.args.seeds,
        p.sweep_tasks,
        p.search_seeds,
        p.search_seeds - 1
    );
    let mut bars = Vec::new();
    for name in searches {
        let mine: Vec<&String> = policies.iter().filter(|s| short(s) == name).collect();
        let (mut cv, mut range, mut all) = (Vec::new(), Vec::new(), Vec::new());
        for seed in cx.seeds() {
            let v: Vec<f64> = rows
                .iter()
                .filter(|r| r.key.seed == seed && mine.contains(&&r.key.policy))
                .filter_map(|r| r.metrics.iter().find(|m| m.0 == MAKESPAN).map(|m| m.1))
                .collect();
            let s = summarize(&v);
            cv.push(s.std / s.mean);
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                    (a.min(x), b.max(x))
                });
            range.push((hi - lo) / s.mean);
            all.extend(v);
        }
        let cv_summary = summarize(&cv);
        text += &format!(
            "| {name} | {} | {} | {} |\n",
            mean_ci(&all),
            mean_ci(&cv),
            mean_ci(&range)
        );
        bars.push((name.to_owned(), cv_summary.mean, cv_summary.ci95));
    }
    let figure = "dag-stability.png";
    plots::bars(
        &cx.figure(figure)?,
        "Spread over search seeds (coefficient of variation)",
        "CV of the makespan",
        &bars,
    )?;
    text += &format!("\n![stability]({})\n\n", cx.link(figure));
    Ok(text)
}

/// Seconds each scheduler of the protocol (and each of its `timed` specs) takes to plan and
/// play one episode (seed 0), one at a time, per size.
fn wall_times(p: &DagProtocol, generated: &std::path::Path) -> anyhow::Result<String> {
    // (spec, row name): a protocol scheduler by its plain name, a timed spec as written
    let policies: Vec<(String, String)> = p
        .policies
        .iter()
        .map(|name| (budgeted(name, p), name.clone()))
        .chain(p.timed.iter().map(|spec| (spec.clone(), spec.clone())))
        .collect();
    let header: Vec<String> = p.tasks.iter().map(|t| t.to_string()).collect();
    let mut text = format!(
        "### Wall time per episode\n\nSeconds to plan and play one episode (seed 0), schedulers run one at a time on this machine; learned schedulers and WORL-RTGS include their networks' inference. Every scheduler plays on one thread but `dag-gnn` with `episodes=K`, which decodes its K episodes side by side on every thread of the pool (`--threads`).\n\n| scheduler | {} |\n| --- |{}\n",
        header.join(" | "),
        " --- |".repeat(header.len())
    );
    let workloads: Vec<Loaded> = p
        .tasks
        .iter()
        .map(|&t| {
            let overrides = [("dags.layered.tasks".to_owned(), t.to_string())];
            crate::workloads::load(generated, &overrides)
        })
        .collect::<anyhow::Result<_>>()?;
    for (spec, row) in &policies {
        let mut cells = Vec::new();
        for loaded in &workloads {
            let w: &Dag = loaded.expect("reproduce dag", generated)?;
            let start = Instant::now();
            play(w, spec, &[], 0)?;
            cells.push(format!("{:.3}", start.elapsed().as_secs_f64()));
        }
        text += &format!("| {row} | {} |\n", cells.join(" | "));
    }
    Ok(text + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two settings of two instances: in `tasks 100` the learned row is 0.9x and 1.1x HEFT
    /// (geometric mean sqrt(0.99) = 0.995), elsewhere 0.5x twice; pooled (0.9 x 1.1 x 0.25)^(1/4)
    /// = 0.705. The bar reads `tasks 100` only, where it is below 1. The same run played with
    /// a play option is a row of its own, with the run's training time.
    #[test]
    fn the_dag_bar_reads_geometric_mean_ratios_per_setting() {
        let cell = |name: &str, heft: [f64; 2], learned: [f64; 2]| Cell {
            name: name.to_owned(),
            by_policy: BTreeMap::from([
                ("heft".to_owned(), heft.to_vec()),
                ("DDQN (seed 0)".to_owned(), learned.to_vec()),
                (
                    "DDQN, episodes=8 (seed 0)".to_owned(),
                    vec![heft[0], heft[1]],
                ),
            ]),
        };
        let cells = [
            cell("tasks 100", [100.0, 200.0], [90.0, 220.0]),
            cell("other", [100.0, 100.0], [50.0, 50.0]),
        ];
        let learner = LearnedRun {
            label: "DDQN".to_owned(),
            agent: "dqn".to_owned(),
            steps: 1,
            set: BTreeMap::new(),
            workload_set: BTreeMap::new(),
            seeds: vec![0, 1],
            workload: None,
            play: vec!["episodes=8".to_owned()],
        };
        let trained = [Trained {
            learner: &learner,
            seed: 0,
            run: "run-folder".into(),
            seconds: 12.0,
            sources: String::new(),
        }];
        let mut labels: Labels = vec![("heft".to_owned(), "heft".to_owned())];
        labels.extend(trained[0].rows());
        assert_eq!(
            labels[2],
            (
                "run-folder:episodes=8".to_owned(),
                "DDQN, episodes=8 (seed 0)".to_owned()
            )
        );
        let text = against_baseline(
            ("heft", &["tasks 100".to_owned()]),
            &labels,
            &cells,
            &trained,
        )
        .unwrap();
        let row = text
            .lines()
            .find(|l| l.starts_with("| DDQN (seed 0) |"))
            .unwrap();
        assert!(row.starts_with("| DDQN (seed 0) | 12 | 0.705 |"), "{row}");
        assert!(row.ends_with("| 0.995 |"), "{row}");
        assert!(row.contains("| 3 / 1 |"), "{row}");
        assert!(text.contains("Meets the DAG bar against heft: DDQN (seed 0)."));
        let sampled = text
            .lines()
            .find(|l| l.starts_with("| DDQN, episodes=8 (seed 0) |"))
            .unwrap();
        assert!(
            sampled.starts_with("| DDQN, episodes=8 (seed 0) | 12 | 1.000 |"),
            "{sampled}"
        );
        let missing =
            against_baseline(("heft", &["tasks 7".to_owned()]), &labels, &cells, &trained);
        assert!(missing.unwrap_err().to_string().contains("`tasks 7`"));
    }
}
