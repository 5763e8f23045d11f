//! A suite's SHA-256 manifest: `MANIFEST.sha256` beside its files, one `HASH  PATH` line per
//! file in `sha256sum`'s format (so `sha256sum -c MANIFEST.sha256` checks it too). A suite's
//! files never change: a file changed, missing or not listed is refused by name.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use schedlab_artifacts::{sha256_bytes, sha256_file};

/// The manifest's file name in a suite's folder.
pub const MANIFEST: &str = "MANIFEST.sha256";

/// Every file under `dir` but the manifest, as paths relative to it with `/`, sorted.
fn files_under(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut found = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(relative) = folders.pop() {
        let here = dir.join(&relative);
        for entry in
            std::fs::read_dir(&here).with_context(|| format!("reading {}", here.display()))?
        {
            let entry = entry?;
            let path = relative.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                folders.push(path);
            } else {
                let name = path.to_string_lossy().replace('\\', "/");
                if name != MANIFEST {
                    found.push(name);
                }
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Writes `dir`'s manifest of every file in it; returns the manifest's own hash.
pub fn write(dir: &Path) -> anyhow::Result<String> {
    let mut text = String::new();
    for name in files_under(dir)? {
        let hash = sha256_file(&dir.join(&name)).with_context(|| format!("hashing {name}"))?;
        text += &format!("{hash}  {name}\n");
    }
    crate::output::write_atomic(&dir.join(MANIFEST), text.as_bytes())?;
    Ok(sha256_bytes(text.as_bytes()))
}

/// Checks every file of `dir` against its manifest; returns the manifest's own hash, which
/// names the suite's exact files in a result.
pub fn verify(dir: &Path) -> anyhow::Result<String> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{}: a suite's folder holds its manifest", path.display()))?;
    let mut listed = Vec::new();
    for (row, line) in text.lines().enumerate() {
        let Some((hash, name)) = line.split_once("  ") else {
            bail!(
                "{}, line {}: not `HASH  PATH`: {line:?}",
                path.display(),
                row + 1
            );
        };
        let file = dir.join(name);
        let actual = sha256_file(&file).with_context(|| {
            format!(
                "{}: {name}, listed in the manifest, cannot be read",
                dir.display()
            )
        })?;
        if actual != hash {
            bail!(
                "{}: {name} changed since the suite was made (sha256 {actual}, the manifest says {hash}); a suite's files never change: a change makes a new version",
                dir.display()
            );
        }
        listed.push(name.to_owned());
    }
    listed.sort();
    if let Some(extra) = files_under(dir)?
        .into_iter()
        .find(|f| listed.binary_search(f).is_err())
    {
        bail!("{}: {extra} is not in the suite's manifest", dir.display());
    }
    Ok(sha256_bytes(text.as_bytes()))
}
