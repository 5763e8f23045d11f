//! A real job's checkpoint on disk: the iterations it completed and its parameters, written
//! atomically (a temporary file renamed over the old one), so a preempted job resumes from
//! exactly where it stopped.

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{EnvError, Result};
use crate::real::process::{is_gone, run_pid};
use crate::real::wire::{receive, send};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Header {
    job: String,
    iteration: u64,
}

/// What a job resumes from.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    /// Iterations completed.
    pub iteration: u64,
    pub params: Vec<f32>,
}

impl Checkpoint {
    /// Writes job `job`'s checkpoint to `path` atomically.
    pub fn save(&self, path: &Path, job: &str) -> Result<()> {
        let header = Header {
            job: job.to_owned(),
            iteration: self.iteration,
        };
        schedlab_artifacts::write_atomic_with(path, |temporary| {
            let mut out = BufWriter::new(File::create(temporary)?);
            send(&mut out, &header, &self.params)?;
            out.flush()
        })
        .map_err(|e| EnvError::io(path, e))
    }

    /// Job `job`'s checkpoint at `path`, if it has one; a checkpoint of another job is refused.
    pub fn load(path: &Path, job: &str) -> Result<Option<Checkpoint>> {
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(EnvError::io(path, e)),
        };
        let (header, params) =
            receive::<Header>(&mut BufReader::new(file)).map_err(|e| EnvError::io(path, e))?;
        if header.job != job {
            return Err(EnvError::RealExecution {
                message: format!(
                    "{} holds job {}'s checkpoint, not job {job}'s",
                    path.display(),
                    header.job
                ),
            });
        }
        Ok(Some(Checkpoint {
            iteration: header.iteration,
            params,
        }))
    }
}

/// Prefix of a run's checkpoint folder in the temporary folder, `PREFIX{pid}-{run}`.
pub(super) const FOLDER_PREFIX: &str = "schedlab-checkpoints-";

/// Removes the checkpoint folders under `temp` of runs whose process is gone (killed before
/// it could clean up), as the next run removes their control groups.
pub(super) fn remove_stale_folders(temp: &Path) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name.to_str().and_then(|n| run_pid(n, FOLDER_PREFIX));
        if pid.is_some_and(is_gone) {
            // best effort: a folder that cannot go now is tried again by the next run
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_of_dead_runs_go_and_live_ones_stay() {
        let temp = tempfile_dir();
        let dead = temp.join(format!("{FOLDER_PREFIX}4294967295-0"));
        let mine = temp.join(format!("{FOLDER_PREFIX}{}-7", std::process::id()));
        let other = temp.join("schedlab-something-else");
        for dir in [&dead, &mine, &other] {
            std::fs::create_dir_all(dir.join("inner")).unwrap();
        }
        remove_stale_folders(&temp);
        assert!(!dead.exists() && mine.exists() && other.exists());
        std::fs::remove_dir_all(&temp).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("schedlab-stale-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_checkpoint_round_trips_exactly_and_names_its_job() {
        let dir = std::env::temp_dir().join(format!("schedlab-ckpt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("job-3.ckpt");
        assert_eq!(Checkpoint::load(&path, "a").unwrap(), None);
        let saved = Checkpoint {
            iteration: 17,
            params: vec![0.1, -3.5e-8, f32::MAX, 0.0],
        };
        saved.save(&path, "a").unwrap();
        assert_eq!(Checkpoint::load(&path, "a").unwrap(), Some(saved));
        let other = Checkpoint::load(&path, "b").unwrap_err().to_string();
        assert!(other.contains("job a's checkpoint"), "{other}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
