//! Sweep specs (`schedlab sweep SPEC`): any text as a spec, read from the root of a mirror of
//! the repository's `data/` so the workload paths it names resolve as the shipped spec's do;
//! a spec that loads is expanded into its grid.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use schedlab_experiments::sweep::spec::SweepSpec;

#[path = "scratch.rs"]
mod scratch;

/// The spec's path in a scratch root that links `data` to the shipped folder; the process
/// works from that root, as a user runs `schedlab sweep` from the checkout.
fn spec_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let root = scratch::folder();
        let data = scratch::shipped("")
            .canonicalize()
            .expect("the shipped data folder");
        let _ = std::os::unix::fs::symlink(data, root.join("data"));
        std::env::set_current_dir(root).expect("the scratch root");
        root.join("spec.toml")
    })
}

fuzz_target!(|data: &[u8]| {
    let path = spec_path();
    std::fs::write(path, data).expect("a scratch spec");
    if let Ok(spec) = SweepSpec::load(path) {
        let grid = spec.grid();
        let _ = spec.grid_index();
        let _ = spec.variants();
        for cell in grid.iter().take(64) {
            let _ = spec.key(cell);
        }
    }
});
