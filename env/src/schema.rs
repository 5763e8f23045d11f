//! Schema shared by several kinds of workload file: prices of idle resources, the model a
//! training job fits and the dataset it reads.

use serde::{Deserialize, Serialize};

use crate::data::{FeatureScaling, NaPolicy};

/// Prices used for `idle_cost`, per resource-hour. The defaults are round figures of the
/// order of public cloud on-demand list prices; set your own for a given provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Prices {
    pub cpu_core_hour: f64,
    pub mem_gb_hour: f64,
    pub gpu_hour: f64,
}

impl Default for Prices {
    fn default() -> Self {
        Prices {
            cpu_core_hour: 0.04,
            mem_gb_hour: 0.005,
            gpu_hour: 2.5,
        }
    }
}

impl Prices {
    pub fn per_second(&self) -> [f64; 3] {
        [
            self.cpu_core_hour / 3600.0,
            self.mem_gb_hour / 3600.0,
            self.gpu_hour / 3600.0,
        ]
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    Softmax,
    Logistic,
    Svm,
    Ridge,
    Mlp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataFormat {
    Csv,
    Libsvm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    Classification,
    Regression,
}

fn default_validation_fraction() -> f64 {
    0.2
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatasetSpec {
    pub format: DataFormat,
    /// Relative to the workload file.
    pub path: String,
    pub task: TaskKind,
    /// Label column (CSV only).
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub drop_columns: Vec<String>,
    #[serde(default)]
    pub na: NaPolicy,
    /// Feature count (LIBSVM only; the default is the largest index in the training file).
    #[serde(default)]
    pub features: Option<usize>,
    /// A separate validation file; otherwise `validation_fraction` of the rows, split by `split_seed`.
    #[serde(default)]
    pub validation_path: Option<String>,
    #[serde(default = "default_validation_fraction")]
    pub validation_fraction: f64,
    /// The split is part of the workload, not of the episode, so every episode validates alike.
    #[serde(default)]
    pub split_seed: u64,
    /// Feature rescaling, fitted on the training part.
    #[serde(default)]
    pub scaling: FeatureScaling,
    /// Validate on a fixed subset of this many validation rows (drawn once by `split_seed`)
    /// instead of all of them: the loss the target and the final loss refer to.
    #[serde(default)]
    pub validation_rows: Option<usize>,
}
