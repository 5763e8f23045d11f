//! Reading a markov workload file, read once (`crate::workload_file`), checked
//! (`checks.rs`), into the kind's loaded form (`gym::Workload`).

use std::path::Path;
use std::sync::Arc;

use super::checks::check;
use super::env::MarkovEnv;
use super::schema::MarkovWorkloadSpec;
use super::workload::MarkovWorkload;
use crate::error::Result;
use crate::gym::Workload;
use crate::workload_file::WorkloadFile;

impl MarkovWorkload {
    /// Reads a markov workload with `key.path=value` overrides and checks it.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<MarkovWorkload> {
        Self::load_file(&WorkloadFile::read(path)?, overrides)
    }

    /// [`Self::load`] of a file already read.
    pub fn load_file(
        file: &WorkloadFile,
        overrides: &[(String, String)],
    ) -> Result<MarkovWorkload> {
        let spec: MarkovWorkloadSpec = file.load_as(overrides)?;
        check(&file.path, &spec)?;
        Ok(MarkovWorkload { spec })
    }
}

impl Workload for Arc<MarkovWorkload> {
    type Env = MarkovEnv;

    fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self> {
        MarkovWorkload::load_file(file, overrides).map(Arc::new)
    }

    fn env(&self) -> MarkovEnv {
        MarkovEnv::new(Arc::clone(self))
    }
}
