//! The headline: the reference's reduction of the mean makespan against each baseline over
//! every setting, and who is fastest where.

use std::collections::BTreeMap;

use super::cells::Cell;
use super::policies::Labels;
use crate::reproduce::context::mean;
use crate::reproduce::protocol::DagProtocol;
use crate::stats::summarize;

/// WORL-RTGS's reduction of the mean makespan against each baseline: the largest over the
/// settings (the paper's "up to") and the mean, with the settings where it is behind.
pub(super) fn headline(p: &DagProtocol, labels: &Labels, cells: &[Cell]) -> String {
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
