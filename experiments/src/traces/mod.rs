//! Trace import (ARCHITECTURE.md, "Importers"): real cluster traces into jobs workloads, with polars. Every
//! format's reader validates strictly, naming file, line and column; `--lenient` drops bad
//! rows instead and counts them by reason.

mod bound;
mod date_time;
mod format;
pub mod gavel_templates;
pub mod import;
pub mod machines;
mod openb;
mod philly;
mod reader;
pub mod table;
pub mod template_fit;
pub mod templates;
pub mod v2018;

#[cfg(test)]
mod tests;

pub use bound::Bound;
pub use format::{Format, read_jobs};
pub use machines::read_machines;
pub use reader::{ReadJobs, ReadOptions, Window};
pub use table::{RowError, TextTable};
