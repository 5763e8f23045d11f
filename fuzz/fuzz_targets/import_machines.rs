//! Machine lists (`schedlab workload import --nodes`: the openb node list, the PAI v2020
//! machine spec, a machines TOML): any bytes as a CSV and as a TOML file, strict and lenient.
#![no_main]

use libfuzzer_sys::fuzz_target;
use schedlab_experiments::traces::read_machines;

#[path = "scratch.rs"]
mod scratch;

fuzz_target!(|data: &[u8]| {
    for name in ["machines.csv", "machines.toml"] {
        let path = scratch::file(name, data);
        for lenient in [false, true] {
            let _ = read_machines(&path, lenient);
        }
    }
});
