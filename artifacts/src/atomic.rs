//! Writes that replace a file whole: the bytes go to a temporary file beside the target, which
//! is synced to disk and then renamed over it, so a crash leaves the old file or the new one,
//! never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically, creating its folder if missing.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |tmp| {
        std::fs::File::create(tmp)?.write_all(bytes)?;
        Ok(())
    })
}

/// Writes `path` atomically through `write`, which fills the temporary file it is given (a
/// third-party writer that takes a path, such as burn's records). The temporary is synced and
/// renamed over `path`; where `write` fails it is removed and the error comes back as is.
pub fn write_atomic_with<E: From<std::io::Error>>(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), E>,
) -> Result<(), E> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = temporary_beside(path);
    let written = write(&tmp).and_then(|()| {
        std::fs::File::open(&tmp)?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    });
    if written.is_err() {
        // what a failed writer left; the target is untouched
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// A name beside `path` that no other writer uses.
fn temporary_beside(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.tmp", std::process::id()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<std::ffi::OsString> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect()
    }

    #[test]
    fn atomic_writes_replace_whole_files_and_leave_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/a.json");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert_eq!(names(&dir.path().join("sub")), vec!["a.json"]);
    }

    #[test]
    fn a_failed_writer_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.bpk");
        write_atomic(&path, b"old").unwrap();
        let failed = write_atomic_with(&path, |tmp| {
            std::fs::write(tmp, b"half")?;
            Err(std::io::Error::other("the writer gave up"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "the writer gave up");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(dir.path()), vec!["a.bpk"]);
    }
}
