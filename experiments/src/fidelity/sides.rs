//! A workload loaded twice, for the simulator and for real execution, and the simulator again
//! with calibrated settings on top.

use std::path::Path;

use crate::workloads::Loaded;

/// A workload loaded for the simulator and for real execution.
pub struct Sides {
    pub(super) path: std::path::PathBuf,
    overrides: Vec<(String, String)>,
    pub sim: Loaded,
    pub real: Loaded,
}

impl Sides {
    pub fn load(path: &Path, overrides: &[(String, String)]) -> anyhow::Result<Sides> {
        let load = |execution: &str| {
            let mut all = overrides.to_vec();
            all.push(("execution".into(), execution.into()));
            crate::workloads::load(path, &all)
        };
        Ok(Sides {
            path: path.to_owned(),
            overrides: overrides.to_vec(),
            sim: load("sim")?,
            real: load("real")?,
        })
    }

    /// The simulator with `settings` on top.
    pub(super) fn with(&self, settings: &[(String, String)]) -> anyhow::Result<Loaded> {
        let mut all = self.overrides.clone();
        all.extend(settings.iter().cloned());
        all.push(("execution".into(), "sim".into()));
        crate::workloads::load(&self.path, &all)
    }
}
