//! One writer per output folder: a run folder, a sweep, a `reproduce` results folder or a
//! `sweep merge` target. The lock is a file linked into the folder only where none exists,
//! holding the writer's pid, host and start time; a second writer is refused with those named. A lock
//! left by a killed process on this host (its pid no longer runs) is taken over. Liveness is
//! read from `/proc`, so on other systems, and for a lock of another host, a lock is only
//! ever refused: remove the file once its writer is known to be gone.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// The lock file's name inside the folder it guards.
pub const LOCK_FILE: &str = ".schedlab.lock";

/// Who holds a folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Holder {
    pub pid: u32,
    pub host: String,
    /// Unix seconds.
    pub started: u64,
    /// What writes there (`sweep`, `train`, ...).
    pub what: String,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "{folder}: another writer holds this folder ({what}, pid {pid} on {host}, started at unix time {started}); wait for it to end, or choose another folder{hint}",
        folder = .folder.display(), what = .holder.what, pid = .holder.pid, host = .holder.host,
        started = .holder.started,
    )]
    Held {
        folder: PathBuf,
        holder: Holder,
        hint: String,
    },
    #[error("{path}: {source}", path = .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Held while it lives; the lock file goes with it.
#[derive(Debug)]
pub struct FolderLock {
    path: PathBuf,
}

fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .ok()
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown host".into())
}

/// Whether `holder` is a process of this host that no longer runs.
fn is_stale(holder: &Holder) -> bool {
    holder.host == this_host()
        && Path::new("/proc/self").exists()
        && !Path::new("/proc").join(holder.pid.to_string()).exists()
}

impl FolderLock {
    /// Locks `folder` (created if missing) for `what`, taking over a stale lock.
    pub fn acquire(folder: &Path, what: &str) -> Result<FolderLock, LockError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| LockError::Io { path, source }
        };
        std::fs::create_dir_all(folder).map_err(io(folder))?;
        let path = folder.join(LOCK_FILE);
        let me = Holder {
            pid: std::process::id(),
            host: this_host(),
            started: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            what: what.to_owned(),
        };
        // the holder is written whole under a name of this process's, then linked in as the
        // lock: the link fails where a lock exists, and a lock is never seen half-written
        static ATTEMPT: AtomicU64 = AtomicU64::new(0);
        let attempt = ATTEMPT.fetch_add(1, Ordering::Relaxed);
        let mine = folder.join(format!("{LOCK_FILE}.{}.{attempt}", me.pid));
        let text = serde_json::to_string(&me).expect("a holder serialises");
        std::fs::write(&mine, text.as_bytes()).map_err(io(&mine))?;
        let linked = Self::link(folder, &mine, &path);
        let _ = std::fs::remove_file(&mine);
        linked
    }

    /// Links `mine` in as the lock at `path`, taking over a stale lock once.
    fn link(folder: &Path, mine: &Path, path: &Path) -> Result<FolderLock, LockError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| LockError::Io { path, source }
        };
        let read_holder = || {
            std::fs::read_to_string(path)
                .ok()
                .and_then(|t| serde_json::from_str::<Holder>(&t).ok())
        };
        for _ in 0..2 {
            match std::fs::hard_link(mine, path) {
                Ok(()) => {
                    return Ok(FolderLock {
                        path: path.to_owned(),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let Some(holder) = read_holder() else {
                        return Err(LockError::Held {
                            folder: folder.to_owned(),
                            holder: Holder {
                                pid: 0,
                                host: "unknown host".into(),
                                started: 0,
                                what: "unreadable lock".into(),
                            },
                            hint: format!(
                                " (`{}` is not a lock this version wrote: remove it if no writer runs)",
                                path.display()
                            ),
                        });
                    };
                    if !is_stale(&holder) {
                        let hint = if holder.host == this_host() {
                            String::new()
                        } else {
                            format!(
                                " (on another host its liveness is unknown: remove `{}` once it is gone)",
                                path.display()
                            )
                        };
                        return Err(LockError::Held {
                            folder: folder.to_owned(),
                            holder,
                            hint,
                        });
                    }
                    eprintln!(
                        "{}: taking over the lock of {} (pid {}, no longer running)",
                        folder.display(),
                        holder.what,
                        holder.pid
                    );
                    match std::fs::remove_file(path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(io(path)(e)),
                    }
                }
                Err(e) => return Err(io(path)(e)),
            }
        }
        // another writer took the stale lock between our removal and our link
        let holder = read_holder().unwrap_or_else(|| Holder {
            pid: 0,
            host: "unknown host".into(),
            started: 0,
            what: "another writer".into(),
        });
        Err(LockError::Held {
            folder: folder.to_owned(),
            holder,
            hint: String::new(),
        })
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_naming_the_holder_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let first = FolderLock::acquire(dir.path(), "sweep").unwrap();
        let e = FolderLock::acquire(dir.path(), "sweep")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("pid {}", std::process::id())) && e.contains("another writer"),
            "{e}"
        );
        drop(first);
        assert!(!dir.path().join(LOCK_FILE).exists());
        FolderLock::acquire(dir.path(), "sweep").unwrap();
    }

    #[test]
    fn a_lock_left_by_a_process_that_ended_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        // a real pid that has ended: a child waited for
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let stale = Holder {
            pid,
            host: this_host(),
            started: 1,
            what: "train".into(),
        };
        let path = dir.path().join(LOCK_FILE);
        std::fs::write(&path, serde_json::to_string(&stale).unwrap()).unwrap();
        let lock = FolderLock::acquire(dir.path(), "sweep").unwrap();
        let now: Holder = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(now.pid, std::process::id());
        drop(lock);
        // another host's lock is never taken over
        let remote = Holder {
            host: "elsewhere".into(),
            ..stale
        };
        std::fs::write(&path, serde_json::to_string(&remote).unwrap()).unwrap();
        let e = FolderLock::acquire(dir.path(), "sweep")
            .unwrap_err()
            .to_string();
        assert!(e.contains("elsewhere") && e.contains("remove"), "{e}");
    }
}
