//! A workload loaded once: its data, model and trace, shared by every env built from it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use burn::tensor::Device;

use super::schema::SingleJobWorkload;
use crate::cluster::{BackgroundSpec, NodeSpec, TraceStats, TraceTask, load_v2018_tasks};
use crate::data::{Prepared, load_csv, load_libsvm, prepare};
use crate::error::{EnvError, Result};
use crate::model::{LinearLoss, LinearModel, Mlp, Model};
use crate::schema::{DataFormat, DatasetSpec, ModelKind, TaskKind};
use crate::workload_file::resolve;

pub struct Scenario {
    pub path: PathBuf,
    pub workload: SingleJobWorkload,
    pub nodes: Vec<NodeSpec>,
    pub data: Prepared,
    /// Rows dropped for missing values under `na = "drop_row"`.
    pub dropped_rows: usize,
    pub model: Arc<dyn Model>,
    pub trace: Option<Arc<Vec<TraceTask>>>,
    pub trace_stats: Option<TraceStats>,
    /// The first run's initial parameters and their validation loss: linear models start from
    /// zeros whatever the seed, so every later run reuses it instead of a full validation pass.
    first_initial_loss: OnceLock<(Vec<f32>, f64)>,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario")
            .field("path", &self.path)
            .field("name", &self.workload.name)
            .finish()
    }
}

impl Scenario {
    /// Loads data, model and trace for an already validated workload read from `path`.
    pub fn from_workload(path: &Path, workload: SingleJobWorkload) -> Result<Arc<Scenario>> {
        let (data, dropped_rows) = load_dataset(path, &workload.job.dataset)?;
        let model = build_model(path, &workload, &data)?;
        let workers = workload.expanded_nodes().len();
        if data.train.len() < workers {
            return Err(EnvError::config(
                path,
                "job.dataset",
                format!(
                    "the training set's {} rows leave no shard for each of the {workers} nodes' workers",
                    data.train.len()
                ),
            ));
        }
        let (trace, trace_stats) = match &workload.background {
            BackgroundSpec::Trace { path: file, .. } => {
                let (tasks, stats) = load_v2018_tasks(&resolve(path, file))?;
                (Some(Arc::new(tasks)), Some(stats))
            }
            _ => (None, None),
        };
        Ok(Arc::new(Scenario {
            path: path.to_owned(),
            nodes: workload.expanded_nodes(),
            workload,
            data,
            dropped_rows,
            model,
            trace,
            trace_stats,
            first_initial_loss: OnceLock::new(),
        }))
    }

    /// The mean validation loss at a run's initial parameters (exactly
    /// `model.mean_loss(params, validation)`; remembered for the first parameters seen).
    pub fn initial_loss(&self, params: &[f32]) -> f64 {
        if let Some((first, loss)) = self.first_initial_loss.get()
            && first
                .iter()
                .map(|v| v.to_bits())
                .eq(params.iter().map(|v| v.to_bits()))
        {
            return *loss;
        }
        let loss = self.model.mean_loss(params, &self.data.validation);
        if self.first_initial_loss.get().is_none() {
            let _ = self.first_initial_loss.set((params.to_vec(), loss));
        }
        loss
    }

    /// One line for `workload validate`.
    pub fn summary(&self) -> String {
        let w = &self.workload;
        let d = &self.data;
        let mut s = format!(
            "{}: {} nodes, {} model ({} parameters), {} train / {} validation rows x {} features{}, optimizer {}, target loss {}, rounds of {}s up to {} rounds / {}s",
            w.name,
            self.nodes.len(),
            self.model.name(),
            self.model.num_params(),
            d.train.len(),
            d.validation.len(),
            d.train.features.cols(),
            if d.train.features.is_sparse() {
                " (sparse)"
            } else {
                ""
            },
            w.job.optimizer.name(),
            w.job.target_loss,
            w.episode.round_interval_s,
            w.episode.max_rounds,
            w.episode.max_time_s,
        );
        if self.dropped_rows > 0 {
            s += &format!(", {} rows dropped for missing values", self.dropped_rows);
        }
        if let Some(stats) = &self.trace_stats {
            s += &format!(", background: {stats}");
        }
        s
    }
}

/// The data set `spec` describes, read relative to the workload file at `path`, split and
/// scaled; with the rows dropped for missing values.
pub fn load_dataset(path: &Path, spec: &DatasetSpec) -> Result<(Prepared, usize)> {
    let classification = spec.task == TaskKind::Classification;
    let read = |file: &str| -> Result<(crate::data::Features, crate::data::RawLabels, usize)> {
        let full = resolve(path, file);
        match spec.format {
            DataFormat::Csv => load_csv(
                &full,
                spec.label.as_deref().unwrap_or_default(),
                &spec.drop_columns,
                spec.na,
            ),
            DataFormat::Libsvm => load_libsvm(&full, spec.features).map(|(x, y)| (x, y, 0)),
        }
    };
    let (train_x, train_y, mut dropped_rows) = read(&spec.path)?;
    // a separate validation file must share the training width
    let validation = match &spec.validation_path {
        Some(file) => {
            let full = resolve(path, file);
            let (x, y, dropped) = match spec.format {
                DataFormat::Csv => read(file)?,
                DataFormat::Libsvm => {
                    load_libsvm(&full, Some(spec.features.unwrap_or(train_x.cols())))
                        .map(|(x, y)| (x, y, 0))?
                }
            };
            dropped_rows += dropped;
            Some((x, y))
        }
        None => None,
    };
    let mut data = prepare(
        (train_x, train_y),
        validation,
        classification,
        spec.validation_fraction,
        spec.split_seed,
        spec.scaling,
    )?;
    if let Some(rows) = spec.validation_rows.filter(|&r| r < data.validation.len()) {
        use rand::SeedableRng;
        use rand::seq::SliceRandom;
        let mut order: Vec<usize> = (0..data.validation.len()).collect();
        order.shuffle(&mut rand::rngs::StdRng::seed_from_u64(
            spec.split_seed ^ 0x7a11d,
        ));
        order.truncate(rows);
        order.sort_unstable();
        data.validation = data.validation.select(&order);
    }
    Ok((data, dropped_rows))
}

fn build_model(
    path: &Path,
    workload: &SingleJobWorkload,
    data: &Prepared,
) -> Result<Arc<dyn Model>> {
    let cols = data.train.features.cols();
    let task = data.train.task;
    let linear = |loss| -> Result<Arc<dyn Model>> {
        LinearModel::new(loss, cols, task)
            .map(|m| Arc::new(m) as Arc<dyn Model>)
            .ok_or_else(|| {
                EnvError::config(
                    path,
                    "job.model",
                    format!("{:?} does not fit a {task:?} dataset", workload.job.model),
                )
            })
    };
    match workload.job.model {
        ModelKind::Softmax => linear(LinearLoss::Softmax),
        ModelKind::Logistic => linear(LinearLoss::Logistic),
        ModelKind::Svm => linear(LinearLoss::Hinge),
        ModelKind::Ridge => linear(LinearLoss::Squared),
        ModelKind::Mlp => Ok(Arc::new(Mlp::new(
            cols,
            &workload.job.hidden,
            task,
            Device::flex(),
        ))),
    }
}
