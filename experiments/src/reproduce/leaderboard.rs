//! leaderboard: every heuristic and shipped trained policy the protocol lists, scored on the
//! test split of every suite it plays (`crate::suite`), each result kept in
//! `RESULTS/SUITE/ENTRY.json`; LEADERBOARD.md ranked from those files after each is replayed,
//! and a section with each suite's best entry and the time one heuristic takes to score.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::context::Context;
use super::fidelity::real_unavailable;
use super::protocol::LeaderboardSuite;
use crate::output::{number, write_atomic};
use crate::sources::{REAL_EXECUTION_SOURCES_FINGERPRINT, SOURCES_FINGERPRINT};
use crate::suite::leaderboard::{self, Ranked};
use crate::suite::real::score_real;
use crate::suite::result::RealRun;
use crate::suite::score::{entry_of, score};
use crate::suite::{Split, Suite, SuiteResult};

/// An entry's result file name: its policy with options, in letters, digits, `-` and `=`.
fn file_name(policy: &str) -> String {
    let name: String = (policy.chars())
        .map(|c| match c {
            ':' | ',' => '-',
            c if c.is_ascii_alphanumeric() || c == '-' || c == '=' || c == '.' => c,
            _ => '_',
        })
        .collect();
    format!("{name}.json")
}

/// The result at `path` where it was scored by this build on these files of `suite` with the
/// same entry (and played for real where `real`): kept, so that an interrupted run resumes by
/// entry.
fn kept(path: &Path, suite: &Suite, policy: &str, real: bool) -> Option<SuiteResult> {
    let result = SuiteResult::read(path).ok()?;
    let same = result.suite.manifest_sha256 == suite.manifest_sha256
        && result.build.sources_fingerprint
            == if real {
                REAL_EXECUTION_SOURCES_FINGERPRINT
            } else {
                SOURCES_FINGERPRINT
            }
        && result.split == Split::Test
        && result.real.is_some() == real
        && entry_of(policy).ok()? == result.entry;
    same.then_some(result)
}

/// Scores every entry of one suite, keeping results this build already scored; the entries
/// it lists for real execution play for real too where `real_possible`.
fn score_suite(
    results: &Path,
    listed: &LeaderboardSuite,
    real_possible: bool,
) -> anyhow::Result<()> {
    let suite = Suite::open(&listed.id)?;
    let folder = results.join(suite.id());
    std::fs::create_dir_all(&folder)?;
    for policy in &listed.entries {
        let real = real_possible && listed.real.contains(policy);
        let path = folder.join(file_name(policy));
        if kept(&path, &suite, policy, real).is_none() {
            let started = Instant::now();
            let result = match real {
                true => score_real(&suite, policy)?,
                false => score(&suite, policy, Split::Test)?,
            };
            result.write(&path)?;
            println!(
                "leaderboard: {policy} on {}: IQM ratio {} ({:.1} s)",
                suite.id(),
                number(result.aggregate.iqm_ratio),
                started.elapsed().as_secs_f64()
            );
        }
    }
    Ok(())
}

/// Every `SUITE/ENTRY.json` under `results`, sorted.
fn results_in(results: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for suite in std::fs::read_dir(results)? {
        for entry in std::fs::read_dir(suite?.path())? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "json") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    Ok(paths)
}

/// The best entry of `suite`'s rows that replayed.
fn best_line(suite: &str, ranked: &[Ranked]) -> String {
    let rows = ranked.iter().filter(|r| r.result.suite.id == suite).count();
    let replayed: Vec<&Ranked> = (ranked.iter())
        .filter(|r| r.result.suite.id == suite && r.validated.is_ok())
        .collect();
    let best = (replayed.iter())
        .min_by(|a, b| (a.result.aggregate.iqm_ratio).total_cmp(&b.result.aggregate.iqm_ratio));
    let Some(best) = best else {
        return format!("| {suite} | {rows} | 0 | - | - |\n");
    };
    let a = &best.result.aggregate;
    format!(
        "| {suite} | {rows} | {} | `{}` | {} [{}, {}] |\n",
        replayed.len(),
        best.result.entry.policy,
        number(a.iqm_ratio),
        number(a.ci95[0]),
        number(a.ci95[1]),
    )
}

pub fn leaderboard(cx: &Context) -> anyhow::Result<String> {
    let protocol = &cx.protocol.leaderboard;
    let results = PathBuf::from(&protocol.results);
    let unavailable = real_unavailable();
    if protocol.suites.iter().any(|s| !s.real.is_empty()) {
        crate::settings::remove_real_runs_on_interrupt();
    }
    for listed in &protocol.suites {
        score_suite(&results, listed, unavailable.is_none())?;
    }
    // every result in the folder: the protocol's and those submitted beside them
    let paths = results_in(&results)?;
    // the bar's timing: a fresh score, not a kept one
    let timed = Suite::open(&protocol.timed_suite)?;
    let started = Instant::now();
    let scored = score(&timed, &protocol.timed_policy, Split::Test)?;
    let seconds = started.elapsed().as_secs_f64();
    println!("leaderboard: replaying {} results", paths.len());
    let ranked = leaderboard::read_all(&paths, true)?;
    let document = PathBuf::from(&protocol.document);
    let (text, _) = leaderboard::write(&ranked, &document, &cx.args.figures)?;
    write_atomic(&document, text.as_bytes())?;
    let mut section = format!(
        "## Leaderboard (leaderboard)\n\n`schedlab reproduce leaderboard` (protocol `[leaderboard]` of `data/experiments/reproduce.toml`). Every listed heuristic and shipped trained policy plays the test split of each versioned suite (docs/benchmark.md) beside the suite's reference heuristic; each result is kept in `{}/SUITE/ENTRY.json` (a result this build scored on the same files is kept, so an interrupted run resumes), replayed by `schedlab suite validate`, and ranked in [{}]({}) with performance profiles. Best entry per suite (the IQM of its per-episode ratio to the reference, lower is better, stratified bootstrap 95% CI):\n\n| suite | entries | validated | best | IQM ratio [95% CI] |\n| --- | ---: | ---: | --- | --- |\n",
        protocol.results, protocol.document, protocol.document,
    );
    for listed in &protocol.suites {
        section += &best_line(&listed.id, &ranked);
    }
    section += &format!(
        "\nScoring {}'s test split with `{}` ({} episodes, each beside the reference's, `--threads` at its default) took {seconds:.2} s in this run.\n",
        timed.id(),
        protocol.timed_policy,
        scored.aggregate.episodes,
    );
    for listed in protocol.suites.iter().filter(|s| !s.left_out.is_empty()) {
        section += &format!("\nNot on {}: {}\n", listed.id, listed.left_out);
    }
    for listed in protocol.suites.iter().filter(|s| !s.real.is_empty()) {
        let played: Vec<&RealRun> = (ranked.iter())
            .filter(|r| r.result.suite.id == listed.id)
            .filter_map(|r| r.result.real.as_ref())
            .collect();
        let minutes = played.iter().map(|r| r.wall_s).sum::<f64>() / 60.0;
        section += &match &unavailable {
            None => format!(
                "\n{} of {}'s entries ({}) also played on real processes on this machine, {minutes:.1} minutes of wall time in all (each result's `real.wall_s`); LEADERBOARD.md sets their simulated and real ranks side by side, with Kendall's tau.\n",
                played.len(),
                listed.id,
                listed
                    .real
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Some(why) => format!(
                "\n{}'s entries did not play on real processes: this machine cannot run them ({why}).\n",
                listed.id
            ),
        };
    }
    Ok(section + "\n")
}
