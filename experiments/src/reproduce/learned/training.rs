//! What the section reports of each trace's training: the curves of the runs that train with
//! RL, and the warm-started clones against their teacher.

use std::path::Path;

use anyhow::Context as _;
use schedlab_trainer::tensorboard::read_scalars;

use crate::output::number;
use crate::plots::{self, XScale};
use crate::reproduce::cached_training::Trained;
use crate::reproduce::context::Context;

/// The figure of the trace's training curves (every run that trains with RL) and its link;
/// rounds on a log axis, since ES runs a hundred times the rounds of PPO.
pub(super) fn training_curves(
    cx: &Context,
    trace: &str,
    trained: &[Trained],
) -> anyhow::Result<String> {
    let smoothing = cx.protocol.learned.training_smoothing;
    let mut curves = Vec::new();
    for t in trained.iter().filter(|t| t.learner.steps > 0) {
        let returns = episodic_returns(&t.run)?;
        curves.push((t.label(), plots::moving_average(&returns, smoothing)));
    }
    if curves.is_empty() {
        return Ok(String::new());
    }
    let figure = format!("learned-{trace}-training.png");
    plots::lines(
        &cx.figure(&figure)?,
        &format!(
            "Training on the {trace} family: episodic return (mean of the last {smoothing} episodes)"
        ),
        ("env rounds (log scale)", "episodic return"),
        &curves,
        XScale::Log,
    )?;
    Ok(format!(
        "Training curves on the {trace} family (episodic return: minus the job-seconds in the system, scaled; training episodes are windows of the family, so the curve mixes window difficulty with learning):\n\n![training, {trace}]({})\n\n",
        cx.link(&figure)
    ))
}

/// The clones' agreement with their teacher and their headline beside the teacher's on the
/// family's evaluation seeds, from each warm-started run's `warm_start.json`.
pub(super) fn warm_starts(trained: &[Trained]) -> anyhow::Result<String> {
    let mut text = String::new();
    for t in trained {
        let path = t.run.join("warm_start.json");
        if !path.is_file() {
            continue;
        }
        let warm: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)
            .with_context(|| format!("{}", path.display()))?;
        let r = &warm["report"];
        let first = &warm["headline"][0];
        let (clone, teacher) = (
            first[1].as_f64().unwrap_or(f64::NAN),
            first[2].as_f64().unwrap_or(f64::NAN),
        );
        let dagger: Vec<String> = r["dagger"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|round| {
                format!(
                    "{:.1}% on {} states",
                    100.0 * round["agreement"].as_f64().unwrap_or(f64::NAN),
                    round["decisions"]
                )
            })
            .collect();
        let dagger = if dagger.is_empty() {
            String::new()
        } else {
            format!(
                "; {} DAgger rounds, the clone choosing as the teacher would in {} it reached itself",
                dagger.len(),
                dagger.join(", then ")
            )
        };
        text += &format!(
            "- {}: cloned `{}` from {} decisions of {} episodes in {:.0} s{dagger}; agreement {:.1}% on {} held-out teacher decisions; before RL, on the family's evaluation seeds, {} {} against the teacher's {} ({:+.1}%).\n",
            t.learner.label,
            r["teacher"].as_str().unwrap_or("?"),
            r["decisions"],
            r["episodes"],
            r["seconds"].as_f64().unwrap_or(f64::NAN),
            100.0 * r["held_out_agreement"].as_f64().unwrap_or(f64::NAN),
            r["held_out_decisions"],
            first[0].as_str().unwrap_or("?"),
            number(clone),
            number(teacher),
            100.0 * (clone / teacher - 1.0),
        );
    }
    Ok(if text.is_empty() { text } else { text + "\n" })
}

/// `charts/episodic_return` of a run as (env rounds, return).
fn episodic_returns(run: &Path) -> anyhow::Result<Vec<(f64, f64)>> {
    let scalars = read_scalars(run)?;
    Ok(scalars
        .by_tag
        .get("charts/episodic_return")
        .map(|points| points.iter().map(|&(s, v)| (s as f64, v)).collect())
        .unwrap_or_default())
}
