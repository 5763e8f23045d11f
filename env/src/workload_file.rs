//! Workload files as TOML, whatever their kind: the kind a file declares, the file read with
//! `key.path=value` overrides set as `--set` gives them, deserialised into a kind's schema
//! with every failure named by file, key path, line and column, and paths written in it
//! resolved against its folder.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::error::{EnvError, Result};
use crate::limits;

/// `EnvKind` from the table of kinds (`crate::kinds`).
macro_rules! env_kind {
    ([] $(($kind:ident, $name:literal, $doc:literal, $workload:ty, $env:ty, $context:ident)),+) => {
        /// The kinds of env a workload file can be for.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum EnvKind {
            $(#[doc = $doc] $kind,)+
        }

        impl EnvKind {
            pub const ALL: [EnvKind; [$(EnvKind::$kind),+].len()] = [$(EnvKind::$kind),+];

            /// As the command line and workload files say it.
            pub fn name(self) -> &'static str {
                match self {
                    $(EnvKind::$kind => $name,)+
                }
            }

            /// As type names and Gymnasium ids say it (`schedlab/SingleJob-v0`).
            pub fn type_name(self) -> &'static str {
                match self {
                    $(EnvKind::$kind => stringify!($kind),)+
                }
            }
        }
    };
}

crate::kinds_table!(callback env_kind []);

impl EnvKind {
    /// The kind a workload file declares (`kind = "jobs"`, `"dag"`, `"network"`); a file
    /// that declares none is a single-job workload.
    pub fn of_file(path: &Path) -> Result<EnvKind> {
        let table = read_with_overrides(path, &[])?;
        let Some(kind) = table.get("kind") else {
            return Ok(EnvKind::SingleJob);
        };
        let name = kind.as_str().unwrap_or_default();
        EnvKind::ALL
            .into_iter()
            .find(|k| k.name() == name && *k != EnvKind::SingleJob)
            .ok_or_else(|| {
                EnvError::config(
                    path,
                    "kind",
                    format!("must be \"jobs\", \"dag\" or \"network\" (none for a single-job workload), got {kind}"),
                )
            })
    }
}

/// A path written in the workload file at `workload_path`, relative to the file's folder.
pub fn resolve(workload_path: &Path, relative: &str) -> PathBuf {
    workload_path
        .parent()
        .unwrap_or(Path::new("."))
        .join(relative)
}

/// A workload file as a TOML table with `key.path=value` overrides set.
pub(crate) fn read_with_overrides(
    path: &Path,
    overrides: &[(String, String)],
) -> Result<toml::Table> {
    Ok(read(path, overrides)?.1)
}

/// The file's text and its table with `overrides` set.
fn read(path: &Path, overrides: &[(String, String)]) -> Result<(String, toml::Table)> {
    limits::check_file_size(path, limits::WORKLOAD_FILE_BYTES, "workload file")?;
    let text = std::fs::read_to_string(path).map_err(|e| EnvError::io(path, e))?;
    let mut table: toml::Table = toml::from_str(&text).map_err(|e| {
        let (key, message) = describe_error(&text, &e);
        EnvError::config(path, key, message)
    })?;
    for (key, value) in overrides {
        set_key(&mut table, key, value).map_err(|e| EnvError::config(path, key, e.to_string()))?;
    }
    limits::check_workload_table(path, &table)?;
    Ok((text, table))
}

/// Reads `path` with `overrides` set into the schema `T`. Where the schema refuses it, the
/// error names the key path and, when the file's own text is at fault, its line and column;
/// a fault only the overrides make says so.
pub(crate) fn load_as<T: DeserializeOwned>(
    path: &Path,
    overrides: &[(String, String)],
) -> Result<T> {
    let (text, table) = read(path, overrides)?;
    T::deserialize(toml::Value::Table(table)).map_err(|from_table| {
        // a table has no positions: the text alone, parsed again, shows where it fails
        let (key, message) = match toml::from_str::<T>(&text) {
            Err(from_text) if from_text.span().is_some() => {
                let (_, message) = describe_error(&text, &from_text);
                (key_path(&from_table), message)
            }
            _ if !overrides.is_empty() => (
                key_path(&from_table),
                format!("{} (as the overrides set it)", from_table.message()),
            ),
            _ => (key_path(&from_table), from_table.message().to_owned()),
        };
        EnvError::config(path, key, message)
    })
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
        match load_as::<Schema>(&path, &overrides).unwrap_err() {
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

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        assert_eq!(line_and_column("ab\ncé\nx", 0), (1, 1));
        assert_eq!(line_and_column("ab\ncé\nx", 3), (2, 1));
        assert_eq!(line_and_column("ab\ncé\nx", 7), (3, 1));
        assert_eq!(line_and_column("ab", 99), (1, 3));
    }
}
