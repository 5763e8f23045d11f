//! The sweep's journal: one JSON line per finished episode, appended and synced as each ends,
//! so a killed sweep loses no finished row and a rerun skips them.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::spec::CellKey;

/// One episode: its grid coordinates, every metric (booleans as 0/1) in table order, the
/// fingerprint of the sources that played it (`crate::sources`; empty in journals written
/// before rows recorded it), and for a trained policy the SHA-256 of its run folder's manifest
/// (`super::weights`; absent for heuristics and in rows from before it was recorded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    #[serde(flatten)]
    pub key: CellKey,
    pub metrics: Vec<(String, f64)>,
    #[serde(default)]
    pub sources: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub policy_sha256: String,
}

pub struct Journal {
    path: PathBuf,
    file: Mutex<File>,
}

pub const JOURNAL: &str = "rows.jsonl";

/// A journal file as read.
#[derive(Default)]
pub struct Journaled {
    pub rows: Vec<Row>,
    /// Why a last line cut short by a kill was left out.
    pub torn: Option<String>,
    /// Bytes of whole rows: where appending continues.
    pub valid_len: u64,
}

/// The rows of a journal file. A last line cut short by a kill is reported and left out; any
/// other bad line is an error naming file and line.
pub fn read_rows(path: &Path) -> anyhow::Result<Journaled> {
    rows_of(&read_journal(path)?, path)
}

/// A journal file's text (empty where there is none).
pub fn read_journal(path: &Path) -> anyhow::Result<String> {
    match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        read => read.with_context(|| format!("reading {}", path.display())),
    }
}

/// The rows of journal `text` read from `path`, one per whole line in order (see
/// [`read_rows`]).
pub fn rows_of(text: &str, path: &Path) -> anyhow::Result<Journaled> {
    let mut read = Journaled::default();
    for (k, line) in text.split_inclusive('\n').enumerate() {
        // rows are written with their newline in one write: a line without it was cut short,
        // even where its JSON happens to be whole, and appending must not continue it
        if !line.ends_with('\n') {
            read.torn = Some(format!(
                "{}: line {} was cut short (a killed write); its episode runs again",
                path.display(),
                k + 1
            ));
            break;
        }
        let row = serde_json::from_str::<Row>(line)
            .with_context(|| format!("{} line {}", path.display(), k + 1))?;
        read.rows.push(row);
        read.valid_len += line.len() as u64;
    }
    Ok(read)
}

impl Journal {
    /// Opens `dir`'s journal for appending after its first `valid_len` bytes (see
    /// [`read_rows`]), cutting off a torn last line.
    pub fn open(dir: &Path, valid_len: u64) -> anyhow::Result<Journal> {
        let path = dir.join(JOURNAL);
        if path.exists() && std::fs::metadata(&path)?.len() > valid_len {
            OpenOptions::new()
                .write(true)
                .open(&path)?
                .set_len(valid_len)?;
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
