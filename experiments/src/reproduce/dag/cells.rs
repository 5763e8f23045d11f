//! The makespans of one setting (an axis's point, or the real DAGs) per scheduler, which the
//! headline and the paired comparison read.

use std::collections::BTreeMap;

use super::policies::Labels;
use crate::reproduce::context::values;
use crate::sweep::journal::Row;

pub(super) const MAKESPAN: &str = "makespan_s";

/// The makespans of one setting, per scheduler.
pub(super) struct Cell {
    pub(super) name: String,
    pub(super) by_policy: BTreeMap<String, Vec<f64>>,
}

impl Cell {
    pub(super) fn of(rows: &[Row], labels: &Labels, variant: &str, name: String) -> Cell {
        let by_policy = labels
            .iter()
            .map(|(spec, label)| (label.clone(), values(rows, spec, variant, MAKESPAN)))
            .collect();
        Cell { name, by_policy }
    }
}
