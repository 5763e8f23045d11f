//! The `--set key=value` parser: any key and value set on a shipped workload's table, then
//! read as that kind's schema, without a panic. Input: `key=value`.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use schedlab_env::jobs::JobsWorkload;
use schedlab_env::workload_file::set_key;

const SHIPPED: &str = include_str!("../../data/workloads/philly-mini.toml");

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Some((key, value)) = text.split_once('=') else {
        return;
    };
    let mut table: toml::Table = toml::from_str(SHIPPED).expect("a shipped workload parses");
    if set_key(&mut table, key, value).is_ok()
        && let Ok(workload) = toml::Value::Table(table).try_into::<JobsWorkload>()
    {
        let _ = workload.validate(Path::new("fuzz.toml"));
    }
});
