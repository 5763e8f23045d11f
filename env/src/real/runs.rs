//! The runs alive in this process: each run's folder of groups under a tag unique in the
//! process, kept so that its end, an error or a Ctrl-C removes it with its processes.

use std::sync::Mutex;

use super::cgroup;

static NEXT_RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A tag for a new run folder, unique in this process.
pub(crate) fn next_run_tag() -> u64 {
    NEXT_RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The run folders alive in this process, for [`remove_every_run`].
static LIVE_RUNS: Mutex<Vec<(u64, cgroup::Group)>> = Mutex::new(Vec::new());

/// Keeps `group` for [`remove_every_run`] under `tag`.
pub(crate) fn register(tag: u64, group: cgroup::Group) {
    LIVE_RUNS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((tag, group));
}

/// Kills the processes of run `tag` and removes its groups.
pub(crate) fn remove_run(tag: u64) -> crate::Result<()> {
    let group = {
        let mut runs = LIVE_RUNS.lock().unwrap_or_else(|e| e.into_inner());
        let at = runs.iter().position(|(t, _)| *t == tag);
        at.map(|i| runs.remove(i).1)
    };
    group.map_or(Ok(()), |g| g.remove())
}

/// Kills every real process this program started and removes every group it made: what a
/// Ctrl-C handler calls before the program exits.
pub fn remove_every_run() {
    let runs = std::mem::take(&mut *LIVE_RUNS.lock().unwrap_or_else(|e| e.into_inner()));
    for (_, group) in runs {
        if let Err(e) = group.remove() {
            eprintln!("real execution: {e}");
        }
    }
}
