//! `suite score --execution real`: an entry's simulated result (`score.rs`) with every test
//! episode played again on real processes under cgroup limits (docs/real-execution.md), one at
//! a time, and the machine they ran on. Real episodes do not repeat, so `suite validate`
//! replays the simulated part only.

use std::time::Instant;

use anyhow::Context;

use super::definition::{Split, Suite};
use super::result::{RealRun, SuiteResult};
use super::score::{play_set, score};
use crate::play::episode_bar;
use crate::sources::REAL_EXECUTION_SOURCES_FINGERPRINT;

/// `policy` scored on `suite`'s test split in the simulator and played on real processes.
pub fn score_real(suite: &Suite, policy: &str) -> anyhow::Result<SuiteResult> {
    let mut result = score(suite, policy, Split::Test)?;
    REAL_EXECUTION_SOURCES_FINGERPRINT.clone_into(&mut result.build.sources_fingerprint);
    let episodes = suite.episodes(Split::Test);
    let bar = episode_bar(episodes.len() as u64, format!("{policy} on real processes"))?;
    let started = Instant::now();
    for ((path, window, seed), scored) in episodes.iter().zip(&mut result.episodes) {
        let played = play_set(path, policy, *seed, &["execution=real".to_owned()])
            .with_context(|| format!("{policy} on {window} seed {seed}, for real"))?;
        scored.real = Some(played.metrics);
        bar.inc(1);
    }
    bar.finish_and_clear();
    result.real = Some(RealRun {
        machine: this_machine(),
        wall_s: started.elapsed().as_secs_f64(),
    });
    Ok(result)
}

/// The machine as a result records it: host name, CPU model and the cores this process sees.
fn this_machine() -> String {
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
    let host = read("/proc/sys/kernel/hostname").trim().to_owned();
    let cpuinfo = read("/proc/cpuinfo");
    let model = (cpuinfo.lines())
        .find_map(|l| l.strip_prefix("model name"))
        .map_or("unknown CPU", |rest| {
            rest.trim_start_matches([' ', '\t', ':'])
        });
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{host}: {model}, {cores} cores")
}
