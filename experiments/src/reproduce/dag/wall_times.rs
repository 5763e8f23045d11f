//! Seconds each scheduler takes to plan and play one episode, per DAG size.

use std::time::Instant;

use super::policies::budgeted;
use crate::play::play;
use crate::reproduce::protocol::DagProtocol;
use crate::workloads::{Dag, Loaded};

/// Seconds each scheduler of the protocol (and each of its `timed` specs) takes to plan and
/// play one episode (seed 0), one at a time, per size.
pub(super) fn wall_times(p: &DagProtocol, generated: &std::path::Path) -> anyhow::Result<String> {
    // (spec, row name): a protocol scheduler by its plain name, a timed spec as written
    let policies: Vec<(String, String)> = p
        .policies
        .iter()
        .map(|name| (budgeted(name, p), name.clone()))
        .chain(p.timed.iter().map(|spec| (spec.clone(), spec.clone())))
        .collect();
    let header: Vec<String> = p.tasks.iter().map(|t| t.to_string()).collect();
    let mut text = format!(
        "### Wall time per episode\n\nSeconds to plan and play one episode (seed 0), schedulers run one at a time on this machine; learned schedulers and WORL-RTGS include their networks' inference. Every scheduler plays on one thread but `dag-gnn` with `episodes=K`, which decodes its K episodes side by side on every thread of the pool (`--threads`).\n\n| scheduler | {} |\n| --- |{}\n",
        header.join(" | "),
        " --- |".repeat(header.len())
    );
    let workloads: Vec<Loaded> = p
        .tasks
        .iter()
        .map(|&t| {
            let overrides = [("dags.layered.tasks".to_owned(), t.to_string())];
            crate::workloads::load(generated, &overrides)
        })
        .collect::<anyhow::Result<_>>()?;
    for (spec, row) in &policies {
        let mut cells = Vec::new();
        for loaded in &workloads {
            let w: &Dag = loaded.expect("reproduce dag", generated)?;
            let start = Instant::now();
            play(w, spec, &[], 0)?;
            cells.push(format!("{:.3}", start.elapsed().as_secs_f64()));
        }
        text += &format!("| {row} | {} |\n", cells.join(" | "));
    }
    Ok(text + "\n")
}
