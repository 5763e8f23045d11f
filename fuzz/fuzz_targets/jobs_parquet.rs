//! A jobs workload's Parquet job table (`schedlab_artifacts::read_job_table`, the reader of
//! every workload load): any bytes as the table, refused or read without a panic reaching the
//! caller.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_artifacts::read_job_table;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    scratch::quiet_caught_panics();
    let _ = read_job_table(&scratch::file("table.jobs.parquet", data));
});
