//! Sweep results summarised per workload, override set and policy: each metric's mean,
//! standard deviation, 95% confidence interval and two p-values against a baseline policy:
//! the Wilcoxon signed-rank test over the seeds both played (paired, as the project compares
//! schedulers: the same seed is the same episode draw) and Welch's test (unpaired). As a
//! table on the terminal, and `summary.md` and `summary.csv`.

use std::collections::BTreeMap;
use std::path::Path;

use crate::output::{align, number, p_text, write_atomic};
use crate::stats::{Summary, summarize, welch, wilcoxon};
use crate::sweep::table::Results;

/// The metrics shown unless `--metrics` says otherwise, when the results have them.
const HEADLINE: [&str; 15] = [
    "completion_time_s",
    "jct_avg_s",
    "jct_p95_s",
    "makespan_s",
    "cost_gap",
    "cost_gap_mean",
    "loss_gap",
    "iterations",
    "gpu_util",
    "gpu_occupancy",
    "fragmentation",
    "idle_cost",
    "rho_max",
    "tenant_jain",
    "episode_return",
];

pub struct MetricSummary {
    pub name: String,
    pub summary: Summary,
    /// The two-sided Wilcoxon signed-rank p against the baseline over the seeds both played
    /// (NaN for the baseline itself).
    pub wilcoxon: f64,
    /// Welch's two-sided p against the baseline (NaN for the baseline itself).
    pub welch: f64,
}

pub struct PolicySummary {
    pub policy: String,
    pub metrics: Vec<MetricSummary>,
}

/// One workload and override set.
pub struct GroupSummary {
    pub workload: String,
    pub overrides: String,
    pub baseline: String,
    pub policies: Vec<PolicySummary>,
}

fn first_seen<T: PartialEq + Clone>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Summaries of `metrics` (names) per group and policy.
pub fn summarize_results(
    results: &Results,
    baseline: Option<&str>,
    metrics: &[String],
) -> anyhow::Result<Vec<GroupSummary>> {
    let groups = first_seen(
        results
            .keys
            .iter()
            .map(|k| (k.workload.clone(), k.overrides.clone())),
    );
    let mut out = Vec::new();
    for (workload, overrides) in groups {
        let in_group: Vec<usize> = (0..results.keys.len())
            .filter(|&r| {
                results.keys[r].workload == workload && results.keys[r].overrides == overrides
            })
            .collect();
        let policies = first_seen(in_group.iter().map(|&r| results.keys[r].policy.clone()));
        let baseline = baseline.map_or_else(|| policies[0].clone(), str::to_owned);
        anyhow::ensure!(
            policies.contains(&baseline),
            "baseline `{baseline}` is not among the policies on {workload} ({overrides}): {}",
            policies.join(", ")
        );
        let by_seed = |policy: &str, metric: &str| -> BTreeMap<u64, f64> {
            let column = results
                .column(metric)
                .expect("metric names come from the results");
            in_group
                .iter()
                .filter(|&&r| results.keys[r].policy == policy)
                .filter_map(|&r| column[r].map(|v| (results.keys[r].seed, v)))
                .collect()
        };
        let present: Vec<&String> = metrics
            .iter()
            .filter(|m| {
                in_group.iter().any(|&r| {
                    results
                        .metrics
                        .iter()
                        .any(|(n, c)| n == *m && c[r].is_some())
                })
            })
            .collect();
        let policies = policies
            .iter()
            .map(|policy| PolicySummary {
                policy: policy.clone(),
                metrics: present
                    .iter()
                    .map(|&m| {
                        let (mine, theirs) = (by_seed(policy, m), by_seed(&baseline, m));
                        let values: Vec<f64> = mine.values().copied().collect();
                        let (wilcoxon, welch) = if *policy == baseline {
                            (f64::NAN, f64::NAN)
                        } else {
                            paired_and_unpaired(&mine, &theirs)
                        };
                        MetricSummary {
                            name: m.clone(),
                            summary: summarize(&values),
                            wilcoxon,
                            welch,
                        }
                    })
                    .collect(),
            })
            .collect();
        out.push(GroupSummary {
            workload,
            overrides,
            baseline,
            policies,
        });
    }
    Ok(out)
}

/// Wilcoxon's p over the seeds `a` and `b` share, and Welch's over all of each.
fn paired_and_unpaired(a: &BTreeMap<u64, f64>, b: &BTreeMap<u64, f64>) -> (f64, f64) {
    let (x, y): (Vec<f64>, Vec<f64>) = a
        .iter()
        .filter_map(|(seed, &v)| b.get(seed).map(|&w| (v, w)))
        .unzip();
    let all = |m: &BTreeMap<u64, f64>| m.values().copied().collect::<Vec<f64>>();
    (wilcoxon(&x, &y), welch(&all(a), &all(b)).2)
}

/// `mean ± ci95 (Wilcoxon p; Welch p)` of one metric.
pub fn cell(m: &MetricSummary) -> String {
    let p = match (p_text(m.wilcoxon), p_text(m.welch)) {
        (w, _) if w.is_empty() && m.welch.is_nan() => String::new(),
        (w, welch) => format!(
            " ({}; Welch {welch})",
            if w.is_empty() { "—".into() } else { w }
        ),
    };
    format!("{} ± {}{p}", number(m.summary.mean), number(m.summary.ci95))
}

fn header(group: &GroupSummary) -> Vec<String> {
    std::iter::once("policy".to_owned())
        .chain(group.policies[0].metrics.iter().map(|m| m.name.clone()))
        .collect()
}

fn title(group: &GroupSummary, n: usize) -> String {
    format!(
        "{} ({}): mean ± 95% CI over {n} seeds; against {}, the Wilcoxon signed-rank p over the same seeds, then Welch's p",
        group.workload, group.overrides, group.baseline
    )
}

/// The groups as Markdown tables.
pub fn markdown(groups: &[GroupSummary]) -> String {
    let mut text = String::new();
    for g in groups {
        let n = g.policies[0].metrics.first().map_or(0, |m| m.summary.n);
        text += &format!("### {}\n\n", title(g, n));
        let head = header(g);
        text += &format!("| {} |\n", head.join(" | "));
        text += &format!("|{}\n", " --- |".repeat(head.len()));
        for p in &g.policies {
            let cells: Vec<String> = p.metrics.iter().map(cell).collect();
            text += &format!("| {} | {} |\n", p.policy, cells.join(" | "));
        }
        text.push('\n');
    }
    text
}

fn csv(groups: &[GroupSummary]) -> String {
    let mut text = String::from(
        "workload,overrides,policy,metric,n,mean,std,ci95_low,ci95_high,baseline,wilcoxon_p,welch_p\n",
    );
    for g in groups {
        for p in &g.policies {
            for m in &p.metrics {
                let s = &m.summary;
                text += &format!(
                    "{},{},{},{},{},{},{},{},{},{},{},{}\n",
                    g.workload,
                    g.overrides,
                    p.policy,
                    m.name,
                    s.n,
                    s.mean,
                    s.std,
                    s.mean - s.ci95,
                    s.mean + s.ci95,
                    g.baseline,
                    m.wilcoxon,
                    m.welch
                );
            }
        }
    }
    text
}

/// The metric names `--metrics` asks for, checked against the results.
pub fn chosen_metrics(results: &Results, asked: Option<&str>) -> anyhow::Result<Vec<String>> {
    let available: Vec<&String> = results.metrics.iter().map(|(n, _)| n).collect();
    Ok(match asked {
        Some("all") => available.into_iter().cloned().collect(),
        Some(list) => list
            .split(',')
            .map(|m| {
                let m = m.trim();
                results.column(m)?;
                Ok(m.to_owned())
            })
            .collect::<anyhow::Result<_>>()?,
        None => HEADLINE
            .iter()
            .filter(|h| available.iter().any(|a| a == *h))
            .map(|h| h.to_string())
            .collect(),
    })
}

/// Writes summary.md and summary.csv into `dir`.
pub fn write_summary(dir: &Path, groups: &[GroupSummary]) -> anyhow::Result<()> {
    write_atomic(&dir.join("summary.md"), markdown(groups).as_bytes())?;
    write_atomic(&dir.join("summary.csv"), csv(groups).as_bytes())
}

/// The groups as aligned tables, one per workload and override set, as the terminal shows
/// them.
pub fn tables(groups: &[GroupSummary]) -> String {
    let mut text = String::new();
    for g in groups {
        let n = g.policies[0].metrics.first().map_or(0, |m| m.summary.n);
        let rows: Vec<Vec<String>> = std::iter::once(header(g))
            .chain(g.policies.iter().map(|p| {
                std::iter::once(p.policy.clone())
                    .chain(p.metrics.iter().map(cell))
                    .collect()
            }))
            .collect();
        text += &format!("{}\n{}\n\n", title(g, n), align(&rows));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::spec::CellKey;

    /// Two policies on six seeds whose difficulty spreads widely: `b` is a little lower on
    /// every seed. Pairing by seed sees it; Welch's test does not.
    #[test]
    fn the_paired_test_sees_a_small_steady_gain_that_welch_misses() {
        let spread = [10.0, 200.0, 35.0, 900.0, 60.0, 4000.0];
        let mut keys = Vec::new();
        let mut values = Vec::new();
        for (policy, shift) in [("a", 0.0), ("b", -1.0)] {
            // `b` also played a seventh seed that `a` did not: it is left out of the pairs
            for (seed, v) in spread
                .iter()
                .chain([&1e6])
                .enumerate()
                .take(6 + (shift < 0.0) as usize)
            {
                keys.push(CellKey {
                    policy: policy.into(),
                    workload: "w".into(),
                    overrides: "default".into(),
                    seed: seed as u64,
                });
                values.push(Some(v + shift * (1.0 + seed as f64 / 10.0)));
            }
        }
        let results = Results {
            keys,
            metrics: vec![("jct_avg_s".into(), values)],
        };
        let groups = summarize_results(&results, Some("a"), &["jct_avg_s".into()]).unwrap();
        let b = &groups[0].policies[1].metrics[0];
        assert_eq!(b.summary.n, 7);
        // six negative differences of distinct sizes: the exact two-sided p is 2 / 2^6
        assert!((b.wilcoxon - 2.0 / 64.0).abs() < 1e-12, "{}", b.wilcoxon);
        assert!(b.welch > 0.3, "{}", b.welch);
        assert!(groups[0].policies[0].metrics[0].wilcoxon.is_nan());
        assert!(cell(b).contains("(p=0.031; Welch p="), "{}", cell(b));
    }
}
