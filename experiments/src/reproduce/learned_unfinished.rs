//! Where the unfinished jobs of a `reproduce learned` or `conserving` table were when their episodes ended,
//! per window: running or queued behind full capacity when the horizon (`episode.max_time_s`)
//! cut the episode, not arrived yet, or stranded: queued while they fit the idle capacity,
//! which work conservation (the env's default) rules out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::learned::{Episodes, metric_of};
use crate::workloads::{Jobs, Loaded};

/// The jobs one row left unfinished in one window, summed over its seeds.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Unfinished {
    running: usize,
    /// Queued behind full capacity (the stranded ones excluded).
    queued: usize,
    stranded: usize,
    not_arrived: usize,
}

impl Unfinished {
    fn total(&self) -> usize {
        self.running + self.queued + self.stranded + self.not_arrived
    }

    fn cell(&self) -> String {
        if self.total() == 0 {
            return String::new();
        }
        let parts: Vec<String> = [
            (self.running, "running"),
            (self.queued, "queued"),
            (self.stranded, "**stranded**"),
            (self.not_arrived, "not arrived"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
        format!("{} ({})", self.total(), parts.join(", "))
    }
}

fn window_name(path: &str) -> String {
    Path::new(path)
        .file_stem()
        .map_or_else(|| path.to_owned(), |s| s.to_string_lossy().into_owned())
}

/// The unfinished jobs of the row `label` by window, from its `episodes`' end counts; `jobs`
/// is each window's job count by name.
fn tally(
    label: &str,
    episodes: &Episodes,
    jobs: &BTreeMap<String, usize>,
) -> anyhow::Result<BTreeMap<String, Unfinished>> {
    let mut by_window: BTreeMap<String, Unfinished> = BTreeMap::new();
    for ((window, seed), metrics) in episodes {
        let name = window_name(window);
        let count = |metric: &str| -> anyhow::Result<usize> {
            let value = metric_of(metrics, metric);
            anyhow::ensure!(
                value.is_finite(),
                "`{label}` on {name} seed {seed}: the row has no `{metric}` (played by an older \
                 build); remove its sweep folder under the output folder to play it again"
            );
            Ok(value as usize)
        };
        let all = *jobs
            .get(&name)
            .ok_or_else(|| anyhow::anyhow!("`{label}` played {window}, not a window here"))?;
        let (finished, running, queued) = (
            count("finished")?,
            count("running_at_end")?,
            count("queued_at_end")?,
        );
        let stranded = count("stranded_at_end")?;
        let unfinished = all.saturating_sub(finished);
        anyhow::ensure!(
            running + queued <= unfinished && stranded <= queued,
            "`{label}` on {name} seed {seed}: {running} running and {queued} queued at the end \
             ({stranded} stranded), but {unfinished} of {all} jobs unfinished"
        );
        let tally = by_window.entry(name).or_default();
        tally.running += running;
        tally.queued += queued - stranded;
        tally.stranded += stranded;
        tally.not_arrived += unfinished - running - queued;
    }
    Ok(by_window)
}

/// A paragraph and a table (rows: the windows where a table row left a job unfinished;
/// columns: those rows, by label) saying where each unfinished job was when its episode ended;
/// empty when every row finished every job.
pub(super) fn unfinished_by_window(
    rows: &[(&str, &Episodes)],
    loaded: &[Loaded],
    windows: &[PathBuf],
) -> anyhow::Result<String> {
    let mut jobs = BTreeMap::new();
    for (l, w) in loaded.iter().zip(windows) {
        let workload: &Jobs = l.expect("learned", w)?;
        jobs.insert(
            window_name(&w.to_string_lossy()),
            workload.workload.jobs.len(),
        );
    }
    let mut columns = Vec::new();
    for (label, episodes) in rows {
        let by_window = tally(label, episodes, &jobs)?;
        if by_window.values().any(|u| u.total() > 0) {
            columns.push((label, by_window));
        }
    }
    if columns.is_empty() {
        return Ok(String::new());
    }
    let stranded: usize = columns
        .iter()
        .flat_map(|(_, by_window)| by_window.values())
        .map(|u| u.stranded)
        .sum();
    let mut text = format!(
        "Unfinished jobs per window, summed over seeds, by where they were when the episode ended at the window's horizon: running, queued behind full capacity, not arrived yet, or **stranded** (queued while they fit the idle capacity). {}\n\n| window |",
        if stranded == 0 {
            "No episode ended stranded.".to_owned()
        } else {
            format!("{stranded} jobs ended stranded.")
        }
    );
    for (label, _) in &columns {
        text += &format!(" {label} |");
    }
    text += &format!("\n| --- |{}\n", " --- |".repeat(columns.len()));
    for window in jobs.keys() {
        let cells: Vec<String> = columns
            .iter()
            .map(|(_, by_window)| {
                by_window
                    .get(window)
                    .map_or(String::new(), Unfinished::cell)
            })
            .collect();
        if cells.iter().any(|c| !c.is_empty()) {
            text += &format!("| {window} | {} |\n", cells.join(" | "));
        }
    }
    Ok(text + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_names_only_the_places_jobs_were() {
        let u = Unfinished {
            running: 3,
            queued: 0,
            stranded: 1,
            not_arrived: 2,
        };
        assert_eq!(u.cell(), "6 (3 running, 1 **stranded**, 2 not arrived)");
        assert_eq!(Unfinished::default().cell(), "");
    }

    fn episode(window: &str, seed: u64, counts: [f64; 4]) -> ((String, u64), Vec<(String, f64)>) {
        let names = [
            "finished",
            "running_at_end",
            "queued_at_end",
            "stranded_at_end",
        ];
        (
            (format!("data/workloads/later/{window}.toml"), seed),
            names.iter().map(|n| n.to_string()).zip(counts).collect(),
        )
    }

    /// Seeds add up per window; what is neither running nor queued had not arrived, and the
    /// stranded jobs are counted apart from those queued behind full capacity.
    #[test]
    fn the_unfinished_jobs_of_each_window_add_up_over_seeds() {
        let jobs = BTreeMap::from([("w0".to_owned(), 10), ("w1".to_owned(), 5)]);
        let episodes = Episodes::from([
            episode("w0", 0, [7.0, 2.0, 1.0, 0.0]),
            episode("w0", 1, [6.0, 1.0, 3.0, 1.0]),
            episode("w1", 0, [5.0, 0.0, 0.0, 0.0]),
        ]);
        let by_window = tally("p", &episodes, &jobs).unwrap();
        assert_eq!(
            by_window["w0"],
            Unfinished {
                running: 3,
                queued: 3,
                stranded: 1,
                not_arrived: 0,
            }
        );
        assert_eq!(by_window["w1"].total(), 0);
        let mut short = episodes.clone();
        short.insert(
            episode("w1", 1, [1.0, 1.0, 0.0, 0.0]).0,
            vec![("finished".into(), 1.0)],
        );
        let err = tally("p", &short, &jobs).unwrap_err().to_string();
        assert!(
            err.contains("`p` on w1 seed 1") && err.contains("running_at_end"),
            "{err}"
        );
        let inconsistent = Episodes::from([episode("w1", 0, [1.0, 4.0, 2.0, 0.0])]);
        let err = tally("p", &inconsistent, &jobs).unwrap_err().to_string();
        assert!(err.contains("4 of 5 jobs unfinished"), "{err}");
    }
}
