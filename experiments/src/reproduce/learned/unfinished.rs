//! Where the unfinished jobs of a `reproduce learned` or `conserving` table were when their episodes ended,
//! per window: running or queued behind full capacity when the horizon (`episode.max_time_s`)
//! cut the episode, not arrived yet, or stranded: queued while they fit the idle capacity,
//! which work conservation (the env's default) rules out. Rows written before the env
//! reported these end counts are played again, the episodes with unfinished jobs only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::reproduce::episodes::{Episodes, metric_of};
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

/// Plays a row's episode (window path, seed) again: its metrics, as a sweep row holds them.
pub(in crate::reproduce) type Replay<'a> =
    &'a dyn Fn(&str, u64) -> anyhow::Result<Vec<(String, f64)>>;

/// A table row: its label, its episodes, and how to play one again where its row predates
/// the end counts (none: such a row is refused).
pub(in crate::reproduce) type TableRow<'a> = (&'a str, &'a Episodes, Option<Replay<'a>>);

/// The unfinished jobs of the row `label` by window, from its `episodes`' end counts; `jobs`
/// is each window's job count by name.
fn tally(
    (label, episodes, replay): &TableRow,
    jobs: &BTreeMap<String, usize>,
) -> anyhow::Result<BTreeMap<String, Unfinished>> {
    let mut by_window: BTreeMap<String, Unfinished> = BTreeMap::new();
    for ((window, seed), recorded) in *episodes {
        let name = window_name(window);
        let all = *jobs
            .get(&name)
            .ok_or_else(|| anyhow::anyhow!("`{label}` played {window}, not a window here"))?;
        let finished = metric_of(recorded, "finished");
        anyhow::ensure!(
            finished.is_finite(),
            "`{label}` on {name} seed {seed}: the row has no `finished`"
        );
        let finished = finished as usize;
        let unfinished = all.saturating_sub(finished);
        let replayed;
        let metrics = match replay {
            Some(replay) if unfinished > 0 && metric_of(recorded, "running_at_end").is_nan() => {
                replayed = replay(window, *seed)?;
                anyhow::ensure!(
                    metric_of(&replayed, "finished") as usize == finished,
                    "`{label}` on {name} seed {seed}: played again it finished {} jobs, its row \
                     says {finished}",
                    metric_of(&replayed, "finished")
                );
                &replayed
            }
            _ => recorded,
        };
        let count = |metric: &str| -> anyhow::Result<usize> {
            let value = metric_of(metrics, metric);
            anyhow::ensure!(
                value.is_finite() || unfinished == 0,
                "`{label}` on {name} seed {seed}: the row has no `{metric}` (played by an older \
                 build); remove its sweep folder under the output folder to play it again"
            );
            Ok(if unfinished == 0 { 0 } else { value as usize })
        };
        let (running, queued) = (count("running_at_end")?, count("queued_at_end")?);
        let stranded = count("stranded_at_end")?;
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
pub(in crate::reproduce) fn unfinished_by_window(
    rows: &[TableRow],
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
    for row in rows {
        let by_window = tally(row, &jobs)?;
        if by_window.values().any(|u| u.total() > 0) {
            columns.push((row.0, by_window));
        }
    }
    if columns.is_empty() {
        return Ok(String::new());
    }
    let stranding: Vec<String> = columns
        .iter()
        .filter_map(|(label, by_window)| {
            let stranded: usize = by_window.values().map(|u| u.stranded).sum();
            (stranded > 0).then(|| format!("{label} {stranded}"))
        })
        .collect();
    let mut text = format!(
        "Unfinished jobs per window, summed over seeds, by where they were when the episode ended at the window's horizon: running, queued behind full capacity, not arrived yet, or **stranded** (queued while they fit the idle capacity). {}\n\n| window |",
        if stranding.is_empty() {
            "No episode ended stranded.".to_owned()
        } else {
            format!("Stranded: {}.", stranding.join(", "))
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
        let by_window = tally(&("p", &episodes, None), &jobs).unwrap();
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
        let inconsistent = Episodes::from([episode("w1", 0, [1.0, 4.0, 2.0, 0.0])]);
        let err = tally(&("p", &inconsistent, None), &jobs)
            .unwrap_err()
            .to_string();
        assert!(err.contains("4 of 5 jobs unfinished"), "{err}");
    }

    /// A row from before the end counts: where it finished every job nothing is needed; where
    /// it did not, the episode is played again, and without a way to do so it is refused.
    #[test]
    fn a_row_without_end_counts_is_played_again_where_jobs_were_unfinished() {
        let jobs = BTreeMap::from([("w0".to_owned(), 10), ("w1".to_owned(), 5)]);
        let old = |window: &str, seed, finished: f64| {
            (
                (format!("data/workloads/later/{window}.toml"), seed),
                vec![("finished".to_owned(), finished)],
            )
        };
        let episodes = Episodes::from([old("w0", 0, 8.0), old("w1", 0, 5.0)]);
        let played = std::cell::RefCell::new(Vec::new());
        let replay = |window: &str, seed: u64| {
            played.borrow_mut().push((window_name(window), seed));
            Ok(episode("w0", seed, [8.0, 1.0, 1.0, 0.0]).1)
        };
        let by_window = tally(&("p", &episodes, Some(&replay)), &jobs).unwrap();
        assert_eq!(*played.borrow(), vec![("w0".to_owned(), 0)]);
        assert_eq!((by_window["w0"].running, by_window["w0"].queued), (1, 1));
        assert_eq!(by_window["w1"].total(), 0);
        let err = tally(&("p", &episodes, None), &jobs)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`p` on w0 seed 0") && err.contains("running_at_end"),
            "{err}"
        );
        let diverging = |_: &str, seed: u64| Ok(episode("w0", seed, [7.0, 2.0, 1.0, 0.0]).1);
        let err = tally(&("p", &episodes, Some(&diverging)), &jobs)
            .unwrap_err()
            .to_string();
        assert!(err.contains("finished 7 jobs, its row says 8"), "{err}");
    }
}
