//! A jobs workload's Parquet job table (`read_jobs_parquet`, the reader the CLI gives the
//! env): any bytes as the table, refused or read without a panic reaching the caller.
#![no_main]

use std::sync::Once;

use libfuzzer_sys::fuzz_target;
use schedlab_experiments::traces::table::read_jobs_parquet;

#[path = "scratch.rs"]
mod scratch;

/// `read_jobs_parquet` turns polars' panics on damaged files into errors; libFuzzer's panic
/// hook would abort on such a caught panic, so a silent hook replaces it. A panic that escapes
/// the reader still fails the target: libfuzzer-sys aborts on it.
fn quiet_caught_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}

fuzz_target!(|data: &[u8]| {
    quiet_caught_panics();
    let _ = read_jobs_parquet(&scratch::file("table.jobs.parquet", data));
});
