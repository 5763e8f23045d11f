//! A run folder's `manifest.json`, as `--resume`, `eval` and the shipped-policy loader read it:
//! any bytes are refused or read without a panic.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use schedlab_trainer::run::Manifest;

fn run_folder() -> &'static PathBuf {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER.get_or_init(|| {
        let folder = std::env::temp_dir().join(format!("schedlab-fuzz-run-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("a scratch run folder");
        folder
    })
}

fuzz_target!(|data: &[u8]| {
    let folder = run_folder();
    std::fs::write(folder.join("manifest.json"), data).expect("a scratch manifest");
    let _ = Manifest::read(folder);
});
