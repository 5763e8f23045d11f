//! The `alibaba-openb` trace importer (`schedlab workload import`): any bytes as its CSV.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_experiments::traces::Format;

#[path = "trace_import.rs"]
mod trace_import;

fuzz_target!(|data: &[u8]| {
    trace_import::import(
        Format::AlibabaOpenb,
        "traces/alibaba_gpu_v2023/openb_node_list_all_node.csv",
        data,
    );
});
