//! `reproduce heterogeneity`: heterogeneity-aware schedulers against model-blind ones on the
//! heterogeneous workloads' held-out windows (docs/heterogeneity.md), paired over (window,
//! seed) against the named agnostic baseline on mean JCT, makespan and finish-time fairness,
//! with a sensitivity row per stated mapping assumption, and Gavel's own figures beside them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::context::{Context, mean};
use super::episodes::{Episodes, by_episode, episodes_in_set, metric_of};
use super::learned::bar::{Paired, RESAMPLES, compare};
use super::learned::windows_in;
use super::protocol::{HeterogeneityProtocol, HeterogeneityTrace};
use crate::output::{number, p_text};
use crate::sweep::journal::Row;
use crate::sweep::spec::{SweepSpec, TrainSettings};

/// The override set of the workloads as they ship.
const SHIPPED: &str = "the mapping as shipped";

/// The metrics compared, with their column titles.
const METRICS: [(&str, &str); 3] = [
    ("jct_avg_s", "mean JCT"),
    ("makespan_s", "makespan"),
    ("rho_max", "max ρ"),
];

pub fn heterogeneity(cx: &Context) -> anyhow::Result<String> {
    let p = &cx.protocol.heterogeneity;
    let mut text = format!(
        "## Heterogeneous GPUs (heterogeneity)\n\n`schedlab reproduce heterogeneity`. The heterogeneous workloads' held-out windows (a later period than their training families, split by time; data/SOURCES.md) played by model-blind schedulers ({agnostic}), heterogeneity-aware ones ({aware}) and the trained policies shipped for a trace (kind `learned`, trained on its family alone and played with the settings they trained under; data/policies/README.md), on seeds 0..{last} per window. `fifo` (arrival order, best-fit) is the named agnostic baseline; a `:aware=false` row is Gavel's agnostic variant of its policy, the same program with every model's throughput 1. Each row's cells are, per metric, its mean over episodes, the change against `{baseline}`, the two-sided Wilcoxon signed-rank p over the same (window, seed) episodes, and the IQM of the per-episode ratios (row over baseline) with a stratified bootstrap 95% CI (windows as strata, {RESAMPLES} resamples). JCT is each episode's mean JCT; max ρ is each episode's largest finish-time fairness ratio (a job's JCT over its JCT alone on a 1/N share; docs/fairness.md).\n\n",
        agnostic = names(&p.agnostic),
        aware = names(&p.aware),
        last = p.eval_seeds - 1,
        baseline = p.baseline,
    );
    for trace in &p.traces {
        let windows = windows_in(&trace.heldout)?;
        let sets = sets_of(p, trace);
        let rows = cx.sweep(&spec(p, trace, &windows, &sets))?;
        // the mapping as shipped first, then each case in the protocol's order
        let order =
            std::iter::once(SHIPPED).chain(trace.sensitivity.iter().map(|c| c.name.as_str()));
        for set in order {
            text += &format!(
                "### {}, held out ({} windows), {set}\n\n",
                trace.name,
                windows.len()
            );
            text += &table(p, trace, &rows, set)?;
        }
    }
    text += &format!("### Gavel's figures\n\n{}\n\n", p.paper.trim());
    Ok(text)
}

fn names(policies: &[String]) -> String {
    policies
        .iter()
        .map(|p| format!("`{p}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The override sets of a trace: the mapping as shipped, and each sensitivity case.
fn sets_of(
    p: &HeterogeneityProtocol,
    trace: &HeterogeneityTrace,
) -> BTreeMap<String, BTreeMap<String, toml::Value>> {
    let mut sets = BTreeMap::from([("the mapping as shipped".to_owned(), p.set.clone())]);
    for case in &trace.sensitivity {
        let mut set = p.set.clone();
        set.extend(case.set.clone());
        sets.insert(case.name.clone(), set);
    }
    sets
}

fn spec(
    p: &HeterogeneityProtocol,
    trace: &HeterogeneityTrace,
    windows: &[PathBuf],
    sets: &BTreeMap<String, BTreeMap<String, toml::Value>>,
) -> SweepSpec {
    SweepSpec {
        name: format!("heterogeneity-{}", trace.name),
        policies: p
            .agnostic
            .iter()
            .chain(&p.aware)
            .chain(&trace.shipped)
            .cloned()
            .collect(),
        workloads: windows.to_vec(),
        seeds: (0..p.eval_seeds).collect(),
        overrides: sets.clone(),
        train: TrainSettings::default(),
    }
}

/// One override set's table: every policy against the baseline.
fn table(
    p: &HeterogeneityProtocol,
    trace: &HeterogeneityTrace,
    rows: &[Row],
    set: &str,
) -> anyhow::Result<String> {
    let baseline = episodes_in_set(rows, &p.baseline, set);
    anyhow::ensure!(
        !baseline.is_empty(),
        "heterogeneity: the baseline `{}` played no episode of `{set}`",
        p.baseline
    );
    let mut text = String::from("| policy | kind |");
    for (_, title) in METRICS {
        text += &format!(" {title} | change | Wilcoxon p | IQM ratio [95% CI] |");
    }
    text += " unfinished jobs | Jain's index over tenants |\n|";
    text += &" --- |".repeat(2 + 4 * METRICS.len() + 2);
    text += "\n";
    let kinds = p
        .agnostic
        .iter()
        .map(|n| (n, "agnostic"))
        .chain(p.aware.iter().map(|n| (n, "aware")))
        .chain(trace.shipped.iter().map(|n| (n, "learned")));
    for (policy, kind) in kinds {
        let episodes = episodes_in_set(rows, policy, set);
        if episodes.is_empty() {
            continue;
        }
        text += &format!("| `{policy}` | {kind} |");
        for (metric, _) in METRICS {
            let paired = compare(
                &by_episode(&episodes, metric),
                &by_episode(&baseline, metric),
            );
            text += &cells(&episodes, metric, &paired);
        }
        let unfinished: f64 = episodes
            .values()
            .map(|m| metric_of(m, "queued_at_end") + metric_of(m, "running_at_end"))
            .sum();
        let jain: Vec<f64> = episodes
            .values()
            .map(|m| metric_of(m, "tenant_jain"))
            .collect();
        text += &format!(" {unfinished} | {:.3} |\n", mean(&jain));
    }
    Ok(text + "\n" + &against_best_aware(p, trace, rows, set))
}

/// Each learned row's mean JCT against the aware heuristic of the lowest mean JCT here, paired
/// over the same (window, seed) episodes: the bar a learned scheduler is held to.
fn against_best_aware(
    p: &HeterogeneityProtocol,
    trace: &HeterogeneityTrace,
    rows: &[Row],
    set: &str,
) -> String {
    let mean_jct = |policy: &str| {
        let episodes = episodes_in_set(rows, policy, set);
        let values: Vec<f64> = episodes
            .values()
            .map(|m| metric_of(m, "jct_avg_s"))
            .collect();
        (!values.is_empty()).then(|| mean(&values))
    };
    let best = p
        .aware
        .iter()
        .filter_map(|name| Some((name, mean_jct(name)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let Some((best, _)) = best else {
        return String::new();
    };
    let best_jct = by_episode(&episodes_in_set(rows, best, set), "jct_avg_s");
    let mut text = String::new();
    for learned in &trace.shipped {
        let episodes = episodes_in_set(rows, learned, set);
        if episodes.is_empty() {
            continue;
        }
        let paired = compare(&by_episode(&episodes, "jct_avg_s"), &best_jct);
        let (low, high) = paired.ci;
        text += &format!(
            "`{learned}` against the aware heuristic of the lowest mean JCT (`{best}`): mean JCT {:+.1}%, lower in {} of {} episodes, Wilcoxon {}, IQM ratio {:.3} [{low:.3}, {high:.3}].\n\n",
            paired.change,
            paired.lower,
            paired.lower + paired.higher,
            p_text(paired.wilcoxon),
            paired.iqm_ratio,
        );
    }
    text
}

/// `| mean | change | p | IQM [CI] |` of one metric.
fn cells(episodes: &Episodes, metric: &str, paired: &Paired) -> String {
    let values: Vec<f64> = episodes.values().map(|m| metric_of(m, metric)).collect();
    let shown = if metric == "rho_max" {
        format!("{:.2}", mean(&values))
    } else {
        number(mean(&values))
    };
    let (low, high) = paired.ci;
    format!(
        " {shown} | {:+.1}% | {} | {:.3} [{low:.3}, {high:.3}] |",
        paired.change,
        p_text(paired.wilcoxon),
        paired.iqm_ratio,
    )
}
