//! An episode's metrics as named columns: each kind's metrics declare theirs
//! ([`crate::gym::EpisodeSummary::COLUMNS`]), and every table, CSV and comparison reads them.

/// Which way a metric is better, for marking the best policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
    /// Neither direction is better in itself (occupancy).
    Neither,
}

/// A metric column of episodes' metrics `M`: its name as in the metrics' JSON, its value as
/// a number (booleans as 0/1), how many decimals to print, which way is better, and whether
/// it is a yes/no figure (printed `true`/`false` per episode).
pub struct MetricColumn<M> {
    pub name: &'static str,
    pub value: fn(&M) -> f64,
    pub decimals: usize,
    pub better: Better,
    pub flag: bool,
}

/// A column of numbers.
pub const fn column<M>(
    name: &'static str,
    value: fn(&M) -> f64,
    decimals: usize,
    better: Better,
) -> MetricColumn<M> {
    MetricColumn {
        name,
        value,
        decimals,
        better,
        flag: false,
    }
}

impl<M> MetricColumn<M> {
    /// This column as a yes/no figure (its value 0 or 1).
    pub const fn as_flag(self) -> Self {
        MetricColumn { flag: true, ..self }
    }

    /// One episode's cell.
    pub fn cell(&self, m: &M) -> String {
        let v = (self.value)(m);
        if self.flag {
            (v > 0.5).to_string()
        } else {
            format!("{:.*}", self.decimals, v)
        }
    }
}
