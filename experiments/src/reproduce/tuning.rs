//! The learning-rate tuning that precedes fig2 and table2: every optimiser at every rate of
//! its grid on seeds of its own; the rate with the least mean time to target is kept.

use super::context::{Context, Tuned, mean, values};
use super::protocol::Protocol;
use crate::output::number;
use crate::sweep::spec::{SweepSpec, TrainSettings};

fn tuning_set_name(optimizer: &str, lr: f64) -> String {
    format!("{optimizer}-lr{lr}")
}

/// The section's heading and its table's header: one column per rate of the longest grid.
fn heading(protocol: &Protocol) -> String {
    let columns = protocol
        .tuning
        .sgd_lrs
        .len()
        .max(protocol.tuning.adam_lrs.len());
    format!(
        "## Learning rates (tuning)\n\nEach optimiser is compared at its own best learning rate, chosen on seeds {} (not the reported ones) by mean virtual time to target with static allocation on paper-10node; the chosen rate is in bold. Cells: mean virtual seconds to target (targets reached / episodes).\n\n| optimiser | {} |\n|{}\n",
        protocol
            .tuning
            .seeds
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        (1..=columns)
            .map(|k| format!("rate {k}"))
            .collect::<Vec<_>>()
            .join(" | "),
        " --- |".repeat(columns + 1)
    )
}

/// Plays every optimiser at every rate of its grid on the tuning seeds and keeps, per
/// optimiser, the rate with the least mean virtual time to target (the time limit when missed).
pub fn tune(cx: &Context) -> anyhow::Result<(String, Tuned)> {
    let protocol = &cx.protocol;
    let overrides = protocol
        .optimizers
        .iter()
        .flat_map(|o| {
            protocol
                .lr_grid(&o.name)
                .iter()
                .map(move |&lr| (tuning_set_name(&o.name, lr), cx.optimizer_set(&o.name, lr)))
        })
        .collect();
    let spec = SweepSpec {
        name: "tuning".into(),
        policies: vec!["static".into()],
        workloads: vec![cx.paper.clone()],
        seeds: protocol.tuning.seeds.clone(),
        overrides,
        train: TrainSettings::default(),
    };
    let rows = cx.sweep(&spec)?;
    let mut tuned = Tuned::new();
    let mut text = heading(protocol);
    for o in &protocol.optimizers {
        let times: Vec<(f64, f64, usize, usize)> = protocol
            .lr_grid(&o.name)
            .iter()
            .map(|&lr| {
                let set = tuning_set_name(&o.name, lr);
                let reached = values(&rows, "static", &set, "target_reached");
                (
                    lr,
                    mean(&values(&rows, "static", &set, "completion_time_s")),
                    reached.iter().filter(|&&r| r > 0.5).count(),
                    reached.len(),
                )
            })
            .collect();
        let best = times
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("a grid of rates");
        tuned.insert(o.name.clone(), best.0);
        let cells: Vec<String> = times
            .iter()
            .map(|&(lr, t, hit, n)| {
                let cell = format!("lr {lr}: {} ({hit}/{n})", number(t));
                if lr == best.0 {
                    format!("**{cell}**")
                } else {
                    cell
                }
            })
            .collect();
        text += &format!("| {} | {} |\n", o.label, cells.join(" | "));
    }
    let at_edge: Vec<&str> = protocol
        .optimizers
        .iter()
        .filter(|o| {
            let grid = protocol.lr_grid(&o.name);
            tuned[&o.name] == grid[0] || tuned[&o.name] == grid[grid.len() - 1]
        })
        .map(|o| o.label.as_str())
        .collect();
    if !at_edge.is_empty() {
        text += &format!(
            "\nThe rate chosen for {} is at the edge of its grid, so a rate beyond it might do better; the grids are kept small because an episode that diverges runs the full virtual hour at full update rate (minutes of real time each).\n",
            at_edge.join(" and ")
        );
    }
    text += "\n";
    Ok((text, tuned))
}
