//! Fingerprints the sources that decide what training and playing compute (the env,
//! predictors, agents and trainer crates, and Cargo.lock's versions), so that
//! `reproduce` trains again the runs trained from other sources and a sweep does not take rows
//! played by them for its own (`src/sources.rs`). Real execution (`env/src/real/`) drives
//! processes and Slurm and no simulated episode, so it has a fingerprint of its own making: the
//! simulation's sources with it, for what was measured on real processes.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const SOURCES: [&str; 4] = ["env", "predictors", "agents", "trainer"];

/// Sources that no simulated episode or training run executes.
const REAL_EXECUTION: &str = "env/src/real";

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
    let mut simulation = Sha256::new();
    let mut with_real_execution = Sha256::new();
    for file in &files {
        let relative = file.strip_prefix(root).unwrap_or(file);
        let contents = std::fs::read(file).unwrap_or_default();
        let name = relative.to_string_lossy();
        with_real_execution.update(name.as_bytes());
        with_real_execution.update(&contents);
        if !relative.starts_with(REAL_EXECUTION) {
            simulation.update(name.as_bytes());
            simulation.update(&contents);
        }
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
    println!(
        "cargo:rustc-env=SCHEDLAB_TRAINING_SOURCES={}",
        short(simulation)
    );
    println!(
        "cargo:rustc-env=SCHEDLAB_REAL_EXECUTION_SOURCES={}",
        short(with_real_execution)
    );
}

/// The first 16 hex digits of the digest.
fn short(hash: Sha256) -> String {
    let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    digest[..16].to_owned()
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
