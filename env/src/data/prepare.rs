//! Seeded train/validation split and standardisation fitted on the training part only.

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use super::{Dataset, Features, LabelEncoding, RawLabels};
use crate::error::{EnvError, Result};

/// A training and a validation set that share one label encoding and one scaling.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub train: Dataset,
    pub validation: Dataset,
    pub encoding: LabelEncoding,
}

/// Splits (unless a separate validation file is given), encodes labels and rescales features
/// with statistics of the training part ([`FeatureScaling`]); a missing value (NaN) becomes
/// the training mean. Regression targets are standardised, so a target loss is in units of
/// the target's variance.
pub fn prepare(
    train: (Features, RawLabels),
    validation: Option<(Features, RawLabels)>,
    classification: bool,
    validation_fraction: f64,
    seed: u64,
    scaling: FeatureScaling,
) -> Result<Prepared> {
    let ((train_x, train_y), (val_x, val_y)) = match validation {
        Some(v) => {
            if v.0.cols() != train.0.cols() {
                return Err(EnvError::parse(
                    &v.1.path,
                    1,
                    "columns",
                    format!(
                        "{} feature columns, the training file has {}",
                        v.0.cols(),
                        train.0.cols()
                    ),
                ));
            }
            (train, v)
        }
        None => split(train, validation_fraction, seed)?,
    };
    let encoding = LabelEncoding::fit(classification, &train_y)?;
    let (mut train_x, mut val_x) = (train_x, val_x);
    let scaling = Scaling::fit(&train_x, scaling);
    scaling.apply(&mut train_x);
    scaling.apply(&mut val_x);
    let mut train = Dataset::new(train_x, encoding.encode(&train_y)?, encoding.task());
    let mut validation = Dataset::new(val_x, encoding.encode(&val_y)?, encoding.task());
    if !classification {
        let (mean, std) = mean_std(train.labels.iter().map(|&v| v as f64));
        for y in train.labels.iter_mut().chain(validation.labels.iter_mut()) {
            *y = ((*y as f64 - mean) / std) as f32;
        }
    }
    Ok(Prepared {
        train,
        validation,
        encoding,
    })
}

type Part = (Features, RawLabels);

fn split(all: Part, fraction: f64, seed: u64) -> Result<(Part, Part)> {
    let (features, labels) = all;
    let n = labels.values.len();
    let n_val = (n as f64 * fraction).round() as usize;
    if !(0.0..1.0).contains(&fraction) || n_val == 0 || n_val >= n {
        return Err(EnvError::parse(
            &labels.path,
            1,
            "validation_fraction",
            format!(
                "a fraction of {fraction} of {n} rows leaves no training or no validation rows"
            ),
        ));
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut StdRng::seed_from_u64(seed));
    let (val_idx, train_idx) = order.split_at(n_val);
    let pick = |idx: &[usize]| {
        (
            features.select(idx),
            RawLabels {
                path: labels.path.clone(),
                values: idx.iter().map(|&i| labels.values[i].clone()).collect(),
                lines: idx.iter().map(|&i| labels.lines[i]).collect(),
            },
        )
    };
    Ok((pick(train_idx), pick(val_idx)))
}

fn mean_std(values: impl Iterator<Item = f64> + Clone) -> (f64, f64) {
    let (n, sum) = values
        .clone()
        .fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
    let mean = sum / n.max(1) as f64;
    let var = values.map(|v| (v - mean).powi(2)).sum::<f64>() / n.max(1) as f64;
    let std = var.sqrt();
    (mean, if std > 1e-12 { std } else { 1.0 })
}

/// How feature columns are rescaled, with statistics from the training part only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeatureScaling {
    /// Dense: centre and divide by the standard deviation. Sparse: divide by the root mean
    /// square (no centring, so zeros stay zero).
    #[default]
    Standard,
    /// Dense: map the training range to [0, 1]. Sparse: divide by the largest magnitude. Suits
    /// pixels, where a nearly constant border column would otherwise blow up.
    MinMax,
    /// Leave values as read.
    None,
}

/// Per-column shift and scale, and the value a missing entry takes (the training mean,
/// scaled).
struct Scaling {
    shift: Vec<f32>,
    scale: Vec<f32>,
    fill: Vec<f32>,
}

fn nonzero(v: f64) -> f64 {
    if v.abs() > 1e-12 { v } else { 1.0 }
}

impl Scaling {
    fn fit(features: &Features, how: FeatureScaling) -> Scaling {
        match features {
            Features::Dense { cols, values } => {
                let mut s = Scaling {
                    shift: vec![],
                    scale: vec![],
                    fill: vec![],
                };
                for c in 0..*cols {
                    let column = values
                        .iter()
                        .skip(c)
                        .step_by(*cols)
                        .map(|&v| v as f64)
                        .filter(|v| !v.is_nan());
                    let (mean, std) = mean_std(column.clone());
                    let (lo, hi) = column
                        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                            (lo.min(v), hi.max(v))
                        });
                    let (shift, scale) = match how {
                        FeatureScaling::Standard => (mean, std),
                        FeatureScaling::MinMax => (lo, nonzero(hi - lo)),
                        FeatureScaling::None => (0.0, 1.0),
                    };
                    s.shift.push(shift as f32);
                    s.scale.push(scale as f32);
                    s.fill.push(((mean - shift) / scale) as f32);
                }
                s
            }
            Features::Sparse {
                cols,
                indptr,
                indices,
                values,
            } => {
                let rows = (indptr.len() - 1).max(1) as f64;
                let (mut sq, mut max) = (vec![0.0f64; *cols], vec![0.0f64; *cols]);
                for (&j, &v) in indices.iter().zip(values) {
                    sq[j as usize] += (v as f64).powi(2);
                    max[j as usize] = max[j as usize].max((v as f64).abs());
                }
                let scale = (0..*cols)
                    .map(|j| match how {
                        FeatureScaling::Standard => nonzero((sq[j] / rows).sqrt()) as f32,
                        FeatureScaling::MinMax => nonzero(max[j]) as f32,
                        FeatureScaling::None => 1.0,
                    })
                    .collect();
                Scaling {
                    shift: vec![0.0; *cols],
                    scale,
                    fill: vec![0.0; *cols],
                }
            }
        }
    }

    fn apply(&self, features: &mut Features) {
        match features {
            Features::Dense { cols, values } => {
                for (k, v) in values.iter_mut().enumerate() {
                    let c = k % *cols;
                    *v = if v.is_nan() {
                        self.fill[c]
                    } else {
                        (*v - self.shift[c]) / self.scale[c]
                    };
                }
            }
            Features::Sparse {
                indices, values, ..
            } => {
                for (&j, v) in indices.iter().zip(values.iter_mut()) {
                    *v /= self.scale[j as usize];
                }
            }
        }
    }
}
