//! table2: end-to-end time to target of optimiser + scheduler configurations, as ratios to
//! the paper's reference configuration.

use super::context::{Context, Tuned, mean, mean_ci, paired_p, values};
use super::protocol::HB_ASGD;
use crate::sweep::journal::Row;
use crate::sweep::spec::{SweepSpec, TRAIN_PREFIX, TrainSettings};

pub fn table2(cx: &Context, tuned: &Tuned) -> anyhow::Result<String> {
    let t2 = &cx.protocol.table2;
    let spec = SweepSpec {
        name: "table2".into(),
        policies: t2.policies.clone(),
        workloads: vec![cx.paper.clone()],
        seeds: cx.seeds(),
        overrides: cx.optimizer_sets(tuned),
        train: TrainSettings::default(),
    };
    let rows = cx.sweep(&spec)?;
    let reference = cx.protocol.reference()?;
    let ours = values(
        &rows,
        &reference.policy,
        &reference.optimizer,
        "completion_time_s",
    );
    let mut text = format!(
        "## End to end (table2)\n\n`{}` (paper-10node, {} seeds; completion time = virtual seconds to the target loss; ratios to {}; p against {}, paired by seed: Wilcoxon signed-rank; paired t)\n\n\
         | configuration | paper (h) | paper ratio | completion time (s) | ratio | p |\n| --- | --- | --- | --- | --- | --- |\n",
        cx.command("table2"),
        cx.args.seeds,
        reference.label,
        reference.label
    );
    for row in &t2.rows {
        let v = values(&rows, &row.policy, &row.optimizer, "completion_time_s");
        let p = if row.label == reference.label {
            String::new()
        } else {
            paired_p(&v, &ours).cell()
        };
        text += &format!(
            "| {} | {} | {:.2} | {} | {:.2} | {p} |\n",
            row.label,
            row.paper_hours,
            row.paper_hours / reference.paper_hours,
            mean_ci(&v),
            mean(&v) / mean(&ours)
        );
    }
    let learned = learned_rows(cx, tuned, &rows, &ours)?;
    text += &learned.rows;
    let unseen = unseen_seeds(cx, tuned)?;
    let time = |policy: &str, opt: &str| mean(&values(&rows, policy, opt, "completion_time_s"));
    let best = t2
        .rows
        .iter()
        .min_by(|a, b| time(&a.policy, &a.optimizer).total_cmp(&time(&b.policy, &b.optimizer)))
        .expect("table2 has rows");
    let effect = |optimizer: &str, label: &str| raes_effect(&rows, optimizer, label);
    let fastest_optimizer = cx.ordered(&rows, "completion_time_s")[0].2.clone();
    text += &format!(
        "\nThe full grid (every optimiser with static, periodic and raes) is in `{}/table2/results.csv`.{}\n\n**Where it differs.** The paper's times are hours of ImageNet training on a GPU cluster; these are virtual seconds of a small model on a simulated 10-node cluster, so only ratios compare, and with {} seeds the intervals are wide. Here the fastest configuration is {}. RAES instead of static allocation {} and {}; in the paper RAES {}. Each optimiser runs at its tuned rate (see the tuning section), so the optimiser rows inherit fig2's ordering, in which {fastest_optimizer} is fastest on this workload; HB-ASGD's advantage in the paper does not carry over to this small model (fig2 gives the mechanisms).\n\n",
        cx.args.out.display(),
        learned.reading,
        cx.args.seeds,
        best.label,
        effect(HB_ASGD, "HB-ASGD"),
        effect("async_sgd", "asynchronous SGD"),
        paper_effects(cx),
    );
    text += &unseen;
    Ok(text)
}

/// The learned agents beside HB-ASGD + static and + RAES on the protocol's unseen seeds:
/// table1's trained runs, played by folder so that nothing trains again.
fn unseen_seeds(cx: &Context, tuned: &Tuned) -> anyhow::Result<String> {
    let t2 = &cx.protocol.table2;
    if t2.unseen_seeds.is_empty() || t2.learned.is_empty() {
        return Ok(String::new());
    }
    let table1 = super::table1::table1_spec(cx, tuned);
    let mut rows = vec![("HB-ASGD + static".to_owned(), "static".to_owned())];
    rows.push(("HB-ASGD + RAES".to_owned(), "raes".to_owned()));
    for agent in &t2.learned {
        let name = agent.policy.trim_start_matches(TRAIN_PREFIX);
        let run = super::table1::trained_run(cx, &table1, name)?;
        rows.push((agent.label.clone(), run.display().to_string()));
    }
    let spec = SweepSpec {
        name: "table2-unseen".into(),
        policies: rows.iter().map(|(_, policy)| policy.clone()).collect(),
        seeds: t2.unseen_seeds.clone(),
        train: TrainSettings::default(),
        ..table1
    };
    let played = cx.sweep(&spec)?;
    let metric = |policy: &str, name: &str| values(&played, policy, HB_ASGD, name);
    let static_times = metric("static", "completion_time_s");
    let seeds = &t2.unseen_seeds;
    let mut text = format!(
        "### On seeds no training, tuning or table uses\n\nSeeds {}-{} ({} episodes each; the learned rows are the agents above, played from their run folders; p against HB-ASGD + static, paired by seed: Wilcoxon signed-rank; paired t)\n\n\
         | configuration | completion time (s) | p | lower than static | reached |\n| --- | --- | --- | --- | --- |\n",
        seeds.iter().min().expect("non-empty"),
        seeds.iter().max().expect("non-empty"),
        seeds.len()
    );
    for (label, policy) in &rows {
        let times = metric(policy, "completion_time_s");
        let reached = metric(policy, "target_reached");
        let (p, lower) = if policy == "static" {
            (String::new(), String::new())
        } else {
            let lower = times
                .iter()
                .zip(&static_times)
                .filter(|(t, s)| t < s)
                .count();
            (
                paired_p(&times, &static_times).cell(),
                format!("{lower}/{}", times.len()),
            )
        };
        text += &format!(
            "| {label} | {} | {p} | {lower} | {}/{} |\n",
            mean_ci(&times),
            reached.iter().sum::<f64>(),
            reached.len()
        );
    }
    Ok(text + "\n")
}

/// How RAES instead of static allocation changes `optimizer`'s time to target, with the paired
/// p-values.
fn raes_effect(rows: &[Row], optimizer: &str, label: &str) -> String {
    let time = |policy: &str| mean(&values(rows, policy, optimizer, "completion_time_s"));
    let (with, without) = (time("raes"), time("static"));
    let p = paired_p(
        &values(rows, "raes", optimizer, "completion_time_s"),
        &values(rows, "static", optimizer, "completion_time_s"),
    )
    .prose();
    if with < without {
        format!(
            "shortens {label}'s time to target by {:.0}% ({})",
            100.0 * (1.0 - with / without),
            p
        )
    } else {
        format!(
            "lengthens {label}'s time to target by {:.0}% ({})",
            100.0 * (with / without - 1.0),
            p
        )
    }
}

/// The learned agents' rows and what they say against static allocation.
struct Learned {
    rows: String,
    reading: String,
}

/// Rows for the learned agents of table1 (trained on HB-ASGD at its tuned rate), from table1's
/// episodes: the same workload, optimiser set and seeds as this table's HB-ASGD rows, so
/// HB-ASGD + static here and there are the same episodes.
fn learned_rows(
    cx: &Context,
    tuned: &Tuned,
    rows: &[Row],
    ours: &[f64],
) -> anyhow::Result<Learned> {
    let learned = &cx.protocol.table2.learned;
    if learned.is_empty() {
        return Ok(Learned {
            rows: String::new(),
            reading: String::new(),
        });
    }
    let table1_rows = cx.sweep(&super::table1::table1_spec(cx, tuned))?;
    let static_times = values(rows, "static", HB_ASGD, "completion_time_s");
    let mut text = String::new();
    let mut against_static = Vec::new();
    for agent in learned {
        let v = values(&table1_rows, &agent.policy, HB_ASGD, "completion_time_s");
        text += &format!(
            "| {} | — | — | {} | {:.2} | {} |\n",
            agent.label,
            mean_ci(&v),
            mean(&v) / mean(ours),
            paired_p(&v, ours).cell()
        );
        against_static.push(format!(
            "{} takes {:.1} s against HB-ASGD + static's {:.1} s ({})",
            agent.label,
            mean(&v),
            mean(&static_times),
            paired_p(&v, &static_times).prose()
        ));
    }
    Ok(Learned {
        rows: text,
        reading: format!(
            " The learned rows are table1's agents (`train:*`, trained on paper-10node with HB-ASGD), played on the same episodes as the HB-ASGD rows here: {}.",
            against_static.join("; ")
        ),
    })
}

/// `shortens HB-ASGD's time by 20% (12.3 to 9.8 h) and asynchronous SGD's by 2% (12.1 to
/// 11.9 h)`: RAES against static in the paper's own rows.
fn paper_effects(cx: &Context) -> String {
    let effect = |optimizer: &str| {
        let hours = |policy| {
            cx.protocol
                .table2_row(optimizer, policy)
                .map(|r| r.paper_hours)
        };
        let (with, without) = (hours("raes")?, hours("static")?);
        let verb = if with < without {
            "shortens"
        } else {
            "lengthens"
        };
        let change = format!(
            "by {:.0}% ({without} to {with} h)",
            100.0 * (1.0 - with / without).abs()
        );
        Some((verb, change))
    };
    match (effect(HB_ASGD), effect("async_sgd")) {
        (Some((v1, c1)), Some((v2, c2))) if v1 == v2 => {
            format!("{v1} HB-ASGD's time {c1} and asynchronous SGD's {c2}")
        }
        (Some((v1, c1)), Some((v2, c2))) => {
            format!("{v1} HB-ASGD's time {c1} and {v2} asynchronous SGD's {c2}")
        }
        _ => "has no figures for both optimisers".to_owned(),
    }
}
