//! WOA's and WORL-RTGS's spread over search seeds on the same instances.

use std::collections::BTreeMap;

use super::cells::MAKESPAN;
use super::policies::budgeted;
use crate::plots;
use crate::reproduce::context::{Context, mean_ci};
use crate::reproduce::protocol::DagProtocol;
use crate::stats::summarize;
use crate::sweep::spec::{SweepSpec, TrainSettings};

/// The plain name of a spec (`woa:evaluations=3000` is `woa`).
fn short(spec: &str) -> &str {
    spec.split(':').next().unwrap_or(spec)
}

/// WOA's and WORL-RTGS's makespans on one instance over search seeds: the coefficient of
/// variation per instance, then its mean over instances.
pub(super) fn stability(
    cx: &Context,
    p: &DagProtocol,
    generated: &std::path::Path,
) -> anyhow::Result<String> {
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
