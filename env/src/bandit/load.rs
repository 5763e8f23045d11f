//! Reading a bandit workload file, read once (`crate::workload_file`), checked
//! (`checks.rs`), into the kind's loaded form (`gym::Workload`).

use std::path::Path;
use std::sync::Arc;

use super::checks::check;
use super::env::BanditEnv;
use super::instance::BanditWorkload;
use super::schema::BanditWorkloadSpec;
use crate::error::Result;
use crate::gym::Workload;
use crate::workload_file::WorkloadFile;

impl BanditWorkload {
    /// Reads a bandit workload with `key.path=value` overrides and checks it.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<BanditWorkload> {
        Self::load_file(&WorkloadFile::read(path)?, overrides)
    }

    /// [`Self::load`] of a file already read.
    pub fn load_file(
        file: &WorkloadFile,
        overrides: &[(String, String)],
    ) -> Result<BanditWorkload> {
        let spec: BanditWorkloadSpec = file.load_as(overrides)?;
        check(&file.path, &spec)?;
        Ok(BanditWorkload::new(spec))
    }
}

impl Workload for Arc<BanditWorkload> {
    type Env = BanditEnv;

    fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self> {
        BanditWorkload::load_file(file, overrides).map(Arc::new)
    }

    fn env(&self) -> BanditEnv {
        BanditEnv::new(Arc::clone(self))
    }
}
