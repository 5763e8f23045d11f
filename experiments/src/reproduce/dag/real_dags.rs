//! The study on real Alibaba DAGs: makespan, SLR and the ratio to the reference's makespan on
//! the same instance.

use super::cells::MAKESPAN;
use super::policies::{Labels, spec_of};
use crate::reproduce::context::{mean_ci, paired_p, values};
use crate::reproduce::protocol::DagProtocol;
use crate::sweep::journal::Row;

pub(super) fn trace_table(p: &DagProtocol, rows: &[Row], labels: &Labels) -> String {
    let reference = spec_of(labels, &p.reference);
    let ours = values(rows, reference, "default", MAKESPAN);
    let mut text = format!(
        "### Real DAGs: `{}`\n\nEpisodes hold consecutive Alibaba jobs of very different lengths, so makespans spread widely between instances; SLR (makespan over the critical-path bound) and the ratio to {}'s makespan on the same instance compare schedulers within an instance.\n\n| scheduler | makespan (s) | SLR | makespan / {}'s, same instance | p (makespan; Wilcoxon; paired t) |\n| --- | --- | --- | --- | --- |\n",
        p.trace_workload, p.reference, p.reference
    );
    for (spec, label) in labels {
        let v = values(rows, spec, "default", MAKESPAN);
        let pv = if spec == reference {
            String::new()
        } else {
            paired_p(&v, &ours).cell()
        };
        // rows come in grid order: both lists are in seed order
        let ratio: Vec<f64> = v.iter().zip(&ours).map(|(m, o)| m / o).collect();
        text += &format!(
            "| {label} | {} | {} | {} | {pv} |\n",
            mean_ci(&v),
            mean_ci(&values(rows, spec, "default", "slr")),
            mean_ci(&ratio)
        );
    }
    text + "\n"
}
