//! Joining the folders of a sharded sweep: same spec, every cell exactly once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use schedlab_artifacts::FolderLock;

use super::journal::{JOURNAL, Row, read_rows};
use super::run::SweepRecord;
use super::spec::{CellKey, Shard};
use super::table::write_results;
use crate::output::write_atomic;

/// Merges shard folders into `out` (a whole-grid sweep folder, so `summarize` and a rerun
/// treat it as one). Refuses folders of different specs, rows played by builds of different
/// sources, a cell in two folders, and cells no folder has.
pub fn merge(dirs: &[PathBuf], out: &Path) -> anyhow::Result<Vec<Row>> {
    anyhow::ensure!(!dirs.is_empty(), "name the shard folders to merge");
    let mut spec = None;
    let mut seen: HashMap<CellKey, &Path> = HashMap::new();
    let mut rows = Vec::new();
    for dir in dirs {
        let record = SweepRecord::read(dir)?.ok_or_else(|| {
            anyhow::anyhow!("{}: not a sweep folder (no sweep.json)", dir.display())
        })?;
        match &spec {
            None => spec = Some(record.spec.clone()),
            Some(first) => anyhow::ensure!(
                *first == record.spec,
                "{} ran another spec than {}",
                dir.display(),
                dirs[0].display()
            ),
        }
        let journaled = read_rows(&dir.join(JOURNAL))?;
        if let Some(warning) = journaled.torn {
            anyhow::bail!("{warning}; rerun that shard before merging");
        }
        for row in journaled.rows {
            if let Some(first) = rows.first().filter(|f: &&Row| f.sources != row.sources) {
                anyhow::bail!(
                    "{} was played by other sources (fingerprint `{}`) than {} (`{}`): rerun the \
                     shards with one build",
                    row.key,
                    row.sources,
                    first.key,
                    first.sources
                );
            }
            if let Some(other) = seen.insert(row.key.clone(), dir) {
                anyhow::bail!(
                    "{} is in both {} and {}: shards overlap",
                    row.key,
                    other.display(),
                    dir.display()
                );
            }
            rows.push(row);
        }
    }
    let spec = spec.expect("at least one folder");
    let grid = spec.grid();
    let missing: Vec<CellKey> = grid
        .iter()
        .map(|c| spec.key(c))
        .filter(|k| !seen.contains_key(k))
        .collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(5).map(|k| k.to_string()).collect();
        anyhow::bail!(
            "{} of {} cells are missing (a shard not run or not finished), e.g. {}",
            missing.len(),
            grid.len(),
            shown.join("; ")
        );
    }
    let order = spec.grid_index();
    rows.sort_by_key(|r| order[&r.key]);
    let _lock = FolderLock::acquire(out, "sweep merge")?;
    SweepRecord {
        spec,
        shard: Shard::WHOLE,
    }
    .write(out)?;
    let mut journal = String::new();
    for row in &rows {
        journal += &serde_json::to_string(row)?;
        journal.push('\n');
    }
    write_atomic(&out.join(JOURNAL), journal.as_bytes())?;
    write_results(out, &rows)?;
    Ok(rows)
}
