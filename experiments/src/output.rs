//! Writing results: atomic files and terminal tables.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use schedlab_env::EpisodeMetrics;

/// Writes `bytes` to a temporary file beside `path`, syncs it, then renames it over `path`,
/// so a crash leaves either the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let mut file =
        std::fs::File::create(&tmp).with_context(|| format!("writing {}", tmp.display()))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)
        .with_context(|| format!("renaming {} to {}", tmp.display(), path.display()))?;
    Ok(())
}

/// A metric's name and how to print it.
type Column = (&'static str, fn(&EpisodeMetrics) -> String);

/// The metric columns, in DESIGN order.
fn columns() -> Vec<Column> {
    vec![
        ("completion_time_s", |m| {
            format!("{:.1}", m.completion_time_s)
        }),
        ("rounds", |m| m.rounds.to_string()),
        ("iterations", |m| m.iterations.to_string()),
        ("final_loss", |m| format!("{:.4}", m.final_loss)),
        ("target_reached", |m| m.target_reached.to_string()),
        ("gpu_util", |m| format!("{:.3}", m.gpu_util)),
        ("cpu_util", |m| format!("{:.3}", m.cpu_util)),
        ("occupancy", |m| format!("{:.3}", m.occupancy)),
        ("fragmentation", |m| format!("{:.3}", m.fragmentation)),
        ("idle_cost", |m| format!("{:.4}", m.idle_cost)),
        ("episode_return", |m| format!("{:.3}", m.episode_return)),
    ]
}

/// One row per episode (labelled by seed), aligned.
pub fn metrics_table(rows: &[(u64, EpisodeMetrics)]) -> String {
    let cols = columns();
    let mut cells: Vec<Vec<String>> = vec![
        std::iter::once("seed".to_owned())
            .chain(cols.iter().map(|c| c.0.to_owned()))
            .collect(),
    ];
    for (seed, m) in rows {
        cells.push(
            std::iter::once(seed.to_string())
                .chain(cols.iter().map(|c| (c.1)(m)))
                .collect(),
        );
    }
    let widths: Vec<usize> = (0..cells[0].len())
        .map(|j| cells.iter().map(|r| r[j].len()).max().unwrap_or(0))
        .collect();
    cells
        .iter()
        .map(|row| {
            row.iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect::<Vec<_>>()
                .join("  ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}
