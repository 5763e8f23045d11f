//! Scratch files and shipped inputs shared by the targets (each target includes this file).
//! Scratch files live in one folder per fuzzing process, outside the repository.

use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

/// This process's scratch folder.
pub fn folder() -> &'static Path {
    static FOLDER: OnceLock<PathBuf> = OnceLock::new();
    FOLDER.get_or_init(|| {
        let folder = std::env::temp_dir().join(format!("schedlab-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&folder).expect("a scratch folder");
        folder
    })
}

/// `data` written to the scratch file `name`.
#[allow(dead_code)] // the targets that read from a folder of their own do not use it
pub fn file(name: &str, data: &[u8]) -> PathBuf {
    let path = folder().join(name);
    std::fs::write(&path, data).expect("a scratch file");
    path
}

/// A shipped file under `data/`.
#[allow(dead_code)] // not every target reads shipped files
pub fn shipped(relative: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(relative)
}

/// For targets whose reader turns a dependency's panics into errors (polars, burn:
/// `schedlab_artifacts::without_panic`): libFuzzer's panic hook would abort on such a caught
/// panic, so a silent hook replaces it. A panic that escapes the reader still fails the target:
/// libfuzzer-sys aborts on it.
#[allow(dead_code)] // only the targets of such readers call it
pub fn quiet_caught_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| std::panic::set_hook(Box::new(|_| {})));
}
