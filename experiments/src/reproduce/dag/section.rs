//! dag: the DAG schedulers against WORL-RTGS (Du et al. 2025) on generated DAGs of growing
//! size, heterogeneity and bandwidth and on real Alibaba DAGs; the SPD-FTG correlation on real
//! DAGs; WOA's and WORL-RTGS's spread over search seeds; plan wall times.

use std::collections::BTreeMap;
use std::path::Path;

use super::against_baseline::against_baseline;
use super::axes::{TASKS_KEY, axes, axis_table, toml_number};
use super::cells::Cell;
use super::correlation::correlation;
use super::headline::headline;
use super::policies::{Labels, budgeted};
use super::real_dags::trace_table;
use super::stability::stability;
use super::wall_times::wall_times;
use crate::paths::shipped_workload;
use crate::reproduce::cached_training::{Trained, Training, reused_note, trained};
use crate::reproduce::context::Context;
use crate::reproduce::protocol::{DagProtocol, LearnedRun};
use crate::sweep::spec::{SweepSpec, TrainSettings};

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
