//! Fingerprints the sources that decide what training and playing compute (the env,
//! predictors, agents and trainer crates, and Cargo.lock's versions), so that
//! `reproduce` trains again the runs trained from other sources and a sweep does not take rows
//! played by them for its own (`src/sources.rs`).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const SOURCES: [&str; 4] = ["env", "predictors", "agents", "trainer"];

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace");
    let mut files = vec![root.join("Cargo.lock")];
    for krate in SOURCES {
        files.push(root.join(krate).join("Cargo.toml"));
        collect(&root.join(krate).join("src"), &mut files);
    }
    files.sort();
    let mut hash = Sha256::new();
    for file in &files {
        let relative = file.strip_prefix(root).unwrap_or(file);
        hash.update(relative.to_string_lossy().as_bytes());
        hash.update(std::fs::read(file).unwrap_or_default());
    }
    // Cargo scans a directory for any change, new and removed files included
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.lock").display()
    );
    for krate in SOURCES {
        println!(
            "cargo:rerun-if-changed={}",
            root.join(krate).join("Cargo.toml").display()
        );
        println!(
            "cargo:rerun-if-changed={}",
            root.join(krate).join("src").display()
        );
    }
    let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!(
        "cargo:rustc-env=SCHEDLAB_TRAINING_SOURCES={}",
        &digest[..16]
    );
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
