//! Shared body of the trace importer targets: any bytes as a trace CSV of one format, read
//! strictly and leniently against the shipped machine list the shipped imports use
//! (data/SOURCES.md), without a panic.

use std::sync::OnceLock;

use schedlab_env::jobs::MachineSpec;
use schedlab_experiments::traces::{Format, ReadOptions, read_jobs, read_machines};

#[path = "scratch.rs"]
mod scratch;

fn machines(list: &str) -> &'static [MachineSpec] {
    static MACHINES: OnceLock<Vec<MachineSpec>> = OnceLock::new();
    MACHINES.get_or_init(|| {
        read_machines(&scratch::shipped(list), false)
            .expect("a shipped machine list")
            .0
    })
}

pub fn import(format: Format, machine_list: &str, data: &[u8]) {
    let path = scratch::file("trace.csv", data);
    for lenient in [false, true] {
        let options = ReadOptions {
            machines: machines(machine_list),
            from: None,
            to: None,
            lenient,
            seed: 0,
        };
        let _ = read_jobs(format, &path, &options);
    }
}
