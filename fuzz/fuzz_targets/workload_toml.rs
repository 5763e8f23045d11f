//! Workload files of every kind, with `--set` overrides: any text is read without a panic.
//! The input is the file; its lines `##set key=value` are also taken as overrides.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use schedlab_env::kinds::AnyWorkload;

/// A file in a mirror of `data/` (links to every shipped entry, the workloads folder
/// included, entry by entry), so the paths it names resolve as the shipped files' do and
/// nothing is written into the repository.
fn scratch() -> &'static Path {
    static SCRATCH: OnceLock<PathBuf> = OnceLock::new();
    SCRATCH.get_or_init(|| {
        let data = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../data")
            .canonicalize()
            .expect("the shipped data folder");
        let mirror = std::env::temp_dir().join(format!("schedlab-fuzz-{}", std::process::id()));
        let link_all = |from: &Path, to: &Path, skip: &str| {
            std::fs::create_dir_all(to).expect("a scratch folder");
            for entry in std::fs::read_dir(from).expect("a shipped folder") {
                let entry = entry.expect("a shipped entry");
                if entry.file_name() != skip {
                    let _ = std::os::unix::fs::symlink(entry.path(), to.join(entry.file_name()));
                }
            }
        };
        link_all(&data, &mirror, "workloads");
        link_all(&data.join("workloads"), &mirror.join("workloads"), "");
        mirror.join("workloads/input.toml")
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let overrides: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("##set "))
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let path = scratch();
    std::fs::write(path, data).expect("a scratch file");
    let _ = AnyWorkload::load(path, &overrides);
});
