//! The `philly` trace importer (`schedlab workload import`): any bytes as its CSV.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_experiments::traces::Format;

#[path = "trace_import.rs"]
mod trace_import;

fuzz_target!(|data: &[u8]| {
    trace_import::import(
        Format::Philly,
        "traces/alibaba_pai_v2020/pai_machine_spec.csv",
        data,
    );
});
