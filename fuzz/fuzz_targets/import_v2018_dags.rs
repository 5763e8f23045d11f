//! The `alibaba-v2018` trace importer (`schedlab workload import`, DAGs from `task_name`): any bytes as its CSV.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_experiments::traces::Format;

#[path = "trace_import.rs"]
mod trace_import;

fuzz_target!(|data: &[u8]| {
    trace_import::import(
        Format::AlibabaV2018,
        "traces/alibaba_pai_v2020/pai_machine_spec.csv",
        data,
    );
});
