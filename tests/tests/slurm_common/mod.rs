//! What the Slurm tests share: the cluster script and running a command that must succeed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `deploy/slurm/cluster.sh`.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/slurm/cluster.sh")
}

/// The command's output; a failure fails the test with what it printed.
pub fn checked(command: &mut Command) -> Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{command:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
