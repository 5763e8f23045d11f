//! `suite leaderboard`: result files ranked per suite by their IQM ratio to the reference,
//! with each entry's significance against the best heuristic on the same episodes, whether it
//! validated, and rliable's performance profile (the fraction of episodes at or below each
//! ratio) as a PNG per suite.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::result::SuiteResult;
use super::validate::validate;
use crate::fidelity::{kendall_tau, ranks};
use crate::output::{number, p_text};
use crate::plots::{XScale, cdfs};
use crate::stats::wilcoxon;

/// A result file and whether it validated (the refusal's text where it did not).
pub struct Ranked {
    pub path: PathBuf,
    pub result: SuiteResult,
    pub validated: Result<(), String>,
}

/// Reads and, unless `validating` is off, validates every result file.
pub fn read_all(paths: &[PathBuf], validating: bool) -> anyhow::Result<Vec<Ranked>> {
    paths
        .iter()
        .map(|path| {
            let result = SuiteResult::read(path)?;
            let validated = if validating {
                validate(&result).map(|_| ()).map_err(|e| format!("{e:#}"))
            } else {
                Err("not validated (--no-validate)".to_owned())
            };
            Ok(Ranked {
                path: path.clone(),
                result,
                validated,
            })
        })
        .collect()
}

/// The metric of every episode of `result`, in the suite's order.
fn metric_values(result: &SuiteResult) -> Vec<f64> {
    (result.episodes.iter())
        .map(|e| e.value(&result.metric))
        .collect()
}

/// The leaderboard's markdown for `out`, and each suite's performance profile written into
/// `figures` as `OUT-STEM-SUITE-SPLIT.png` (their paths returned).
pub fn write(
    ranked: &[Ranked],
    out: &Path,
    figures: &Path,
) -> anyhow::Result<(String, Vec<PathBuf>)> {
    let mut by_suite: BTreeMap<(&str, String), Vec<&Ranked>> = BTreeMap::new();
    for r in ranked {
        let split = format!("{:?}", r.result.split).to_lowercase();
        by_suite
            .entry((&r.result.suite.id, split))
            .or_default()
            .push(r);
    }
    let stem = (out.file_stem()).map_or("leaderboard".into(), |s| s.to_string_lossy().into_owned());
    let folder = (out.parent())
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(figures)?;
    let mut text = String::from(
        "# Leaderboard\n\nEach suite's entries ranked by the interquartile mean of their per-episode ratio to the suite's reference heuristic (lower is better), with a stratified bootstrap 95% interval (docs/benchmark.md). \"vs best heuristic\" is the paired Wilcoxon signed-rank p against the heuristic with the lowest IQM ratio on the same episodes (the best that replays). Every row's result file is replayed by `schedlab suite validate` before it is listed as validated.\n",
    );
    let mut plots = Vec::new();
    for ((suite, split), mut rows) in by_suite {
        rows.sort_by(|a, b| {
            (a.result.aggregate.iqm_ratio).total_cmp(&b.result.aggregate.iqm_ratio)
        });
        text += &table(suite, &split, &rows);
        text += &real_table(&rows);
        let png = figures.join(format!("{stem}-{suite}-{split}.png"));
        profile(&png, suite, &rows)?;
        let link = png
            .strip_prefix(folder)
            .unwrap_or(&png)
            .to_string_lossy()
            .replace('\\', "/");
        text += &format!("\n![performance profile of {suite}]({link})\n");
        plots.push(png);
    }
    Ok((text, plots))
}

/// One suite's ranked table; `rows` sorted best first.
fn table(suite: &str, split: &str, rows: &[&Ranked]) -> String {
    // the best heuristic that replays, or the best one where none was replayed
    let heuristics = || rows.iter().filter(|r| !r.result.entry.trained);
    let best_heuristic = heuristics()
        .find(|r| r.validated.is_ok())
        .or_else(|| heuristics().next());
    let first = &rows[0].result;
    let mut text = format!(
        "\n## {suite} ({split} split)\n\n{} against `{}`, {} episodes.\n\n| rank | entry | kind | IQM ratio [95% CI] | P(improvement) | vs best heuristic | validated |\n| ---: | --- | --- | --- | ---: | --- | --- |\n",
        first.metric, first.reference, first.aggregate.episodes
    );
    for (rank, r) in rows.iter().enumerate() {
        let a = &r.result.aggregate;
        let against = match best_heuristic {
            Some(best) if !std::ptr::eq(*best, *r) => {
                let p = wilcoxon(&metric_values(&r.result), &metric_values(&best.result));
                format!("{} (`{}`)", p_text(p), best.result.entry.policy)
            }
            _ => "best heuristic".to_owned(),
        };
        let validated = match &r.validated {
            Ok(()) => "yes".to_owned(),
            Err(why) => format!("**no**: {}", why.replace('|', "/").replace('\n', " ")),
        };
        let kind = if r.result.entry.trained {
            "trained"
        } else {
            "heuristic"
        };
        text += &format!(
            "| {} | `{}` | {kind} | {} [{}, {}] | {} | {against} | {validated} |\n",
            rank + 1,
            r.result.entry.policy,
            number(a.iqm_ratio),
            number(a.ci95[0]),
            number(a.ci95[1]),
            number(a.probability_of_improvement),
        );
    }
    text
}

/// The entries of `rows` that also played on real processes: the mean of the suite's metric
/// over its episodes in the simulator and for real, each order's ranks, and Kendall's tau of
/// the two orders; empty where none did.
fn real_table(rows: &[&Ranked]) -> String {
    let real: Vec<(&Ranked, f64, f64)> = (rows.iter())
        .filter_map(|r| {
            let result = &r.result;
            let real: Option<Vec<f64>> = (result.episodes.iter())
                .map(|e| e.real.as_ref()?.get(&result.metric).copied())
                .collect();
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
            Some((*r, mean(&metric_values(result)), mean(&real?)))
        })
        .collect();
    if real.is_empty() {
        return String::new();
    }
    let simulated: Vec<f64> = real.iter().map(|(_, s, _)| *s).collect();
    let measured: Vec<f64> = real.iter().map(|(_, _, m)| *m).collect();
    let (sim_ranks, real_ranks) = (ranks(&simulated), ranks(&measured));
    let first = &real[0].0.result;
    let mut text = format!(
        "\n### On real processes\n\nEntries also played on real processes under cgroup limits (`suite score --execution real`, docs/real-execution.md), on the same {} episodes: the mean {} over them in the simulator and for real, and each order's rank (1: lowest). The real figures are recorded with the machine they ran on and are not replayed (real runs do not repeat); the rows above validate the simulated part.\n\n| entry | simulated | real | error | sim rank | real rank | machine |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n",
        first.aggregate.episodes, first.metric
    );
    for (k, (r, sim, measured)) in real.iter().enumerate() {
        let machine = (r.result.real.as_ref()).map_or("-", |m| m.machine.as_str());
        text += &format!(
            "| `{}` | {} | {} | {:+.1}% | {} | {} | {machine} |\n",
            r.result.entry.policy,
            number(*sim),
            number(*measured),
            100.0 * (sim - measured) / measured,
            sim_ranks[k],
            real_ranks[k],
        );
    }
    text + &format!(
        "\nKendall's tau of the simulated order against the real one over these {} entries: {:.2}.\n",
        real.len(),
        kendall_tau(&simulated, &measured)
    )
}

/// rliable's performance profile of `rows`: per entry, the fraction of episodes at or below
/// each ratio to the reference.
fn profile(png: &Path, suite: &str, rows: &[&Ranked]) -> anyhow::Result<()> {
    let samples: Vec<(String, Vec<f64>)> = (rows.iter())
        .map(|r| {
            let ratios = r.result.episodes.iter().map(|e| e.ratio).collect();
            (r.result.entry.policy.clone(), ratios)
        })
        .collect();
    let reference = &rows[0].result.reference;
    let title = format!("{suite}: fraction of episodes at or below each ratio to {reference}");
    let axes = ("ratio to the reference", "fraction of episodes");
    cdfs(png, &title, axes, &samples, XScale::Log)
}
