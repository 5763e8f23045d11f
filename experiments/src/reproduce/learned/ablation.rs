//! The learned section's ablation table: one row per learner of the protocol, its training
//! seeds pooled, naming what it trains with and, per trace, how its seeds fare against the
//! best heuristic on the family's validation windows (where its settings were chosen) and on
//! the held-out ones (the bar). A leaf of the learned section's files.

use std::collections::BTreeMap;

use crate::reproduce::context::mean;
use crate::reproduce::protocol::LearnedRun;

/// One trained run of a learner on a trace, against the best heuristic.
pub(super) struct Outcome {
    pub learner: String,
    /// Mean validation JCT change, percent (infinite where the run left a job unfinished).
    pub validation_change: f64,
    /// Mean held-out JCT change, percent.
    pub heldout_change: f64,
    pub meets_the_bar: bool,
}

/// The table over `learners`, with `traces`' outcomes (trace name, its runs' outcomes).
pub(super) fn ablation(learners: &[LearnedRun], traces: &[(String, Vec<Outcome>)]) -> String {
    let mut text = String::from(
        "### Ablation: the learners side by side\n\nEach learner of the protocol with what it trains with (its `set` and `workload_set` in `data/experiments/reproduce.toml`, beyond the agent's jobs defaults); per trace, over its training seeds, the mean (and range) of the mean-JCT change against the best heuristic on the family's validation windows and on the held-out ones, and the seeds that meet the bar. The ingredients of PPO from scratch one at a time, on the Philly family's validation windows, are in docs/ppo-from-scratch.md.\n\n| learner | agent, rounds | trains with |",
    );
    let mut rule = String::from("| --- | --- | --- |");
    for (trace, _) in traces {
        text += &format!(" {trace}: validation | {trace}: held out | {trace}: at the bar |");
        rule += " --- | --- | --- |";
    }
    text += &format!("\n{rule}\n");
    for learner in learners {
        text += &format!(
            "| {} | {}, {} | {} |",
            learner.label,
            learner.agent,
            learner.steps,
            settings(learner)
        );
        for (_, outcomes) in traces {
            let runs: Vec<&Outcome> = outcomes
                .iter()
                .filter(|o| o.learner == learner.label)
                .collect();
            let validation: Vec<f64> = runs.iter().map(|o| o.validation_change).collect();
            let heldout: Vec<f64> = runs.iter().map(|o| o.heldout_change).collect();
            text += &format!(
                " {} | {} | {} / {} |",
                spread(&validation),
                spread(&heldout),
                runs.iter().filter(|o| o.meets_the_bar).count(),
                runs.len()
            );
        }
        text += "\n";
    }
    text + "\n" + &formulation(learners, traces)
}

/// Which part of the formulation holds PPO from scratch back, read off the rows that differ in
/// one thing: PPO on the full choice set against PPO on `grow_only` (the decision interface,
/// same algorithm) and PPO against ES on `grow_only` at the same wall-clock budget (the
/// algorithm, same choices). Empty where the protocol lacks one of the three rows.
fn formulation(learners: &[LearnedRun], traces: &[(String, Vec<Outcome>)]) -> String {
    let from_scratch = |agent: &str, grow_only: bool| {
        learners.iter().find(|l| {
            l.agent == agent
                && l.steps > 0
                && !l.set.contains_key("warm_start")
                && l.set.get("grow_only") == grow_only.then_some(&toml::Value::Boolean(true))
        })
    };
    let (Some(full), Some(grow), Some(es)) = (
        from_scratch("ppo", false),
        from_scratch("ppo", true),
        from_scratch("es", true),
    ) else {
        return String::new();
    };
    let mut text = format!(
        "### What holds PPO from scratch back\n\nThe mean held-out change against the best heuristic over training seeds, per trace, of three rows that differ in one thing each: \"{}\" against \"{}\" changes the decision interface alone (no preemption or shrinking), \"{}\" against \"{}\" the algorithm alone (the same per-job actor, choices and wall-clock budget).\n\n| trace | {} | {} | {} | interface (grow only − full) | algorithm (ES − PPO, grow only) |\n| --- | ---: | ---: | ---: | ---: | ---: |\n",
        full.label, grow.label, es.label, grow.label, full.label, grow.label, es.label
    );
    let mut gaps = Vec::new();
    for (trace, outcomes) in traces {
        let heldout = |learner: &LearnedRun| {
            let changes: Vec<f64> = outcomes
                .iter()
                .filter(|o| o.learner == learner.label)
                .map(|o| o.heldout_change)
                .collect();
            (!changes.is_empty()).then(|| mean(&changes))
        };
        let (Some(f), Some(g), Some(e)) = (heldout(full), heldout(grow), heldout(es)) else {
            continue;
        };
        gaps.push((g - f, e - g));
        text += &format!(
            "| {trace} | {f:+.1}% | {g:+.1}% | {e:+.1}% | {:+.1} points | {:+.1} points |\n",
            g - f,
            e - g
        );
    }
    if gaps.is_empty() {
        return String::new();
    }
    let interface = mean(&gaps.iter().map(|g| g.0).collect::<Vec<_>>());
    let algorithm = mean(&gaps.iter().map(|g| g.1).collect::<Vec<_>>());
    let larger = if algorithm.abs() >= interface.abs() {
        format!(
            "the algorithm's ({algorithm:+.1} points, ES against PPO on the same choices and budget; the interface's {interface:+.1})"
        )
    } else {
        format!(
            "the decision interface's ({interface:+.1} points, grow only against the full choice set; the algorithm's {algorithm:+.1})"
        )
    };
    text += &format!(
        "\nA negative share is a lower mean JCT for the second row of the pair. Averaged over the traces, the larger gap is {larger}. The reference learners (CleanRL-style masked PPO and sb3-contrib's MaskablePPO, through the Python binding on the same one-choice interface with a flat network) are level with schedlab's flat PPO there, and none of them comes near `fifo` on the Philly family (docs/learned.md, \"Reference learners on the jobs env\"; docs/ppo-from-scratch.md).\n\n"
    );
    text
}

/// `key=value, ...` of the learner's hyperparameters and training-workload settings.
fn settings(learner: &LearnedRun) -> String {
    let keys: BTreeMap<&String, &toml::Value> =
        learner.set.iter().chain(&learner.workload_set).collect();
    if keys.is_empty() {
        return "the defaults".to_owned();
    }
    keys.iter()
        .map(|(k, v)| format!("`{k}={v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `-17.3% (-23.1% to -10.9%)`: the mean and range of `changes`; `unfinished` where a run left
/// a job unfinished.
fn spread(changes: &[f64]) -> String {
    if changes.is_empty() {
        return String::new();
    }
    if changes.iter().any(|c| !c.is_finite()) {
        return "unfinished".to_owned();
    }
    let low = changes.iter().copied().fold(f64::INFINITY, f64::min);
    let high = changes.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if changes.len() == 1 {
        format!("{:+.1}%", changes[0])
    } else {
        format!("{:+.1}% ({low:+.1}% to {high:+.1}%)", mean(changes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learner(label: &str, set: &[(&str, toml::Value)]) -> LearnedRun {
        learner_of("es", label, set)
    }

    fn learner_of(agent: &str, label: &str, set: &[(&str, toml::Value)]) -> LearnedRun {
        LearnedRun {
            label: label.into(),
            agent: agent.into(),
            steps: 40,
            set: set
                .iter()
                .map(|(k, v)| ((*k).to_owned(), v.clone()))
                .collect(),
            workload_set: BTreeMap::new(),
            seeds: vec![0, 1, 2],
            workload: None,
            play: Vec::new(),
        }
    }

    fn outcome(learner: &str, validation: f64, heldout: f64, meets: bool) -> Outcome {
        Outcome {
            learner: learner.into(),
            validation_change: validation,
            heldout_change: heldout,
            meets_the_bar: meets,
        }
    }

    /// A learner's row pools its own seeds only, per trace, counts the seeds at the bar and
    /// marks a run that left jobs unfinished on validation rather than averaging it.
    #[test]
    fn each_row_pools_its_learners_seeds_per_trace() {
        let learners = [
            learner("grow", &[("grow_only", toml::Value::Boolean(true))]),
            learner("plain", &[]),
        ];
        let traces = [
            (
                "philly".to_owned(),
                vec![
                    outcome("grow", -10.0, -20.0, true),
                    outcome("plain", 5.0, 8.0, false),
                    outcome("grow", -20.0, -10.0, false),
                ],
            ),
            (
                "openb".to_owned(),
                vec![outcome("grow", f64::INFINITY, -3.0, true)],
            ),
        ];
        let text = ablation(&learners, &traces);
        assert!(
            text.contains(
                "| grow | es, 40 | `grow_only=true` | -15.0% (-20.0% to -10.0%) | -15.0% (-20.0% to -10.0%) | 1 / 2 | unfinished | -3.0% | 1 / 1 |"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "| plain | es, 40 | the defaults | +5.0% | +8.0% | 0 / 1 |  |  | 0 / 0 |"
            ),
            "{text}"
        );
        assert!(text.contains("philly: held out | philly: at the bar | openb: validation"));
    }

    /// The pairs that differ in one thing give the interface's and the algorithm's gaps per
    /// trace, and the larger of their means is named; without an ES row there is no pair.
    #[test]
    fn the_formulation_paragraph_separates_the_interface_from_the_algorithm() {
        let grow = [("grow_only", toml::Value::Boolean(true))];
        let learners = [
            learner_of("ppo", "full", &[]),
            learner_of("ppo", "grow", &grow),
            learner_of("es", "es", &grow),
            learner_of(
                "ppo",
                "clone",
                &[("warm_start", toml::Value::String("raes".into()))],
            ),
        ];
        let traces = [
            (
                "philly".to_owned(),
                vec![
                    outcome("full", 10.0, 6.0, false),
                    outcome("grow", 5.0, 4.0, false),
                    outcome("grow", 5.0, 8.0, false),
                    outcome("es", -9.0, -14.0, true),
                    outcome("clone", 0.0, 50.0, false),
                ],
            ),
            (
                "openb".to_owned(),
                vec![
                    outcome("full", 1.0, 20.0, false),
                    outcome("grow", 1.0, 10.0, false),
                    outcome("es", 1.0, -10.0, true),
                ],
            ),
        ];
        let text = formulation(&learners, &traces);
        assert!(
            text.contains("| philly | +6.0% | +6.0% | -14.0% | +0.0 points | -20.0 points |"),
            "{text}"
        );
        assert!(
            text.contains("| openb | +20.0% | +10.0% | -10.0% | -10.0 points | -20.0 points |"),
            "{text}"
        );
        assert!(
            text.contains("the larger gap is the algorithm's (-20.0 points"),
            "{text}"
        );
        assert_eq!(formulation(&learners[..2], &traces), "");
    }
}
