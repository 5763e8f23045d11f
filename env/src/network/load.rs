//! Reading a network workload file: the TOML with its overrides, read once
//! (`crate::workload_file`), checked (`checks.rs`), its data set and linear model loaded and
//! its base graph drawn; the kind's loaded form (`gym::Workload`).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::checks::check;
use super::env::NetworkEnv;
use super::instance::NetworkWorkload;
use super::schema::NetworkWorkloadSpec;
use super::switching::connected;
use crate::data::Prepared;
use crate::error::{EnvError, Result};
use crate::model::{LinearLoss, LinearModel};
use crate::schema::ModelKind;
use crate::workload_file::WorkloadFile;

impl NetworkWorkload {
    /// Reads a network workload with `key.path=value` overrides and checks it whole.
    pub fn load(path: &Path, overrides: &[(String, String)]) -> Result<NetworkWorkload> {
        Self::load_file(&WorkloadFile::read(path)?, overrides)
    }

    /// [`Self::load`] of a file already read.
    pub fn load_file(
        file: &WorkloadFile,
        overrides: &[(String, String)],
    ) -> Result<NetworkWorkload> {
        let path = &file.path;
        let spec: NetworkWorkloadSpec = file.load_as(overrides)?;
        check(path, &spec)?;
        let (prepared, dropped_rows): (Prepared, usize) =
            crate::single_job::scenario::load_dataset(path, &spec.training.dataset)?;
        let data = prepared.train;
        let loss = match spec.training.model {
            ModelKind::Svm => LinearLoss::Hinge,
            ModelKind::Logistic => LinearLoss::Logistic,
            ModelKind::Ridge => LinearLoss::Squared,
            other => {
                return Err(EnvError::config(
                    path,
                    "training.model",
                    format!(
                        "{other:?}: consensus training takes a linear model (svm, logistic, ridge)"
                    ),
                ));
            }
        };
        let model = LinearModel::new(loss, data.features.cols(), data.task).ok_or_else(|| {
            EnvError::config(
                path,
                "training.model",
                format!(
                    "{:?} does not fit a {:?} data set",
                    spec.training.model, data.task
                ),
            )
        })?;
        if data.len() < spec.centres.count {
            return Err(EnvError::config(
                path,
                "centres.count",
                format!(
                    "{} centres for {} training rows: every centre needs a row",
                    spec.centres.count,
                    data.len()
                ),
            ));
        }
        let g = &spec.graph;
        let base = connected(
            g.shape,
            spec.centres.count,
            g.weights,
            &mut StdRng::seed_from_u64(g.seed),
        )
        .map_err(|e| EnvError::config(path, "graph.shape", e.to_string()))?;
        Ok(NetworkWorkload {
            base,
            spec,
            path: path.to_owned(),
            data: Arc::new(data),
            model: Arc::new(model),
            dropped_rows,
            central: OnceLock::new(),
        })
    }
}

impl crate::gym::Workload for Arc<NetworkWorkload> {
    type Env = NetworkEnv;

    fn load(file: &WorkloadFile, overrides: &[(String, String)]) -> Result<Self> {
        NetworkWorkload::load_file(file, overrides).map(Arc::new)
    }

    fn env(&self) -> NetworkEnv {
        NetworkEnv::new(Arc::clone(self))
    }
}
