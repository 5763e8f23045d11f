//! A jobs workload's job table: one row per job of a trace, as the importers write it to
//! Parquet (`id`, `arrival_s`, `duration_s`, `workers`, `cpu_milli`, `mem_mib`, `gpu_milli`,
//! `template`, `after`, and `tenant` and `gpu_models` where a job names them; lists are
//! space-separated). Columns are found by name; an
//! integer column may have any integer type that holds its values; a table without an
//! optional column reads as before. Every error names the row and column.

use std::fs::File;
use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};
use serde::{Deserialize, Serialize};

use crate::panic_guard::without_panic;

/// One job of the trace. A container holds `cpu_milli`, `mem_mib` and `gpu_milli` (below
/// 1000: a share of one GPU; otherwise whole GPUs, a multiple of 1000). A zero request is
/// allowed: Kubernetes pods without a request (BestEffort) have them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobRecord {
    pub id: String,
    pub arrival_s: f64,
    /// Run time at the requested allocation.
    pub duration_s: f64,
    pub workers: u32,
    pub cpu_milli: u32,
    pub mem_mib: u32,
    #[serde(default)]
    pub gpu_milli: u32,
    pub template: String,
    /// Jobs (ids) that must finish before this one may start: a DAG.
    #[serde(default)]
    pub after: Vec<String>,
    /// The tenant (virtual cluster, team) the job belongs to, for fairness between tenants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The GPU models (machines' `gpu_model`) it may run on; empty: any machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gpu_models: Vec<String>,
}

impl JobRecord {
    /// The per-container request `[cpu milli, mem MiB, gpu milli]`.
    pub fn request(&self) -> [u32; 3] {
        [self.cpu_milli, self.mem_mib, self.gpu_milli]
    }
}

/// Why a job table cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not Parquet, or damaged (the reader's own message, or its panic's).
    #[error("not a readable Parquet table: {0}")]
    Unreadable(String),
    /// Row `row` (0-based) lacks a column or holds a value of another type.
    #[error("row {row}: {source}")]
    Row { row: usize, source: CellError },
}

/// What is wrong with a row's cell.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CellError {
    #[error("the job table has no column `{0}`")]
    Missing(&'static str),
    #[error("column `{0}` is null")]
    Null(&'static str),
    #[error("column `{column}`: expected {expected}, got {got}")]
    Type {
        column: &'static str,
        expected: &'static str,
        got: String,
    },
    #[error("column `{column}`: {value} is out of range")]
    Range { column: &'static str, value: i128 },
}

/// Reads every row of the job table at `path`.
pub fn read_job_table(path: &Path) -> Result<Vec<JobRecord>, TableError> {
    let file = File::open(path)?;
    without_panic(|| read_rows(file))
        .map_err(|panic| TableError::Unreadable(format!("the reader panicked: {panic}")))?
}

fn read_rows(file: File) -> Result<Vec<JobRecord>, TableError> {
    let unreadable = |e: parquet::errors::ParquetError| TableError::Unreadable(e.to_string());
    let reader = SerializedFileReader::new(file).map_err(unreadable)?;
    let rows = reader.get_row_iter(None).map_err(unreadable)?;
    rows.enumerate()
        .map(|(row, read)| {
            read.map_err(unreadable)
                .and_then(|r| record(&r).map_err(|source| TableError::Row { row, source }))
        })
        .collect()
}

fn record(row: &Row) -> Result<JobRecord, CellError> {
    Ok(JobRecord {
        id: text(row, "id")?,
        arrival_s: real(row, "arrival_s")?,
        duration_s: real(row, "duration_s")?,
        workers: whole(row, "workers")?,
        cpu_milli: whole(row, "cpu_milli")?,
        mem_mib: whole(row, "mem_mib")?,
        gpu_milli: whole(row, "gpu_milli")?,
        template: text(row, "template")?,
        after: text(row, "after")?
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
        tenant: optional_text(row, "tenant")?,
        gpu_models: optional_text(row, "gpu_models")?
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
    })
}

fn column<'a>(row: &'a Row, name: &'static str) -> Result<&'a Field, CellError> {
    row.get_column_iter()
        .find(|(n, _)| n.as_str() == name)
        .map(|(_, f)| f)
        .ok_or(CellError::Missing(name))
}

fn wrong_type(column: &'static str, expected: &'static str, got: &Field) -> CellError {
    CellError::Type {
        column,
        expected,
        got: got.to_string(),
    }
}

fn text(row: &Row, name: &'static str) -> Result<String, CellError> {
    match column(row, name)? {
        Field::Str(s) => Ok(s.clone()),
        Field::Null => Ok(String::new()),
        other => Err(wrong_type(name, "text", other)),
    }
}

/// A text column a table may lack; empty or null is `None`.
fn optional_text(row: &Row, name: &'static str) -> Result<Option<String>, CellError> {
    match text(row, name) {
        Err(CellError::Missing(_)) => Ok(None),
        Ok(s) if s.is_empty() => Ok(None),
        read => read.map(Some),
    }
}

fn real(row: &Row, name: &'static str) -> Result<f64, CellError> {
    match column(row, name)? {
        Field::Double(v) => Ok(*v),
        Field::Float(v) => Ok(f64::from(*v)),
        Field::Null => Err(CellError::Null(name)),
        other => Err(wrong_type(name, "a float", other)),
    }
}

fn whole(row: &Row, name: &'static str) -> Result<u32, CellError> {
    let value: i128 = match column(row, name)? {
        Field::UInt(v) => (*v).into(),
        Field::UShort(v) => (*v).into(),
        Field::UByte(v) => (*v).into(),
        Field::ULong(v) => (*v).into(),
        Field::Int(v) => (*v).into(),
        Field::Long(v) => (*v).into(),
        Field::Short(v) => (*v).into(),
        Field::Byte(v) => (*v).into(),
        Field::Null => return Err(CellError::Null(name)),
        other => return Err(wrong_type(name, "an integer", other)),
    };
    u32::try_from(value).map_err(|_| CellError::Range {
        column: name,
        value,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type, Int64Type};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    use super::*;

    /// A column as another writer than the importers' might store it.
    enum Column {
        Text(Vec<&'static str>),
        Real(Vec<f64>),
        Long(Vec<i64>),
        Int(Vec<i32>),
    }

    fn physical(column: &Column) -> &'static str {
        match column {
            Column::Text(_) => "BYTE_ARRAY",
            Column::Real(_) => "DOUBLE",
            Column::Long(_) => "INT64",
            Column::Int(_) => "INT32",
        }
    }

    fn write(path: &Path, columns: &[(&str, Column)]) {
        let fields: String = columns
            .iter()
            .map(|(name, c)| {
                let utf8 = if matches!(c, Column::Text(_)) {
                    " (UTF8)"
                } else {
                    ""
                };
                format!("REQUIRED {} {name}{utf8}; ", physical(c))
            })
            .collect();
        let schema = Arc::new(parse_message_type(&format!("message jobs {{ {fields} }}")).unwrap());
        let file = File::create(path).unwrap();
        let properties = Arc::new(WriterProperties::builder().build());
        let mut writer = SerializedFileWriter::new(file, schema, properties).unwrap();
        let mut group = writer.next_row_group().unwrap();
        for (_, column) in columns {
            let mut out = group.next_column().unwrap().unwrap();
            match column {
                Column::Text(v) => {
                    let bytes: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(*s)).collect();
                    out.typed::<ByteArrayType>().write_batch(&bytes, None, None)
                }
                Column::Real(v) => out.typed::<DoubleType>().write_batch(v, None, None),
                Column::Long(v) => out.typed::<Int64Type>().write_batch(v, None, None),
                Column::Int(v) => out.typed::<Int32Type>().write_batch(v, None, None),
            }
            .unwrap();
            out.close().unwrap();
        }
        group.close().unwrap();
        writer.close().unwrap();
    }

    fn two_jobs(workers: Column) -> Vec<(&'static str, Column)> {
        vec![
            ("id", Column::Text(vec!["a", "b"])),
            ("arrival_s", Column::Real(vec![0.0, 5.0])),
            ("duration_s", Column::Real(vec![60.0, 30.0])),
            ("workers", workers),
            ("cpu_milli", Column::Int(vec![4000, 2000])),
            ("mem_mib", Column::Long(vec![8192, 1024])),
            ("gpu_milli", Column::Long(vec![1000, 0])),
            ("template", Column::Text(vec!["mlp", "mlp"])),
            ("after", Column::Text(vec!["", "a"])),
        ]
    }

    /// 64-bit and 32-bit signed columns, as pandas and others write them, read as the
    /// importers' unsigned ones.
    #[test]
    fn any_integer_type_that_holds_the_values_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        write(&path, &two_jobs(Column::Long(vec![2, 1])));
        let jobs = read_job_table(&path).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(
            (jobs[1].id.as_str(), jobs[1].workers, jobs[1].request()),
            ("b", 1, [2000, 1024, 0])
        );
        assert_eq!(jobs[1].after, vec!["a".to_owned()]);
        assert_eq!(jobs[0].tenant, None);
    }

    /// The optional `tenant` column: a name, empty for a job of no tenant, refused when not
    /// text; the optional `gpu_models`, a list; a table without them reads as before (the test
    /// above).
    #[test]
    fn tenant_and_gpu_model_columns_are_read_where_a_table_has_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        let mut columns = two_jobs(Column::Long(vec![2, 1]));
        columns.push(("tenant", Column::Text(vec!["6214e9", ""])));
        write(&path, &columns);
        let jobs = read_job_table(&path).unwrap();
        assert_eq!(jobs[0].tenant.as_deref(), Some("6214e9"));
        assert_eq!(jobs[1].tenant, None);
        assert_eq!(jobs[0].gpu_models, Vec::<String>::new());
        columns.push(("gpu_models", Column::Text(vec!["", "V100M16 V100M32"])));
        write(&path, &columns);
        let jobs = read_job_table(&path).unwrap();
        assert_eq!(jobs[1].gpu_models, ["V100M16", "V100M32"]);
        columns.pop();
        columns.pop();
        columns.push(("tenant", Column::Long(vec![1, 2])));
        write(&path, &columns);
        let e = read_job_table(&path).unwrap_err().to_string();
        assert_eq!(e, "row 0: column `tenant`: expected text, got 1");
    }

    #[test]
    fn a_bad_row_or_a_missing_column_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        write(&path, &two_jobs(Column::Long(vec![2, -3])));
        let e = read_job_table(&path).unwrap_err().to_string();
        assert_eq!(e, "row 1: column `workers`: -3 is out of range");
        let mut columns = two_jobs(Column::Long(vec![2, 1]));
        columns.retain(|(name, _)| *name != "template");
        write(&path, &columns);
        let e = read_job_table(&path).unwrap_err().to_string();
        assert_eq!(e, "row 0: the job table has no column `template`");
        std::fs::write(&path, b"not parquet").unwrap();
        let e = read_job_table(&path).unwrap_err().to_string();
        assert!(e.starts_with("not a readable Parquet table"), "{e}");
    }
}
