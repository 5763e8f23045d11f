//! Where the shipped data is: the checkout's `data/` or the one the binary was built from.

use std::path::PathBuf;

/// The data folder that holds `relative` (a file or a folder): the checkout's `data/` when run
/// from its root and it has it, otherwise the one this binary was built from.
pub fn data_root(relative: &str) -> PathBuf {
    let local = PathBuf::from("data");
    if local.join(relative).exists() {
        local
    } else {
        built_from_data()
    }
}

/// The `data/` of the checkout this binary was built from, as a path without `..` so that
/// messages show it plainly.
fn built_from_data() -> PathBuf {
    let experiments = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    experiments.parent().unwrap_or(experiments).join("data")
}

/// Trained schedulers shipped with the repository (data/policies/README.md).
pub fn shipped_policies() -> PathBuf {
    data_root("policies").join("policies")
}

/// The fitted predictors shipped with the repository.
pub fn shipped_predictors() -> PathBuf {
    data_root("predictors").join("predictors")
}

/// The fitted job templates shipped with the repository.
pub fn shipped_templates() -> PathBuf {
    data_root("templates").join("templates")
}

/// A shipped workload file by name ([`data_root`]).
pub fn shipped_workload(name: &str) -> PathBuf {
    let relative = format!("workloads/{name}");
    data_root(&relative).join(relative)
}
