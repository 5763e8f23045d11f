//! # schedlab-py
//!
//! The Python binding: `schedlab._schedlab`, the native half of the `schedlab` Python package
//! (python/schedlab). It owns the conversion of the env contract to Python: observations and
//! masks as numpy arrays, infos as JSON text, errors as Python exceptions, and stepping with
//! the GIL released. The Gymnasium classes, id registration and masked-action policies live
//! in Python. It depends on the env crate only: no schedulers, no polars, no command line.

use std::path::PathBuf;
use std::sync::Mutex;

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use schedlab_env::{EnvError, Observation};

use schedlab_env::kinds::{AnyEnv, AnyVecEnv, AnyWorkload};

fn py_error(e: EnvError) -> PyErr {
    match e {
        EnvError::Io { .. } => PyOSError::new_err(e.to_string()),
        EnvError::Parse { .. }
        | EnvError::Config { .. }
        | EnvError::BadAction(_)
        | EnvError::Infeasible { .. } => PyValueError::new_err(e.to_string()),
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

fn to_choices(action: &[i64]) -> PyResult<Vec<usize>> {
    action
        .iter()
        .map(|&a| {
            usize::try_from(a).map_err(|_| PyValueError::new_err(format!("negative choice {a}")))
        })
        .collect()
}

type Features<'py> = Bound<'py, PyArray1<f32>>;
type Mask<'py> = Bound<'py, PyArray1<bool>>;
type Flags<'py> = Bound<'py, PyArray1<bool>>;

fn arrays(py: Python<'_>, observation: Observation) -> (Features<'_>, Mask<'_>) {
    (
        PyArray1::from_vec(py, observation.features),
        PyArray1::from_vec(py, observation.action_mask),
    )
}

/// One env; `reset` and `step` release the GIL while Rust works.
#[pyclass(name = "RustEnv", module = "schedlab._schedlab")]
struct PyEnv {
    env: Mutex<AnyEnv>,
}

impl PyEnv {
    fn with<T>(&self, f: impl FnOnce(&AnyEnv) -> T) -> T {
        f(&self.env.lock().expect("env lock"))
    }
}

#[pymethods]
impl PyEnv {
    #[new]
    #[pyo3(signature = (workload, overrides = Vec::new()))]
    fn new(workload: PathBuf, overrides: Vec<(String, String)>) -> PyResult<Self> {
        let env = AnyWorkload::load(&workload, &overrides)
            .map_err(py_error)?
            .env();
        Ok(PyEnv {
            env: Mutex::new(env),
        })
    }

    /// `SingleJob`, `Jobs`, `Dag` or `Network`.
    #[getter]
    fn kind(&self) -> &'static str {
        self.with(|env| env.kind().type_name())
    }

    #[getter]
    fn workload_name(&self) -> String {
        self.with(AnyEnv::workload_name)
    }

    /// Choices per action dimension (a `MultiDiscrete`'s `nvec`).
    #[getter]
    fn nvec(&self) -> Vec<usize> {
        self.with(AnyEnv::nvec)
    }

    #[getter]
    fn action_labels(&self) -> Vec<String> {
        self.with(AnyEnv::action_labels)
    }

    /// `(name, count, width)` of each block of observation features.
    #[getter]
    fn observation_groups(&self) -> Vec<(String, usize, usize)> {
        self.with(AnyEnv::observation_groups)
    }

    #[getter]
    fn observation_len(&self) -> usize {
        self.with(AnyEnv::observation_len)
    }

    /// The most steps an episode can take.
    #[getter]
    fn step_limit(&self) -> usize {
        self.with(AnyEnv::step_limit)
    }

    /// `(features, mask, info_json)` of the episode's first state.
    fn reset<'py>(
        &self,
        py: Python<'py>,
        seed: u64,
    ) -> PyResult<(Features<'py>, Mask<'py>, String)> {
        let mut guard = self.env.lock().expect("env lock");
        let env: &mut AnyEnv = &mut guard;
        let (observation, info) = py.detach(|| env.reset(seed)).map_err(py_error)?;
        let (features, mask) = arrays(py, observation);
        Ok((features, mask, info))
    }

    /// `(features, mask, reward, terminated, truncated, info_json)`; a refused action leaves
    /// the env as it was and raises `ValueError`.
    fn step<'py>(
        &self,
        py: Python<'py>,
        action: Vec<i64>,
    ) -> PyResult<(Features<'py>, Mask<'py>, f64, bool, bool, String)> {
        let action = to_choices(&action)?;
        let mut guard = self.env.lock().expect("env lock");
        let env: &mut AnyEnv = &mut guard;
        let out = py.detach(|| env.step(&action)).map_err(py_error)?;
        let (features, mask) = arrays(py, out.observation);
        Ok((
            features,
            mask,
            out.reward,
            out.terminated,
            out.truncated,
            out.info_json,
        ))
    }

    /// `copies` copies of this env's workload stepped together in Rust.
    fn vectorised(&self, copies: usize, base_seed: u64) -> PyResult<PyVecEnv> {
        if copies == 0 {
            return Err(PyValueError::new_err(
                "a vector env needs at least one copy",
            ));
        }
        Ok(PyVecEnv {
            envs: Mutex::new(self.with(|e| e.vectorised(copies, base_seed))),
        })
    }
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

type BatchArrays<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<bool>>);
/// `(features, masks, rewards, terminated, truncated, infos_json, final_features)`.
type VecStepArrays<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<f64>>,
    Flags<'py>,
    Flags<'py>,
    Vec<String>,
    Vec<Option<Features<'py>>>,
);

fn batch_arrays(py: Python<'_>, observations: Vec<Observation>) -> PyResult<BatchArrays<'_>> {
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

/// Many copies of one env stepped together in Rust, each reset as soon as its episode ends
/// (Gymnasium's same-step autoreset).
#[pyclass(name = "RustVecEnv", module = "schedlab._schedlab")]
struct PyVecEnv {
    envs: Mutex<AnyVecEnv>,
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

#[pymodule]
fn _schedlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEnv>()?;
    m.add_class::<PyVecEnv>()?;
    Ok(())
}
