//! `reproduce conserving`: what work conservation (`window.work_conserving`,
//! env/src/jobs/conserve.rs) changes. Every heuristic of the learned protocol, through both
//! decision interfaces, and the shipped jobs policies play each trace's held-out windows (and
//! the later period where the trace has one) twice: idling allowed, as before the rule, and
//! work-conserving, on the same (window, seed) episodes.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::context::{Context, mean};
use super::episodes::{Episodes, episodes_in_set, jct_by_episode, metric_of};
use super::learned::bar::{RESAMPLES, compare};
use super::learned::line::load_windows;
use super::learned::unfinished::{TableRow, unfinished_by_window};
use super::learned::windows_in;
use crate::output::{number, p_text};
use crate::sweep::journal::Row;
use crate::sweep::spec::{SweepSpec, TrainSettings};

const IDLING: &str = "idling allowed";
const CONSERVING: &str = "work-conserving";

pub fn conserving(cx: &Context) -> anyhow::Result<String> {
    let p = &cx.protocol.learned;
    let mut text = format!(
        "## Work-conserving decisions (conserving)\n\n`schedlab reproduce conserving`. With `window.work_conserving` on (the default), the jobs env never moves its clock while a queued job fits the idle capacity at its request: the one-choice mask refuses `advance` while a queued job of the drawn window can start at its request, and what a policy still leaves idle when the clock is to move (a per-slot step that changes nothing, a decision point's drawings spent, a preempted job left queued) the env starts itself, oldest first, at its request (`forced starts`; through the one-choice interface a heuristic's adapter itself makes the start the env would, so its row counts only the jobs it preempted and left queued, or left when a decision point's drawings were spent). A job that fits only shrunk stays the policy's choice, except on a frozen cluster (no job running, none left to arrive), where, with the rule off or on, the env starts the window's job that fits at a level nearest its request when the clock is to move (also counted in `forced starts`; docs/jobs-cluster.md). Every heuristic of the learned protocol through both interfaces, and the shipped jobs policies, play each trace's held-out windows on seeds 0..{last} with the rule off (`window.work_conserving = false`, as before it) and on. JCT is the mean over episodes of each episode's mean JCT (an unfinished job counts its time in the system and its remaining work, as the reward charges it); p is the two-sided Wilcoxon signed-rank test over the same (window, seed) episodes.\n\n",
        last = p.eval_seeds - 1,
    );
    for trace in &p.traces {
        let heldout = windows_in(&trace.heldout)?;
        text += &format!(
            "### {}, held out ({} windows)\n\n",
            trace.name,
            heldout.len()
        );
        let heuristics = cx.sweep(&heuristics_spec(cx, &trace.name, "heldout", &heldout))?;
        let shipped = cx.sweep(&shipped_spec(cx, &trace.name, "heldout", &heldout))?;
        text += &table(cx, &heldout, &heuristics, &shipped)?;
        if let Some(later) = &trace.later {
            let windows = windows_in(later)?;
            text += &format!(
                "### {}, the later period ({} windows; shipped policies only)\n\n",
                trace.name,
                windows.len()
            );
            let shipped = cx.sweep(&shipped_spec(cx, &trace.name, "later", &windows))?;
            text += &table(cx, &windows, &[], &shipped)?;
        }
    }
    Ok(text)
}

/// The override sets of a sweep: `(interface, set name)` per variant, the rule off and on.
fn variants(interfaces: &[&str]) -> BTreeMap<String, BTreeMap<String, toml::Value>> {
    interfaces
        .iter()
        .flat_map(|&interface| {
            [(IDLING, false), (CONSERVING, true)].map(|(name, on)| {
                (
                    format!("{interface}, {name}"),
                    BTreeMap::from([
                        (
                            "window.interface".to_owned(),
                            toml::Value::String(interface.to_owned()),
                        ),
                        (
                            "window.work_conserving".to_owned(),
                            toml::Value::Boolean(on),
                        ),
                    ]),
                )
            })
        })
        .collect()
}

fn heuristics_spec(cx: &Context, trace: &str, period: &str, windows: &[PathBuf]) -> SweepSpec {
    let p = &cx.protocol.learned;
    SweepSpec {
        name: format!("conserving-{trace}-{period}-heuristics"),
        policies: p.heuristics.clone(),
        workloads: windows.to_vec(),
        seeds: (0..p.eval_seeds).collect(),
        overrides: variants(&["per-slot", "one-choice"]),
        train: TrainSettings::default(),
    }
}

/// The shipped policies play the interface they were trained on.
fn shipped_spec(cx: &Context, trace: &str, period: &str, windows: &[PathBuf]) -> SweepSpec {
    let p = &cx.protocol.learned;
    SweepSpec {
        name: format!("conserving-{trace}-{period}-shipped"),
        policies: p.shipped.clone(),
        overrides: variants(&["one-choice"]),
        ..heuristics_spec(cx, trace, period, windows)
    }
}

/// The table of one period's `windows`: every policy with the rule off and on.
fn table(
    cx: &Context,
    windows: &[PathBuf],
    heuristics: &[Row],
    shipped: &[Row],
) -> anyhow::Result<String> {
    let p = &cx.protocol.learned;
    let (loaded, jobs_per_seed) = load_windows(windows, &p.set)?;
    let jobs = (jobs_per_seed * p.eval_seeds as usize) as f64;
    let mut text = format!(
        "{jobs} jobs in all per row. Ratio: each episode's mean JCT work-conserving over idling allowed; its IQM with a stratified bootstrap 95% CI (windows as strata, {RESAMPLES} resamples), and the probability that an episode is faster work-conserving (per window over its seeds, averaged), as rliable recommends.\n\n| policy | interface | JCT mean, idling allowed (s) | JCT mean, work-conserving (s) | change | Wilcoxon p | IQM ratio [95% CI] | P(faster) | unfinished jobs (allowed → conserving) | GPU occupancy (allowed → conserving) | forced starts per episode |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
    );
    let rows = p
        .heuristics
        .iter()
        .flat_map(|h| ["per-slot", "one-choice"].map(|i| (h.as_str(), i, heuristics)))
        .chain(
            p.shipped
                .iter()
                .map(|s| (s.as_str(), "one-choice", shipped)),
        );
    let mut played = Vec::new();
    for (policy, interface, rows) in rows {
        let off = episodes_in_set(rows, policy, &format!("{interface}, {IDLING}"));
        let on = episodes_in_set(rows, policy, &format!("{interface}, {CONSERVING}"));
        if off.is_empty() || on.is_empty() {
            continue;
        }
        let metric = |e: &Episodes, name: &str| -> Vec<f64> {
            e.values().map(|m| metric_of(m, name)).collect()
        };
        let (jct_off, jct_on) = (metric(&off, "jct_avg_s"), metric(&on, "jct_avg_s"));
        let total = |e: &Episodes, name: &str| metric(e, name).iter().sum::<f64>();
        let paired = compare(&jct_by_episode(&on), &jct_by_episode(&off));
        let (low, high) = paired.ci;
        text += &format!(
            "| `{policy}` | {interface} | {} | {} | {:+.1}% | {} | {:.3} [{low:.3}, {high:.3}] | {:.2} | {} → {} | {:.3} → {:.3} | {:.1} |\n",
            number(mean(&jct_off)),
            number(mean(&jct_on)),
            100.0 * (mean(&jct_on) / mean(&jct_off) - 1.0),
            p_text(paired.wilcoxon),
            paired.iqm_ratio,
            paired.improvement,
            jobs - total(&off, "finished"),
            jobs - total(&on, "finished"),
            mean(&metric(&off, "gpu_occupancy")),
            mean(&metric(&on, "gpu_occupancy")),
            mean(&metric(&on, "forced_starts")),
        );
        played.push((format!("`{policy}` {interface}, idling allowed"), off));
        played.push((format!("`{policy}` {interface}, work-conserving"), on));
    }
    let labelled: Vec<TableRow> = played.iter().map(|(l, e)| (l.as_str(), e, None)).collect();
    Ok(text + "\n" + &unfinished_by_window(&labelled, &loaded, windows)?)
}
