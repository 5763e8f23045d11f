//! `schedlab suite score|episodes|validate|leaderboard|manifest`: versioned benchmark suites
//! (docs/benchmark.md).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use schedlab_experiments::output::{number, write_atomic};
use schedlab_experiments::suite::external::{self, ActionLog};
use schedlab_experiments::suite::{
    Split, Suite, SuiteResult, leaderboard, manifest, real, score, validate,
};

#[derive(Subcommand)]
pub enum SuiteCommand {
    /// Play every episode of a suite's split with a policy and the suite's reference; write
    /// the result file (metrics, action digests, IQM ratio with CI).
    Score(ScoreArgs),
    /// Replay a result file's episodes and confirm every metric and action digest.
    Validate {
        /// A result file written by `suite score`.
        result: PathBuf,
    },
    /// The episodes of a suite's split as JSON lines (workload file, episode, seed), for a tool
    /// that plays them itself and scores its actions with `suite score --actions`.
    Episodes {
        /// A suite id or a suite's folder.
        suite: String,
        /// `test` or `validation`.
        #[arg(long, value_enum, default_value_t = Split::Test)]
        split: Split,
    },
    /// Rank result files per suite (IQM ratio with CI, significance against the best
    /// heuristic, validated or not) into a markdown leaderboard with performance profiles.
    Leaderboard(LeaderboardArgs),
    /// Write a new suite version's SHA-256 manifest of every file in its folder.
    Manifest {
        /// The suite's folder (data/suites/NAME-vN).
        dir: PathBuf,
    },
}

#[derive(Args)]
pub struct ScoreArgs {
    /// A suite id (`philly-v1`, a folder of data/suites/) or a suite's folder.
    suite: String,
    /// A heuristic with its options, a shipped policy's name or a trained run's folder.
    #[arg(long, required_unless_present = "actions", conflicts_with = "actions")]
    policy: Option<String>,
    /// An external policy's actions, one list per episode (docs/benchmark.md, "External
    /// entries"), replayed instead of playing a policy; the split is the log's.
    #[arg(long)]
    actions: Option<PathBuf>,
    /// `test` (what a result reports) or `validation` (what may be tuned on).
    #[arg(long, value_enum, default_value_t = Split::Test)]
    split: Split,
    /// `real`: also play every test episode on real processes under cgroup limits (as root;
    /// docs/real-execution.md), recording their metrics and the machine beside the simulated
    /// result.
    #[arg(long, value_enum, default_value_t = Execution::Sim, conflicts_with = "actions")]
    execution: Execution,
    /// Where the result file goes.
    #[arg(long)]
    out: PathBuf,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Execution {
    Sim,
    Real,
}

#[derive(Args)]
pub struct LeaderboardArgs {
    /// Result files written by `suite score`.
    #[arg(required = true)]
    results: Vec<PathBuf>,
    /// The markdown file.
    #[arg(long)]
    out: PathBuf,
    /// Where each suite's performance profile goes as a PNG (default: beside `--out`).
    #[arg(long)]
    figures: Option<PathBuf>,
    /// List the results without replaying them (each row then says it was not validated).
    #[arg(long)]
    no_validate: bool,
}

pub fn run(command: SuiteCommand) -> anyhow::Result<()> {
    match command {
        SuiteCommand::Score(args) => score_entry(args),
        SuiteCommand::Episodes { suite, split } => {
            let suite = Suite::open(&suite)?;
            for (path, episode, seed) in suite.episodes(split) {
                // absolute, so that a tool running elsewhere opens the same file
                let path = std::fs::canonicalize(&path).unwrap_or(path);
                let line = serde_json::json!({
                    "suite": suite.id(), "workload": path, "episode": episode, "seed": seed,
                });
                println!("{line}");
            }
            Ok(())
        }
        SuiteCommand::Validate { result } => {
            let scored = SuiteResult::read(&result)?;
            let confirmed = validate::validate(&scored)?;
            println!(
                "{}: {} on {} validated, {confirmed} episodes replayed with the same metrics and actions",
                result.display(),
                scored.entry.policy,
                scored.suite.id
            );
            if let Some(real) = &scored.real {
                println!(
                    "its real-execution metrics are not replayed (real runs do not repeat): recorded on {}",
                    real.machine
                );
            }
            Ok(())
        }
        SuiteCommand::Leaderboard(args) => {
            let ranked = leaderboard::read_all(&args.results, !args.no_validate)?;
            let beside = (args.out.parent())
                .filter(|p| !p.as_os_str().is_empty())
                .map_or_else(|| PathBuf::from("."), PathBuf::from);
            let figures = args.figures.clone().unwrap_or(beside);
            let (text, plots) = leaderboard::write(&ranked, &args.out, &figures)?;
            write_atomic(&args.out, text.as_bytes())?;
            let failed = ranked.iter().filter(|r| r.validated.is_err()).count();
            for path in plots.iter().chain([&args.out]) {
                println!("wrote {}", path.display());
            }
            if failed > 0 && !args.no_validate {
                println!(
                    "{failed} of {} results did not validate (marked in the table)",
                    ranked.len()
                );
            }
            Ok(())
        }
        SuiteCommand::Manifest { dir } => {
            let hash = manifest::write(&dir)?;
            println!(
                "wrote {} (sha256 {hash})",
                dir.join(manifest::MANIFEST).display()
            );
            Ok(())
        }
    }
}

/// `suite score`: a policy played, or an external policy's actions replayed.
fn score_entry(args: ScoreArgs) -> anyhow::Result<()> {
    let suite = Suite::open(&args.suite)?;
    let result = match (&args.policy, &args.actions) {
        (_, Some(log)) => external::score_actions(&suite, &ActionLog::read(log)?)?,
        (Some(policy), None) if args.execution == Execution::Real => {
            anyhow::ensure!(
                args.split == Split::Test,
                "--execution real plays the test split only"
            );
            real::score_real(&suite, policy)?
        }
        (Some(policy), None) => score::score(&suite, policy, args.split)?,
        (None, None) => unreachable!("clap asks for --policy or --actions"),
    };
    result.write(&args.out)?;
    let a = &result.aggregate;
    println!(
        "{} on {} ({:?}, {} episodes): IQM {} / {} = {} [{}, {}], P(improvement) {}, Wilcoxon p {}",
        result.entry.policy,
        suite.id(),
        result.split,
        a.episodes,
        suite.metric,
        suite.reference,
        number(a.iqm_ratio),
        number(a.ci95[0]),
        number(a.ci95[1]),
        number(a.probability_of_improvement),
        a.wilcoxon_p.map_or_else(|| "-".to_owned(), number)
    );
    println!("wrote {}", args.out.display());
    Ok(())
}
