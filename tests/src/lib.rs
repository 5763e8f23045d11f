//! # schedlab-tests
//!
//! End-to-end tests: the `schedlab` binary driven as a user would, and behaviour that spans
//! crates (policies acting in environments). The tests live in `tests/`; this library only
//! holds what they share: where the shipped data are, how to reach the built binary, how to
//! check a chart file, the import graph the layout rules are checked on, what a module root
//! holds, and the length of every function.

use std::path::{Path, PathBuf};

pub mod code;
pub mod function_length;
pub mod import_graph;
pub mod module_roots;

/// The repository's `data/` folder.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// A shipped workload file.
pub fn workload(name: &str) -> PathBuf {
    data_dir().join("workloads").join(name)
}

/// Width and height of a PNG file, after checking its signature and header chunk.
pub fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{}: PNG signature",
        path.display()
    );
    assert_eq!(&bytes[12..16], b"IHDR", "{}: header chunk", path.display());
    let be = |k: usize| u32::from_be_bytes(bytes[k..k + 4].try_into().expect("4 bytes"));
    (be(16), be(20))
}
