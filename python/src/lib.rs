//! # schedlab-py
//!
//! The Python binding: `schedlab._schedlab`, the native half of the `schedlab` Python package
//! (python/schedlab). It owns the conversion of the env contract to Python: observations and
//! masks as numpy arrays, infos as JSON text, errors as Python exceptions, and stepping with
//! the GIL released. The Gymnasium classes, id registration and masked-action policies live
//! in Python. It depends on the env crate only: no schedulers, no polars, no command line.

mod convert;
mod env;
mod vec_env;

use pyo3::prelude::*;

use env::PyEnv;
use vec_env::PyVecEnv;

#[pymodule]
fn _schedlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyEnv>()?;
    m.add_class::<PyVecEnv>()?;
    // the kinds as env's table names them, so that python/schedlab/env.py lists none by hand
    let kinds: Vec<&str> = schedlab_env::EnvKind::ALL
        .iter()
        .map(|k| k.type_name())
        .collect();
    m.add("KINDS", kinds)?;
    // where versioned suites are found when not under the working folder (python/schedlab/suite_files.py)
    m.add(
        "BUILT_FROM_DATA",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../data"),
    )?;
    Ok(())
}
