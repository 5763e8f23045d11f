//! A network workload's checks, each fault refused naming its key (run by `load.rs`).

use std::path::Path;

use super::quantize::Quantizer;
use super::schema::NetworkWorkloadSpec;
use super::switching::{GraphKind, Switching};
use crate::error::{EnvError, Result};

/// The graph's shape has a density, and its switching is static or dropout.
fn check_graph(path: &Path, spec: &NetworkWorkloadSpec) -> Result<()> {
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    match spec.graph.shape {
        GraphKind::Ring => {}
        GraphKind::Geometric { radius } if radius.is_finite() && radius > 0.0 => {}
        GraphKind::ErdosRenyi { p } if p > 0.0 && p <= 1.0 => {}
        other => return bad("graph.shape", format!("{other:?}: a density in (0, 1]")),
    }
    match spec.graph.switching {
        Switching::Static => Ok(()),
        Switching::Dropout { p, period } if (0.0..1.0).contains(&p) && period > 0 => Ok(()),
        Switching::Redraw { .. } => bad(
            "graph.switching",
            "redraw: the env's actions are flows on the base graph's edges, which a redrawn graph leaves; use dropout (`schedlab reproduce network` studies redrawn graphs)".into(),
        ),
        other => bad(
            "graph.switching",
            format!("{other:?}: dropout p in [0, 1) and period >= 1"),
        ),
    }
}

/// Every section's values: the kind, the centres' bounds and demand, the graph, the channel,
/// the training step, the episode and the flow ladder.
pub(super) fn check(path: &Path, spec: &NetworkWorkloadSpec) -> Result<()> {
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    let positive = |v: f64| v.is_finite() && v > 0.0;
    if spec.kind != "network" {
        return bad(
            "kind",
            format!(
                "`{}`: a network workload says kind = \"network\"",
                spec.kind
            ),
        );
    }
    let c = &spec.centres;
    if c.count < 2 {
        return bad(
            "centres.count",
            format!("{}: a network needs 2 centres", c.count),
        );
    }
    let (lo, hi) = c.max_cpus;
    if !(lo.is_finite() && hi.is_finite() && 4.0 <= lo && lo <= hi) {
        return bad(
            "centres.max_cpus",
            format!("[{lo}, {hi}]: a range of upper bounds at or above the 4-CPU lower bound"),
        );
    }
    if !(4.0..=lo).contains(&c.demand_per_centre) {
        return bad(
            "centres.demand_per_centre",
            format!(
                "{}: the even split must lie within every centre's bounds, [4, {lo}]",
                c.demand_per_centre
            ),
        );
    }
    check_graph(path, spec)?;
    match spec.channel {
        Quantizer::Exact => {}
        Quantizer::Log {
            rho,
            smallest,
            largest,
        } if positive(rho) && positive(smallest) && largest > smallest && largest.is_finite() => {}
        Quantizer::Uniform { bits, largest } if (2..=32).contains(&bits) && positive(largest) => {}
        other => {
            return bad(
                "channel",
                format!(
                    "{other:?}: rho, smallest > 0 and largest above smallest; uniform bits in 2..=32"
                ),
            );
        }
    }
    let t = &spec.training;
    if !(t.step.is_finite() && t.step > 0.0 && t.l2.is_finite() && t.l2 >= 0.0) {
        return bad(
            "training",
            format!(
                "step {} must be positive and l2 {} not negative",
                t.step, t.l2
            ),
        );
    }
    if spec.episode.iterations == 0 {
        return bad("episode.iterations", "an episode needs an iteration".into());
    }
    let f = &spec.flows;
    if !positive(f.smallest) || !(1..=60).contains(&f.levels) {
        return bad(
            "flows",
            format!(
                "smallest {} must be positive and levels {} in 1..=60",
                f.smallest, f.levels
            ),
        );
    }
    Ok(())
}
