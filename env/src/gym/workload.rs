//! What a kind's loaded workload file offers, so that one table of kinds (`crate::kinds`)
//! can load a file of any kind and make its envs.

use super::environment::Environment;
use crate::error::Result;
use crate::workload_file::WorkloadFile;

/// A workload file of one kind, loaded and ready to make envs from.
pub trait Workload: Sized {
    type Env: Environment;
    /// Loads `file` (read once, `crate::workload_file`) with `overrides` (dotted
    /// `section.key=value`) set.
    fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self>;
    /// A fresh env with no episode started.
    fn env(&self) -> Self::Env;
}
