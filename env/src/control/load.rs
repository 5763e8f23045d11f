//! Reading a control workload file, read once (`crate::workload_file`), checked
//! (`checks.rs`), into the kind's loaded form (`gym::Workload`).

use std::path::Path;
use std::sync::Arc;

use super::checks::check;
use super::env::ControlEnv;
use super::schema::ControlWorkloadSpec;
use super::workload::ControlWorkload;
use crate::error::Result;
use crate::gym::Workload;
use crate::workload_file::WorkloadFile;

impl ControlWorkload {
    /// Reads a control workload with `key.path=value` overrides and checks it.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<ControlWorkload> {
        Self::load_file(&WorkloadFile::read(path)?, overrides)
    }

    /// [`Self::load`] of a file already read.
    pub fn load_file(
        file: &WorkloadFile,
        overrides: &[(String, String)],
    ) -> Result<ControlWorkload> {
        let spec: ControlWorkloadSpec = file.load_as(overrides)?;
        check(&file.path, &spec)?;
        Ok(ControlWorkload { spec })
    }
}

impl Workload for Arc<ControlWorkload> {
    type Env = ControlEnv;

    fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self> {
        ControlWorkload::load_file(file, overrides).map(Arc::new)
    }

    fn env(&self) -> ControlEnv {
        ControlEnv::new(Arc::clone(self))
    }
}
