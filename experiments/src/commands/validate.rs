//! `schedlab workload validate`: load a workload of any kind and print its summary.

use std::path::Path;

use crate::workloads::{Kind, with_kind};

pub fn run(path: &Path) -> anyhow::Result<()> {
    let loaded = crate::workloads::load(path, &[])?;
    println!("{}", with_kind!(&loaded, |workload| workload.summary())?);
    Ok(())
}
