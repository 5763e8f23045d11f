//! One env of any kind (`RustEnv`), built from a workload file through env's one dispatch
//! (env/src/kinds.rs).

use std::path::PathBuf;
use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use schedlab_env::kinds::{AnyEnv, AnyWorkload};

use crate::convert::{Features, Mask, arrays, py_error, to_choices};
use crate::vec_env::PyVecEnv;

/// One env; `reset` and `step` release the GIL while Rust works.
#[pyclass(name = "RustEnv", module = "schedlab._schedlab")]
pub(crate) struct PyEnv {
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

    /// The groups with one block per unit (per job slot, per GPU), the first group first:
    /// what a per-unit network reads unit by unit.
    #[getter]
    fn unit_groups(&self) -> Vec<String> {
        self.with(AnyEnv::observation_unit_groups)
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
        Ok(PyVecEnv::new(
            self.with(|e| e.vectorised(copies, base_seed)),
        ))
    }
}
