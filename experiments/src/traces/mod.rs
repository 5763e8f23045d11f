//! Trace import (ARCHITECTURE.md, "Importers"): real cluster traces into jobs workloads, with polars. Every
//! format's reader validates strictly, naming file, line and column; `--lenient` drops bad
//! rows instead and counts them by reason.

pub mod import;
pub mod machines;
mod openb;
mod philly;
pub mod table;
pub mod template_fit;
pub mod templates;
pub mod v2018;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::Path;

use schedlab_env::jobs::{JobRecord, MachineSpec};

pub use machines::read_machines;
pub use table::{RowError, TextTable};

/// The trace formats `schedlab workload import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Alibaba GPU v2023 `openb` pods (`--jobs`) on its node list (`--nodes`).
    AlibabaOpenb,
    /// Alibaba PAI v2020 machine spec (`--nodes`): a cluster description, no jobs.
    AlibabaPaiMachines,
    /// Philly jobs as Pollux's artifact tabulates them (`--jobs`), on `--nodes`.
    Philly,
    /// Alibaba v2018 batch tasks with their DAGs (`--jobs`), on `--nodes`.
    AlibabaV2018,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::AlibabaOpenb => "alibaba-openb",
            Format::AlibabaPaiMachines => "alibaba-pai-machines",
            Format::Philly => "philly",
            Format::AlibabaV2018 => "alibaba-v2018",
        }
    }
}

/// One end of the `--from/--to` window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// Seconds on the trace's own clock.
    Seconds(f64),
    /// A wall-clock date-time (seconds since 1970), for traces that have one (Philly).
    Epoch(i64),
}

impl Bound {
    /// A number of seconds, or a `YYYY-MM-DD[ HH:MM:SS]` date-time.
    pub fn parse(text: &str) -> anyhow::Result<Bound> {
        if let Ok(v) = text.trim().parse::<f64>() {
            return Ok(Bound::Seconds(v));
        }
        philly::epoch_seconds(text)
            .map(Bound::Epoch)
            .ok_or_else(|| {
                anyhow::anyhow!("{text:?}: expected seconds or a date-time YYYY-MM-DD[ HH:MM:SS]")
            })
    }

    /// This bound moved on by `seconds` (whole seconds on a wall clock).
    pub fn plus_s(self, seconds: f64) -> Bound {
        match self {
            Bound::Seconds(s) => Bound::Seconds(s + seconds),
            Bound::Epoch(e) => Bound::Epoch(e + seconds.round() as i64),
        }
    }
}

/// As `--from`/`--to` take it back.
impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::Seconds(s) => write!(f, "{s}"),
            Bound::Epoch(e) => write!(f, "{}", philly::date_time(*e)),
        }
    }
}

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

/// Reads the jobs of a trace file in `format`.
pub fn read_jobs(format: Format, path: &Path, options: &ReadOptions) -> anyhow::Result<ReadJobs> {
    let table = TextTable::read(path)?;
    match format {
        Format::AlibabaOpenb => openb::read(&table, options),
        Format::Philly => philly::read(&table, options),
        Format::AlibabaV2018 => v2018::read(&table, options),
        Format::AlibabaPaiMachines => {
            anyhow::bail!("alibaba-pai-machines describes machines only: pass it as --nodes")
        }
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
