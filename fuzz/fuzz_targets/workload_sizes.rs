//! Extreme counts in well-formed workload files: a shipped workload with up to four of its
//! counts and sizes set to values from 0 to the largest TOML integer is loaded and its env
//! reset, under a memory budget of 256 MB. Run with `-rss_limit_mb=1024 -malloc_limit_mb=512`:
//! a case that takes more than that is a crash, whatever the estimate said.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use schedlab_env::kinds::AnyWorkload;
use schedlab_env::limits::{WORKLOAD_LIMITS, set_memory_limit};

#[path = "scratch.rs"]
mod scratch;

/// Keys with no bound of their own whose size still sets an episode's.
const UNBOUNDED_KEYS: [&str; 4] = [
    "episode.max_time_s",
    "episode.decision_interval_s",
    "episode.round_interval_s",
    "scaling.sizes",
];

/// Every shipped workload, simulated: `(path beside the shipped files, table)`.
fn shipped() -> &'static [(PathBuf, toml::Table)] {
    static SHIPPED: OnceLock<Vec<(PathBuf, toml::Table)>> = OnceLock::new();
    SHIPPED.get_or_init(|| {
        set_memory_limit(256 << 20);
        let folder = scratch::shipped("workloads");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .expect("the shipped workloads")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        files
            .into_iter()
            .map(|path| {
                let text = std::fs::read_to_string(&path).expect("a shipped workload");
                let mut table: toml::Table = toml::from_str(&text).expect("shipped TOML");
                // real execution would start processes; its sizes are the simulation's
                if table.contains_key("execution") {
                    table.insert("execution".into(), toml::Value::String("sim".into()));
                }
                (path, table)
            })
            .collect()
    })
}

/// A count from the ends and the middle of the range a TOML integer holds.
fn extreme(u: &mut Unstructured) -> Result<toml::Value> {
    Ok(match u.int_in_range(0..=4)? {
        0 => toml::Value::Integer(i64::from(u.int_in_range(0..=3u8)?)),
        1 => toml::Value::Integer(10i64.pow(u.int_in_range(1..=18)?)),
        2 => toml::Value::Integer(1i64 << u.int_in_range(1..=62)?),
        3 => toml::Value::Integer(u.arbitrary::<i64>()?),
        _ => toml::Value::Float(10f64.powi(u.int_in_range(-3..=300)?)),
    })
}

/// Sets `key` (dotted, arrays of tables crossed at a chosen element) to `value`, creating the
/// tables it names; a path through a value is left alone.
fn set(table: &mut toml::Table, key: &str, value: toml::Value, u: &mut Unstructured) -> Result<()> {
    let mut parts = key.split('.').peekable();
    let mut cursor = table;
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            let is_list = matches!(cursor.get(part), Some(toml::Value::Array(_)));
            let value = if is_list {
                toml::Value::Array(vec![value; u.int_in_range(1..=3)?])
            } else {
                value
            };
            cursor.insert(part.to_owned(), value);
            return Ok(());
        }
        let next = cursor
            .entry(part)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cursor = match next {
            toml::Value::Table(t) => t,
            toml::Value::Array(items) if !items.is_empty() => {
                let i = u.choose_index(items.len())?;
                match &mut items[i] {
                    toml::Value::Table(t) => t,
                    _ => return Ok(()),
                }
            }
            _ => return Ok(()),
        };
    }
    Ok(())
}

fn case(u: &mut Unstructured) -> Result<()> {
    let files = shipped();
    let (path, table) = &files[u.choose_index(files.len())?];
    let mut table = table.clone();
    for _ in 0..u.int_in_range(1..=4)? {
        let k = u.choose_index(WORKLOAD_LIMITS.len() + UNBOUNDED_KEYS.len())?;
        let key = WORKLOAD_LIMITS
            .get(k)
            .map_or_else(|| UNBOUNDED_KEYS[k - WORKLOAD_LIMITS.len()], |l| l.key);
        let value = extreme(u)?;
        set(&mut table, key, value, u)?;
    }
    let file = write_beside(path, &table);
    if let Ok(workload) = AnyWorkload::load(&file, &[]) {
        let mut env = workload.env();
        let _ = env.reset(0);
    }
    Ok(())
}

/// The table as a file in a mirror of the shipped workload's folder, so the data files it
/// names resolve.
fn write_beside(shipped: &Path, table: &toml::Table) -> PathBuf {
    static MIRROR: OnceLock<PathBuf> = OnceLock::new();
    let mirror = MIRROR.get_or_init(|| {
        let mirror = scratch::folder().join("workloads");
        std::fs::create_dir_all(&mirror).expect("a scratch folder");
        let data = scratch::shipped("");
        for entry in std::fs::read_dir(&data).expect("the shipped data").flatten() {
            let _ = std::os::unix::fs::symlink(entry.path(), scratch::folder().join(entry.file_name()));
        }
        for entry in std::fs::read_dir(data.join("workloads")).expect("the shipped workloads").flatten() {
            let _ = std::os::unix::fs::symlink(entry.path(), mirror.join(entry.file_name()));
        }
        mirror
    });
    let file = mirror.join(format!(
        "sized-{}",
        shipped.file_name().expect("a file name").to_string_lossy()
    ));
    std::fs::write(&file, toml::to_string(table).expect("a table writes")).expect("a scratch file");
    file
}

fuzz_target!(|data: &[u8]| {
    let _ = case(&mut Unstructured::new(data));
});
