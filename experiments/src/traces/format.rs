//! The trace formats `schedlab workload import` reads, each read by its own reader.

use std::path::Path;

use super::reader::{ReadJobs, ReadOptions};
use super::table::TextTable;
use super::{openb, philly, v2018};

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
