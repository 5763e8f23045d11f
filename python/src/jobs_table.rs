//! Reads a jobs workload's Parquet job table without polars: the columns the importers write
//! (`id`, `arrival_s`, `duration_s`, `workers`, `cpu_milli`, `mem_mib`, `gpu_milli`,
//! `template`, `after`), by name, with the row and column named in every error.

use std::fs::File;
use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::{Field, Row};
use schedlab_env::jobs::JobRecord;

pub fn read_jobs_parquet(path: &Path) -> Result<Vec<JobRecord>, String> {
    let file = File::open(path).map_err(|e| e.to_string())?;
    let reader = SerializedFileReader::new(file).map_err(|e| e.to_string())?;
    let rows = reader.get_row_iter(None).map_err(|e| e.to_string())?;
    rows.enumerate()
        .map(|(k, row)| {
            let row = row.map_err(|e| format!("row {k}: {e}"))?;
            record(&row).map_err(|e| format!("row {k}: {e}"))
        })
        .collect()
}

fn record(row: &Row) -> Result<JobRecord, String> {
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
    })
}

fn column<'a>(row: &'a Row, name: &str) -> Result<&'a Field, String> {
    row.get_column_iter()
        .find(|(n, _)| n.as_str() == name)
        .map(|(_, f)| f)
        .ok_or_else(|| format!("the job table has no column `{name}`"))
}

fn text(row: &Row, name: &str) -> Result<String, String> {
    match column(row, name)? {
        Field::Str(s) => Ok(s.clone()),
        Field::Null => Ok(String::new()),
        other => Err(format!("column `{name}`: expected text, got {other}")),
    }
}

fn real(row: &Row, name: &str) -> Result<f64, String> {
    match column(row, name)? {
        Field::Double(v) => Ok(*v),
        Field::Float(v) => Ok(f64::from(*v)),
        Field::Null => Err(format!("column `{name}` is null")),
        other => Err(format!("column `{name}`: expected a float, got {other}")),
    }
}

fn whole(row: &Row, name: &str) -> Result<u32, String> {
    let value: i128 = match column(row, name)? {
        Field::UInt(v) => (*v).into(),
        Field::UShort(v) => (*v).into(),
        Field::UByte(v) => (*v).into(),
        Field::ULong(v) => (*v).into(),
        Field::Int(v) => (*v).into(),
        Field::Long(v) => (*v).into(),
        Field::Null => return Err(format!("column `{name}` is null")),
        other => return Err(format!("column `{name}`: expected an integer, got {other}")),
    };
    u32::try_from(value).map_err(|_| format!("column `{name}`: {value} is out of range"))
}
