//! The env contract in Python's terms: errors as Python exceptions, actions from Python
//! integers, observations and masks as numpy arrays, one env's or a batch's.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use schedlab_env::{EnvError, Observation};

pub(crate) fn py_error(e: EnvError) -> PyErr {
    match e {
        EnvError::Io { .. } => PyOSError::new_err(e.to_string()),
        EnvError::Parse { .. }
        | EnvError::Config { .. }
        | EnvError::BadAction(_)
        | EnvError::Infeasible { .. } => PyValueError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

pub(crate) fn to_choices(action: &[i64]) -> PyResult<Vec<usize>> {
    action
        .iter()
        .map(|&a| {
            usize::try_from(a).map_err(|_| PyValueError::new_err(format!("negative choice {a}")))
        })
        .collect()
}

pub(crate) type Features<'py> = Bound<'py, PyArray1<f32>>;
pub(crate) type Mask<'py> = Bound<'py, PyArray1<bool>>;
type Flags<'py> = Bound<'py, PyArray1<bool>>;

pub(crate) fn arrays(py: Python<'_>, observation: Observation) -> (Features<'_>, Mask<'_>) {
    (
        PyArray1::from_vec(py, observation.features),
        PyArray1::from_vec(py, observation.action_mask),
    )
}

/// Rows of equal length as one 2-D array.
fn stacked<'py, T: numpy::Element + Copy>(
    py: Python<'py>,
    rows: impl Iterator<Item = Vec<T>>,
    width: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let flat: Vec<T> = rows.flatten().collect();
    let height = flat.len().checked_div(width).unwrap_or(0);
    PyArray1::from_vec(py, flat).reshape([height, width])
}

pub(crate) type BatchArrays<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<bool>>);
/// `(features, masks, rewards, terminated, truncated, infos_json, final_features)`.
pub(crate) type VecStepArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<f64>>,
    Flags<'py>,
    Flags<'py>,
    Vec<String>,
    Vec<Option<Features<'py>>>,
);

pub(crate) fn batch_arrays(
    py: Python<'_>,
    observations: Vec<Observation>,
) -> PyResult<BatchArrays<'_>> {
    let width = observations.first().map_or(0, |o| o.features.len());
    let mask_width = observations.first().map_or(0, |o| o.action_mask.len());
    let (features, masks): (Vec<_>, Vec<_>) = observations
        .into_iter()
        .map(|o| (o.features, o.action_mask))
        .unzip();
    Ok((
        stacked(py, features.into_iter(), width)?,
        stacked(py, masks.into_iter(), mask_width)?,
    ))
}
