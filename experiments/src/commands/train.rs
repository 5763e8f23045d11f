//! `schedlab train`: trains a learned scheduler into a run folder.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use clap::Args;
use schedlab_trainer::algorithms::{AgentKind, LEARNERS};
use schedlab_trainer::train::TrainSpec;

use schedlab_experiments::settings::{Settings, parse_overrides};
use schedlab_experiments::training::train_loaded;

/// Every learner of the table with its line of help, as `--agent` accepts them.
fn learner_names() -> clap::builder::PossibleValuesParser {
    let values = LEARNERS
        .iter()
        .map(|row| clap::builder::PossibleValue::new(row.name).help(row.help));
    clap::builder::PossibleValuesParser::new(values)
}

#[derive(Args)]
pub struct TrainArgs {
    /// Learned agent, from the trainer's table of learners.
    #[arg(long, value_parser = learner_names())]
    agent: String,
    /// A workload of any kind.
    #[arg(long)]
    workload: PathBuf,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Env rounds to train for, over all env copies.
    #[arg(long, default_value_t = 20_000)]
    steps: u64,
    /// Folder for run folders (TensorBoard: `tensorboard --logdir runs`).
    #[arg(long, default_value = "runs")]
    out: PathBuf,
    /// Env rounds between checkpoints (default: a tenth of the run).
    #[arg(long)]
    checkpoint_every: Option<u64>,
    /// Env rounds between evaluations of the greedy agent (default: a tenth of the run).
    #[arg(long)]
    eval_every: Option<u64>,
    /// Greedy episodes per evaluation, on seeds 0..K (curves `eval/*`); 0 turns them off.
    #[arg(long, default_value_t = 5, value_parser = parse_eval_episodes)]
    eval_episodes: usize,
    /// Continue this run folder from its last checkpoint (same workload file; its own
    /// hyperparameters) up to `--steps`.
    #[arg(long)]
    resume: Option<PathBuf>,
    /// Set a hyperparameter, e.g. `--set lr=0.001` (repeatable; see config.json for names),
    /// or with a dotted key a setting of the workload, e.g. `--set
    /// reward.remaining_potential=true` (recorded in the run's manifest; a resume keeps it).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    hyperparameters: Vec<String>,
    /// Clone this scheduler's decisions (behaviour cloning on its episodes) before RL starts,
    /// e.g. `las` or `raes`; the same as `--set warm_start=NAME` (PPO and A2C). With
    /// `--steps 0` the run holds the clone alone.
    #[arg(long, value_name = "SCHEDULER")]
    warm_start: Option<String>,
}

pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    // `--agent` accepts the table's names only
    let kind = AgentKind::named(&args.agent);
    anyhow::ensure!(
        args.resume.is_none() || args.hyperparameters.is_empty(),
        "a resumed run keeps the hyperparameters of its config.json; drop --set"
    );
    // Ctrl-C: finish the current update, write a checkpoint, exit cleanly
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))?;
    let Settings {
        workload: mut workload_settings,
        policy: mut pairs,
        ..
    } = Settings::split(parse_overrides(&args.hyperparameters)?);
    if let Some(teacher) = &args.warm_start {
        pairs.push(("warm_start".to_owned(), teacher.clone()));
    }
    if let Some(run) = &args.resume {
        workload_settings = schedlab_trainer::run::Manifest::read(run)
            .with_context(|| format!("cannot resume {}", run.display()))?
            .workload_settings
            .into_iter()
            .collect();
    }
    let loaded = schedlab_experiments::workloads::load(&args.workload, &workload_settings)?;
    let config = kind.configure(loaded.env_kind(), &pairs)?;
    let spec = TrainSpec {
        workload_path: &args.workload,
        out: &args.out,
        seed: args.seed,
        steps: args.steps,
        checkpoint_every: args.checkpoint_every.unwrap_or((args.steps / 10).max(1)),
        eval_every: args.eval_every.unwrap_or((args.steps / 10).max(1)),
        eval_episodes: args.eval_episodes,
        resume: args.resume.as_deref(),
        stop: Some(&stop),
        play_settings: &loaded.play_settings(),
        workload_settings: &workload_settings,
    };
    let workload_name = loaded.name().to_owned();
    let run = train_loaded(kind, &loaded, config, &spec)?;
    let step = schedlab_trainer::run::Manifest::read(&run.path)?.step;
    print_warm_start(&run.path)?;
    if stop.load(Ordering::Relaxed) {
        println!(
            "interrupted: checkpoint at {step} rounds; continue with --resume {}",
            run.path.display()
        );
    } else {
        println!(
            "trained {step} rounds of {} on {} into {}",
            kind.name(),
            workload_name,
            run.path.display()
        );
    }
    // the run's own folder: a resumed run need not sit under --out
    println!(
        "view the curves: tensorboard --logdir {}",
        run.path.display()
    );
    Ok(())
}

/// " (A% on|of the N where the mask left a choice)", or nothing where `warm_start.json` predates
/// these fields.
fn contested(report: &serde_json::Value, agreement: &str, decisions: &str, word: &str) -> String {
    match (report[agreement].as_f64(), report[decisions].as_u64()) {
        (Some(share), Some(count)) => format!(
            " ({:.1}% {word} the {count} where the mask left a choice)",
            100.0 * share
        ),
        _ => String::new(),
    }
}

/// The warm start's agreement and the clone's headline figure beside its teacher's, from the
/// run folder's `warm_start.json`, when the run had one.
fn print_warm_start(run: &std::path::Path) -> anyhow::Result<()> {
    let path = run.join("warm_start.json");
    if !path.is_file() {
        return Ok(());
    }
    let warm: serde_json::Value = serde_json::from_slice(&std::fs::read(&path)?)?;
    let r = &warm["report"];
    println!(
        "warm start: cloned {} from {} decisions of {} episodes in {:.1} s; agreement {:.1}% on them, {:.1}% on {} held-out decisions{}",
        r["teacher"].as_str().unwrap_or("?"),
        r["decisions"],
        r["episodes"],
        r["seconds"].as_f64().unwrap_or(f64::NAN),
        100.0 * r["train_agreement"].as_f64().unwrap_or(f64::NAN),
        100.0 * r["held_out_agreement"].as_f64().unwrap_or(f64::NAN),
        r["held_out_decisions"],
        contested(
            r,
            "held_out_contested_agreement",
            "held_out_contested_decisions",
            "on"
        ),
    );
    for (k, round) in r["dagger"].as_array().into_iter().flatten().enumerate() {
        println!(
            "DAgger round {}: the clone played {} episodes ({} decisions, mean return {:.1}) and chose as the teacher would in {:.1}% of its states{}",
            k + 1,
            round["episodes"],
            round["decisions"],
            round["clone_mean_return"].as_f64().unwrap_or(f64::NAN),
            100.0 * round["agreement"].as_f64().unwrap_or(f64::NAN),
            contested(round, "contested_agreement", "contested_decisions", "of"),
        );
    }
    if let Some(first) = warm["headline"].as_array().and_then(|h| h.first()) {
        let (name, clone, teacher) = (
            first[0].as_str().unwrap_or("?"),
            first[1].as_f64().unwrap_or(f64::NAN),
            first[2].as_f64().unwrap_or(f64::NAN),
        );
        println!(
            "before RL, greedy on {} evaluation seeds: clone {name} {clone:.1}, teacher {teacher:.1} ({:+.1}%)",
            warm["seeds"].as_array().map_or(0, Vec::len),
            100.0 * (clone / teacher - 1.0)
        );
    }
    Ok(())
}

/// At most a million greedy episodes per evaluation (docs/workload-files.md, "Limits").
fn parse_eval_episodes(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n <= 1_000_000 => Ok(n),
        _ => Err(format!(
            "{text:?} is not a count of episodes from 0 to 1000000"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn hyperparameters_are_set_by_name_and_unknown_or_bad_ones_refused() {
        let config = AgentKind::named("dqn")
            .configure(
                schedlab_agents::EnvKind::SingleJob,
                &pairs(&[("lr", "0.01"), ("envs", "2")]),
            )
            .unwrap();
        assert_eq!(
            (config["lr"].as_f64(), config["envs"].as_u64()),
            (Some(0.01), Some(2))
        );
        let err = AgentKind::named("ppo")
            .configure(
                schedlab_agents::EnvKind::SingleJob,
                &pairs(&[("learning_rate", "1")]),
            )
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("unknown hyperparameter `learning_rate`") && err.contains("lr"),
            "{err}"
        );
        // a value of the wrong type or out of range is refused before any run folder exists
        let err = AgentKind::named("ppo")
            .configure(
                schedlab_agents::EnvKind::SingleJob,
                &pairs(&[("envs", "many")]),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("many"), "{err}");
        let err = AgentKind::named("dqn")
            .configure(schedlab_agents::EnvKind::SingleJob, &pairs(&[("tau", "0")]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("0 < tau <= 1"), "{err}");
    }
}
