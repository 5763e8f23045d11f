//! The Alibaba v2018 batch-task reader behind the single-job env's background load and
//! `schedlab predictors` (`load_v2018_tasks`): any bytes as its CSV.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_env::cluster::load_v2018_tasks;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    let _ = load_v2018_tasks(&scratch::file("batch_task.csv", data));
});
