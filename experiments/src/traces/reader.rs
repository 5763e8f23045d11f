//! What every trace reader takes besides its file (machines, window, leniency) and gives back
//! (the jobs kept, and what was left out and why).

use std::collections::BTreeMap;

use schedlab_env::jobs::{JobRecord, MachineSpec};

use super::bound::Bound;
use super::table::{RowError, TextTable};

/// What a reader needs besides its file.
pub struct ReadOptions<'a> {
    pub machines: &'a [MachineSpec],
    /// Keep jobs arriving in `[from, to)`.
    pub from: Option<Bound>,
    pub to: Option<Bound>,
    pub lenient: bool,
    pub seed: u64,
}

impl ReadOptions<'_> {
    /// The window in trace seconds; `epoch_origin` is the trace's time zero on the wall clock
    /// when it has one.
    pub fn window(&self, epoch_origin: Option<i64>) -> anyhow::Result<Window> {
        let resolve = |b: Option<Bound>| -> anyhow::Result<Option<f64>> {
            Ok(match b {
                None => None,
                Some(Bound::Seconds(s)) => Some(s),
                Some(Bound::Epoch(e)) => Some(
                    (e - epoch_origin.ok_or_else(|| {
                        anyhow::anyhow!("this trace has no wall clock: give --from/--to in seconds")
                    })?) as f64,
                ),
            })
        };
        Ok(Window {
            from: resolve(self.from)?,
            to: resolve(self.to)?,
        })
    }
}

/// `[from, to)` in trace seconds.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub from: Option<f64>,
    pub to: Option<f64>,
}

impl Window {
    pub fn contains(&self, t: f64) -> bool {
        self.from.is_none_or(|f| t >= f) && self.to.is_none_or(|to| t < to)
    }

    /// Shifts arrivals so the window's start (or the first kept job) is time 0.
    pub fn rebase(&self, jobs: &mut [JobRecord]) {
        let origin = self.from.unwrap_or_else(|| {
            jobs.iter()
                .map(|j| j.arrival_s)
                .fold(f64::INFINITY, f64::min)
        });
        if origin.is_finite() {
            jobs.iter_mut().for_each(|j| j.arrival_s -= origin);
        }
    }
}

/// Jobs read from a trace, with what was left out and why.
#[derive(Debug, Default)]
pub struct ReadJobs {
    pub jobs: Vec<JobRecord>,
    pub rows_read: usize,
    /// Rows outside `--from/--to`.
    pub outside_window: usize,
    /// Rows `--lenient` dropped, by reason.
    pub dropped: BTreeMap<String, usize>,
    /// Things kept but changed, by what (for example cut DAG dependencies).
    pub warnings: BTreeMap<String, usize>,
}

impl ReadJobs {
    /// Strict: the first bad row is the error. Lenient: it is counted and skipped.
    pub fn keep<T>(
        &mut self,
        lenient: bool,
        value: Result<T, RowError>,
    ) -> anyhow::Result<Option<T>> {
        match value {
            Ok(v) => Ok(Some(v)),
            Err(e) if lenient => {
                *self
                    .dropped
                    .entry(format!("column `{}`: {}", e.column, e.reason))
                    .or_default() += 1;
                Ok(None)
            }
            Err(e) => Err(anyhow::anyhow!("{e} (pass --lenient to drop such rows)")),
        }
    }

    /// Keeps a row's job, counts it outside the window (`Ok(None)`), or drops or refuses a bad
    /// row as [`ReadJobs::keep`] does.
    pub fn take(
        &mut self,
        lenient: bool,
        row: Result<Option<JobRecord>, RowError>,
    ) -> anyhow::Result<()> {
        match self.keep(lenient, row)? {
            Some(Some(job)) => self.jobs.push(job),
            Some(None) => self.outside_window += 1,
            None => {}
        }
        Ok(())
    }

    pub fn warn(&mut self, what: &str) {
        *self.warnings.entry(what.to_owned()).or_default() += 1;
    }

    pub fn dropped_total(&self) -> usize {
        self.dropped.values().sum()
    }
}

/// Whether one container fits on some machine; the error names the columns it came from.
pub(crate) fn check_fits(
    table: &TextTable,
    row: usize,
    columns: &str,
    machines: &[MachineSpec],
    request: [u32; 3],
) -> Result<(), RowError> {
    if machines
        .iter()
        .any(|m| schedlab_env::jobs::fits_empty(m, request))
    {
        Ok(())
    } else {
        Err(table.invalid(
            row,
            columns,
            "fits on no node",
            format!(
                "a container of {} mCPU, {} MiB, {} mGPU is larger than every machine",
                request[0], request[1], request[2]
            ),
        ))
    }
}
