//! Where the shipped data is: the checkout's `data/` or the one the binary was built from.

use std::path::PathBuf;

/// The data folder that holds `relative` (a file or a folder): the checkout's `data/` when run
/// from its root and it has it, otherwise the one this binary was built from.
pub fn data_root(relative: &str) -> PathBuf {
    let local = PathBuf::from("data");
    if local.join(relative).exists() {
        local
    } else {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
    }
}

/// A shipped workload file by name ([`data_root`]).
pub fn shipped_workload(name: &str) -> PathBuf {
    let relative = format!("workloads/{name}");
    data_root(&relative).join(relative)
}
