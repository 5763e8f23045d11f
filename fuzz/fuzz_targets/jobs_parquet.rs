//! A jobs workload's Parquet job table (`read_jobs_parquet`, the reader the CLI gives the
//! env): any bytes as the table, refused or read without a panic reaching the caller.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_experiments::traces::table::read_jobs_parquet;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    scratch::quiet_caught_panics();
    let _ = read_jobs_parquet(&scratch::file("table.jobs.parquet", data));
});
