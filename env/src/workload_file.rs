//! Workload files as TOML, whatever their kind: a file's text read once ([`WorkloadFile`]),
//! then parsed as often as a command needs (the kind it declares, the schema of that kind,
//! with `key.path=value` overrides set as `--set` gives them), every failure named by file,
//! key path, line and column, and paths written in it resolved against its folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::de::DeserializeOwned;

use crate::error::{EnvError, Result};
use crate::limits;

/// A path written in the workload file at `workload_path`, relative to the file's folder.
pub fn resolve(workload_path: &Path, relative: &str) -> PathBuf {
    workload_path
        .parent()
        .unwrap_or(Path::new("."))
        .join(relative)
}

/// A workload file's path and its text, read once: the kind it declares, its kind's schema
/// and the play settings of the policies a command plays on it are all parsed from this
/// text, so a command reads the file once (experiments/src/settings.rs, `Settings::load`).
#[derive(Debug, Clone)]
pub struct WorkloadFile {
    pub path: PathBuf,
    pub text: String,
}

/// How many times each workload file was read in this process, by the path as given: what
/// tests read to see that a command reads its workload file once.
static READS: Mutex<BTreeMap<PathBuf, usize>> = Mutex::new(BTreeMap::new());

/// How many times the workload file at `path` (spelt as it was read) has been read.
pub fn reads_of(path: &Path) -> usize {
    let reads = READS.lock().unwrap_or_else(PoisonError::into_inner);
    reads.get(path).copied().unwrap_or(0)
}

impl WorkloadFile {
    /// Reads the workload file at `path`, refused above the size limit before it is read.
    pub fn read(path: &Path) -> Result<WorkloadFile> {
        limits::check_file_size(path, limits::WORKLOAD_FILE_BYTES, "workload file")?;
        let text = std::fs::read_to_string(path).map_err(|e| EnvError::io(path, e))?;
        *READS
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(path.to_owned())
            .or_default() += 1;
        Ok(WorkloadFile {
            path: path.to_owned(),
            text,
        })
    }

    /// The file as a TOML table with `key.path=value` overrides set.
    pub(crate) fn table(&self, overrides: &[(String, String)]) -> Result<toml::Table> {
        let (path, text) = (&self.path, &self.text);
        let mut table: toml::Table = toml::from_str(text).map_err(|e| {
            let (key, message) = describe_error(text, &e);
            EnvError::config(path, key, message)
        })?;
        for (key, value) in overrides {
            set_key(&mut table, key, value)
                .map_err(|e| EnvError::config(path, key, e.to_string()))?;
        }
        limits::check_workload_table(path, &table)?;
        Ok(table)
    }

    /// The file with `overrides` set, in the schema `T`. Where the schema refuses it, the
    /// error names the key path and, when the file's own text is at fault, its line and
    /// column; a fault only the overrides make says so.
    pub(crate) fn load_as<T: DeserializeOwned>(&self, overrides: &[(String, String)]) -> Result<T> {
        let table = self.table(overrides)?;
        T::deserialize(toml::Value::Table(table)).map_err(|from_table| {
            // a table has no positions: the text alone, parsed again, shows where it fails
            let (key, message) = match toml::from_str::<T>(&self.text) {
                Err(from_text) if from_text.span().is_some() => {
                    let (_, message) = describe_error(&self.text, &from_text);
                    (key_path(&from_table), message)
                }
                _ if !overrides.is_empty() => (
                    key_path(&from_table),
                    format!("{} (as the overrides set it)", from_table.message()),
                ),
                _ => (key_path(&from_table), from_table.message().to_owned()),
            };
            EnvError::config(&self.path, key, message)
        })
    }
}

/// An error of parsing `text` as `(key path, "line L, column C: message")`; the key path is
/// `(file)` where the error has none (a syntax error), and the position is left out where
/// the error has no span.
pub fn describe_error(text: &str, error: &toml::de::Error) -> (String, String) {
    let message = match error.span() {
        Some(span) => {
            let (line, column) = line_and_column(text, span.start);
            format!("line {line}, column {column}: {}", error.message())
        }
        None => error.message().to_owned(),
    };
    (key_path(error), message)
}

/// The dotted keys an error names, `(file)` where it names none. They are private in the
/// error; its display lists them where it has no input to quote.
fn key_path(error: &toml::de::Error) -> String {
    let mut bare = error.clone();
    bare.set_input(None);
    bare.to_string()
        .lines()
        .filter_map(|l| l.strip_prefix("in `").and_then(|k| k.strip_suffix('`')))
        .next_back()
        .map_or_else(|| "(file)".to_owned(), str::to_owned)
}

/// 1-based line and column (in characters) of byte `offset` of `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..text.floor_char_boundary(offset)];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// A dotted key that cannot be set in a TOML table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BadKey {
    #[error("empty key")]
    Empty,
    #[error("`{0}` is a value, not a table")]
    NotATable(String),
}

/// Sets `a.b.c = value` in a TOML table, creating missing tables (a section left to its
/// defaults); a misspelt name then fails validation as an unknown field.
pub fn set_key(table: &mut toml::Table, key: &str, value: &str) -> std::result::Result<(), BadKey> {
    let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {value}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(value.to_owned()));
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().filter(|p| !p.is_empty()).ok_or(BadKey::Empty)?;
    let mut cursor = table;
    for part in parts {
        cursor = cursor
            .entry(part)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()))
            .as_table_mut()
            .ok_or_else(|| BadKey::NotATable(part.to_owned()))?;
    }
    cursor.insert(last.to_owned(), parsed);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Schema {
        name: String,
        window: Window,
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Window {
        queued: usize,
    }

    fn refused(text: &str, overrides: &[(&str, &str)]) -> (String, String) {
        let path = crate::testkit::write_workload(text);
        let overrides: Vec<(String, String)> = overrides
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let file = WorkloadFile::read(&path).unwrap();
        match file.load_as::<Schema>(&overrides).unwrap_err() {
            EnvError::Config {
                path: p,
                key,
                message,
            } => {
                assert_eq!(p, path);
                (key, message)
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn schema_errors_name_the_key_path_line_and_column() {
        let text = "name = \"a\"\n\n[window]\nqueued = \"many\"\n";
        let (key, message) = refused(text, &[]);
        assert_eq!(key, "window.queued");
        assert!(message.starts_with("line 4, column 10: "), "{message}");
        assert!(message.contains("invalid type"), "{message}");
        let (key, message) = refused("name = \"a\"\n[window]\nqueued = 1\ncolour = 2\n", &[]);
        assert_eq!(key, "window");
        assert!(
            message.starts_with("line 4, column 1: ") && message.contains("unknown field `colour`"),
            "{message}"
        );
    }

    #[test]
    fn syntax_errors_and_override_faults_say_where_they_are() {
        let (key, message) = refused("name = \"a\"\n[window\n", &[]);
        assert_eq!(key, "(file)");
        assert!(message.starts_with("line 2, column "), "{message}");
        let (key, message) = refused(
            "name = \"a\"\n[window]\nqueued = 1\n",
            &[("window.queued", "\"x\"")],
        );
        assert_eq!(key, "window.queued");
        assert!(message.contains("as the overrides set it"), "{message}");
    }

    /// Loading a workload of any kind reads its file once: the kind it declares and its
    /// schema are parsed from that one text.
    #[test]
    fn loading_a_workload_of_any_kind_reads_its_file_once() {
        // a text of its own, so that no other test reads this file
        let text = crate::testkit::two_node_workload("hb_asgd", "") + "# read once\n";
        let path = crate::testkit::write_workload(&text);
        let before = reads_of(&path);
        crate::kinds::AnyWorkload::load(&path, &[]).unwrap();
        assert_eq!(reads_of(&path) - before, 1);
    }

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        assert_eq!(line_and_column("ab\ncé\nx", 0), (1, 1));
        assert_eq!(line_and_column("ab\ncé\nx", 3), (2, 1));
        assert_eq!(line_and_column("ab\ncé\nx", 7), (3, 1));
        assert_eq!(line_and_column("ab", 99), (1, 3));
    }
}
