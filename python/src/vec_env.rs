//! Many copies of one env stepped together in Rust (`RustVecEnv`), with the GIL released.

use std::sync::Mutex;

use numpy::PyArray1;
use pyo3::prelude::*;
use schedlab_env::kinds::AnyVecEnv;

use crate::convert::{BatchArrays, VecStepArrays, batch_arrays, py_error, to_choices};

/// Many copies of one env stepped together in Rust, each reset as soon as its episode ends
/// (Gymnasium's same-step autoreset).
#[pyclass(name = "RustVecEnv", module = "schedlab._schedlab")]
pub(crate) struct PyVecEnv {
    envs: Mutex<AnyVecEnv>,
}

impl PyVecEnv {
    pub(crate) fn new(envs: AnyVecEnv) -> Self {
        PyVecEnv {
            envs: Mutex::new(envs),
        }
    }
}

#[pymethods]
impl PyVecEnv {
    fn __len__(&self) -> usize {
        self.envs.lock().expect("vec env lock").len()
    }

    /// `(features[n, d], masks[n, m])`.
    fn reset<'py>(&self, py: Python<'py>) -> PyResult<BatchArrays<'py>> {
        let mut guard = self.envs.lock().expect("vec env lock");
        let envs: &mut AnyVecEnv = &mut guard;
        let observations = py.detach(|| envs.reset()).map_err(py_error)?;
        batch_arrays(py, observations)
    }

    /// `(features, masks, rewards, terminated, truncated, infos_json, final_features)`, where
    /// `final_features[i]` is copy `i`'s last observation when its episode ended this step.
    fn step<'py>(&self, py: Python<'py>, actions: Vec<Vec<i64>>) -> PyResult<VecStepArrays<'py>> {
        let actions = actions
            .iter()
            .map(|a| to_choices(a))
            .collect::<PyResult<Vec<_>>>()?;
        let mut guard = self.envs.lock().expect("vec env lock");
        let envs: &mut AnyVecEnv = &mut guard;
        let out = py.detach(|| envs.step(&actions)).map_err(py_error)?;
        let (features, masks) = batch_arrays(py, out.observations)?;
        let finals = out
            .final_observations
            .into_iter()
            .map(|o| o.map(|o| PyArray1::from_vec(py, o.features)))
            .collect();
        Ok((
            features,
            masks,
            PyArray1::from_vec(py, out.rewards),
            PyArray1::from_vec(py, out.terminated),
            PyArray1::from_vec(py, out.truncated),
            out.infos_json,
            finals,
        ))
    }
}
