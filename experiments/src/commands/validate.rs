//! `schedlab workload validate`: load a workload of any kind and print its summary.

use std::path::Path;

use schedlab_experiments::workloads::{Kind, with_kind};

pub fn run(path: &Path) -> anyhow::Result<()> {
    let loaded = schedlab_experiments::workloads::load(path, &[])?;
    println!("{}", with_kind!(&loaded, |workload| workload.summary())?);
    Ok(())
}
