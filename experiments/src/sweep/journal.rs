//! The sweep's journal: one JSON line per finished episode, appended and synced as each ends,
//! so a killed sweep loses no finished row and a rerun skips them.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::spec::CellKey;

/// One episode: its grid coordinates and every metric (booleans as 0/1), in table order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    #[serde(flatten)]
    pub key: CellKey,
    pub metrics: Vec<(String, f64)>,
}

pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
}

pub const JOURNAL: &str = "rows.jsonl";

/// The rows of a journal file. A last line cut short by a kill is reported in the second value
/// and left out; any other bad line is an error naming file and line.
pub fn read_rows(path: &Path) -> anyhow::Result<(Vec<Row>, Option<String>)> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), None)),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let mut rows = Vec::new();
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    for (k, line) in lines.iter().enumerate() {
        match serde_json::from_str::<Row>(line) {
            Ok(row) => rows.push(row),
            Err(_) if k + 1 == lines.len() && !complete => {
                return Ok((
                    rows,
                    Some(format!(
                        "{}: line {} was cut short (a killed write); its episode runs again",
                        path.display(),
                        k + 1
                    )),
                ));
            }
            Err(e) => anyhow::bail!("{} line {}: {e}", path.display(), k + 1),
        }
    }
    Ok((rows, None))
}

impl Journal {
    /// Opens `dir`'s journal for appending, first cutting off a torn last line.
    pub fn open(dir: &Path, keep: usize) -> anyhow::Result<Journal> {
        let path = dir.join(JOURNAL);
        if path.exists() {
            let text = std::fs::read_to_string(&path)?;
            let cut: usize = text.split_inclusive('\n').take(keep).map(str::len).sum();
            if cut < text.len() {
                OpenOptions::new()
                    .write(true)
                    .open(&path)?
                    .set_len(cut as u64)?;
            }
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("opening {}", path.display()))?;
        Ok(Journal {
            path,
            file: Mutex::new(file),
        })
    }

    /// Appends a row and syncs it to disk before returning.
    pub fn append(&self, row: &Row) -> anyhow::Result<()> {
        let mut line = serde_json::to_string(row)?;
        line.push('\n');
        let mut file = self.file.lock().expect("a writer panicked");
        file.write_all(line.as_bytes())
            .and_then(|()| file.sync_data())
            .with_context(|| format!("appending to {}", self.path.display()))
    }
}
