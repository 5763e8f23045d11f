//! Training runs a section of `schedlab reproduce` owns, kept in its output folder: a learner of
//! the protocol trained from one seed on a workload family, reused while nothing it was made
//! from has changed, resumed where a killed run stopped.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use schedlab_artifacts::sha256_file;
use schedlab_trainer::algorithms::AgentKind;
use schedlab_trainer::run::Manifest;
use schedlab_trainer::train::TrainSpec;

use super::protocol::LearnedRun;
use crate::settings::parse_overrides;
use crate::sources::{SOURCES_FINGERPRINT, record_these_sources, recorded_sources};
use crate::sweep::run::{forget_policies, latest_run};
use crate::sweep::spec::pairs;
use crate::training::train_loaded;

/// A learner's run folder for one training seed and what training it cost.
pub(super) struct Trained<'a> {
    pub learner: &'a LearnedRun,
    pub seed: u64,
    pub run: PathBuf,
    /// Cumulative wall seconds of the run, over its resumes.
    pub seconds: f64,
    /// The fingerprint of the sources that trained it (`SOURCES_FINGERPRINT` unless reused).
    pub sources: String,
}

impl Trained<'_> {
    /// The learner's label, with the seed where it trains on several.
    pub(super) fn label(&self) -> String {
        self.seeded(&self.learner.label)
    }

    /// The policy spec and label of each row this run plays: as trained, then with each of
    /// the learner's play options (`LABEL, OPTIONS`).
    pub(super) fn rows(&self) -> Vec<(String, String)> {
        let run = self.run.display().to_string();
        std::iter::once((run.clone(), self.label()))
            .chain(self.learner.play.iter().map(|options| {
                (
                    format!("{run}:{options}"),
                    self.seeded(&format!("{}, {options}", self.learner.label)),
                )
            }))
            .collect()
    }

    fn seeded(&self, label: &str) -> String {
        if self.learner.seeds.len() > 1 {
            format!("{label} (seed {})", self.seed)
        } else {
            label.to_owned()
        }
    }
}

/// Where a section's training of one learner and seed on one family happens.
pub(super) struct Training<'a> {
    /// The section, for the progress line.
    pub section: &'a str,
    pub family: &'a Path,
    /// The learners' folders: a learner's seed trains in `root/<label>/seed-<seed>`.
    pub root: PathBuf,
    /// Greedy evaluation episodes on the family (at the end, or at every checkpoint for a
    /// learner that keeps its best network).
    pub eval_episodes: usize,
    /// Sweep folders that played an older run: they forget its rows when it is retrained.
    pub stale: Vec<PathBuf>,
    /// Accept a finished run whatever sources trained it (`reproduce --reuse-runs`).
    pub reuse: bool,
}

impl Training<'_> {
    /// The folder of `learner`'s runs from `seed`.
    fn runs_of(&self, learner: &LearnedRun, seed: u64) -> PathBuf {
        self.root
            .join(slug(&learner.label))
            .join(format!("seed-{seed}"))
    }
}

/// Trains `learner` from `seed`, or returns the run in the learner's folder that finished from
/// the same config, family, planned rounds and sources (`SOURCES_FINGERPRINT`; any sources with
/// `reuse`); a run killed after a checkpoint is resumed from it, and a run made from anything
/// else is trained again from the start, and `training.stale` forget the old run's rows.
pub(super) fn trained<'a>(
    training: &Training,
    learner: &'a LearnedRun,
    seed: u64,
) -> anyhow::Result<Trained<'a>> {
    let (section, family) = (&training.section, &training.family);
    let runs = &training.runs_of(learner, seed);
    let sources = runs.join("training_sources.txt");
    let plan = runs.join(PLAN_FILE);
    let workload_settings = parse_overrides(&pairs(&learner.workload_set))?;
    let loaded = crate::workloads::load(family, &workload_settings)?;
    let kind = learner_kind(learner)?;
    let config = kind.configure(loaded.env_kind(), &parse_overrides(&pairs(&learner.set))?)?;
    let family_sha256 = sha256_file(family).with_context(|| format!("{}", family.display()))?;
    // a run of this learner from these sources: finished, or killed and resumed where it stopped
    let trained_by = recorded_sources(&sources);
    let from_these_sources = trained_by.as_deref() == Some(SOURCES_FINGERPRINT);
    let planned = recorded_plan(&plan);
    let same = |manifest: &Manifest| {
        let finished = manifest.step >= learner.steps;
        // the rounds set the learning-rate and curriculum schedules: a run planned for
        // others is another run; one from before plans were recorded is taken only finished
        let same_plan = planned.map_or(finished, |rounds| rounds == learner.steps);
        // a run from before a hyperparameter existed trained with its default
        kind.backfilled(&manifest.config) == config
            && manifest.workload_sha256 == family_sha256
            && manifest.workload_settings == workload_settings.iter().cloned().collect()
            && same_plan
            && (from_these_sources || (training.reuse && finished))
    };
    let cached = latest_run(runs, loaded.name(), &learner.agent, seed)
        .map(|run| Manifest::read(&run).map(|m| (run, m)))
        .transpose()?
        .filter(|(_, manifest)| same(manifest));
    if let Some((run, manifest)) = &cached
        && manifest.step >= learner.steps
    {
        return Ok(Trained {
            learner,
            seed,
            run: run.clone(),
            seconds: manifest.wall_s.unwrap_or(f64::NAN),
            sources: trained_by.unwrap_or_default(),
        });
    }
    if cached.is_none() {
        start_afresh(runs, &training.stale, &sources, &plan, learner.steps)?;
    }
    let resume = cached.as_ref().map(|(run, _)| run.as_path());
    let play_settings = loaded.play_settings();
    let (checkpoint_every, eval_every) = schedule(learner, &config);
    let spec = TrainSpec {
        workload_path: family,
        out: runs,
        seed,
        steps: learner.steps,
        checkpoint_every,
        eval_every,
        eval_episodes: training.eval_episodes,
        resume,
        stop: None,
        play_settings: &play_settings,
        workload_settings: &workload_settings,
    };
    announce(section, learner, seed, family, resume.is_some());
    let run = train_loaded(kind, &loaded, config, &spec)?;
    let seconds = Manifest::read(&run.path)?.wall_s.unwrap_or(f64::NAN);
    Ok(Trained {
        learner,
        seed,
        run: run.path,
        seconds,
        sources: SOURCES_FINGERPRINT.to_owned(),
    })
}

/// Prints that `learner` is trained, or resumed, from `seed` on `family`.
fn announce(section: &str, learner: &LearnedRun, seed: u64, family: &Path, resuming: bool) {
    let how = ["training", "resuming"][usize::from(resuming)];
    let family_name = family.file_name().unwrap_or(family.as_os_str());
    let family_name = family_name.to_string_lossy();
    println!(
        "{section}: {how} {} seed {seed} on {family_name}",
        learner.label
    );
}

fn learner_kind(learner: &LearnedRun) -> anyhow::Result<AgentKind> {
    AgentKind::from_name(&learner.agent).with_context(|| {
        format!(
            "learner `{}`: unknown agent `{}`",
            learner.label, learner.agent
        )
    })
}

/// The file in a learner's folder of runs that records the rounds its run was planned for.
const PLAN_FILE: &str = "training_rounds.txt";

/// The rounds recorded at `plan`, if any.
fn recorded_plan(plan: &Path) -> Option<u64> {
    std::fs::read_to_string(plan).ok()?.trim().parse().ok()
}

/// Steps between checkpoints and between evaluations: a learner that keeps its best network
/// is evaluated at every checkpoint, others at the end.
fn schedule(learner: &LearnedRun, config: &serde_json::Value) -> (u64, u64) {
    let checkpoint_every = (learner.steps / 10).max(1);
    let keeps_best = config.get("keep_best").and_then(serde_json::Value::as_bool) == Some(true);
    match keeps_best {
        true => (checkpoint_every, checkpoint_every),
        false => (checkpoint_every, learner.steps.max(1)),
    }
}

/// A learner's folder of runs emptied for a new run: a new run folder is a new policy name,
/// so the sweeps forget the old one's rows and keep the other policies'; `sources` records
/// what trains it, and `plan` the rounds it is planned for.
fn start_afresh(
    runs: &Path,
    stale: &[PathBuf],
    sources: &Path,
    plan: &Path,
    rounds: u64,
) -> anyhow::Result<()> {
    for sweep in stale {
        forget_policies(sweep, |policy| Path::new(policy).starts_with(runs))?;
    }
    if runs.exists() {
        std::fs::remove_dir_all(runs)
            .with_context(|| format!("removing the outdated {}", runs.display()))?;
    }
    std::fs::create_dir_all(runs).with_context(|| format!("{}", runs.display()))?;
    record_these_sources(sources)?;
    crate::output::write_atomic(plan, rounds.to_string().as_bytes())
}

/// `BC of raes + PPO` -> `bc-of-raes-ppo`.
fn slug(label: &str) -> String {
    label
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}

/// A sentence for a section's text naming the other sources that trained some of `trained`
/// (runs reused by `--reuse-runs`); empty when this binary's sources trained them all.
pub(super) fn reused_note(trained: &[Trained]) -> String {
    let reused: Vec<&Trained> = trained
        .iter()
        .filter(|t| t.sources != SOURCES_FINGERPRINT)
        .collect();
    if reused.is_empty() {
        return String::new();
    }
    // a run put in the folder without its `training_sources.txt` has none on record
    let mut others: Vec<&str> = reused
        .iter()
        .map(|t| match t.sources.as_str() {
            "" => "unrecorded",
            sources => sources,
        })
        .collect();
    others.sort_unstable();
    others.dedup();
    let labels: Vec<String> = reused.iter().map(|t| format!("`{}`", t.label())).collect();
    format!(
        " These rows were trained by a build of other env, agents and trainer sources (fingerprint {}; this one is {SOURCES_FINGERPRINT}) and played by this one (`--reuse-runs`): {}.",
        others.join(", "),
        labels.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{SOURCES_FINGERPRINT, Trained, reused_note, slug};
    use crate::reproduce::protocol::LearnedRun;

    /// Runs of this build go unnamed; a reused run names its sources, or says they are not on
    /// record where its folder has no `training_sources.txt`.
    #[test]
    fn the_note_names_the_other_sources_of_reused_runs() {
        let learner: LearnedRun =
            toml::from_str("label = \"ES\"\nagent = \"es\"\nsteps = 1\nseeds = [0, 1, 2]").unwrap();
        let run = |seed, sources: &str| Trained {
            learner: &learner,
            seed,
            run: PathBuf::new(),
            seconds: 1.0,
            sources: sources.into(),
        };
        assert_eq!(reused_note(&[run(0, SOURCES_FINGERPRINT)]), "");
        let note = reused_note(&[
            run(0, SOURCES_FINGERPRINT),
            run(1, "0123456789abcdef"),
            run(2, ""),
        ]);
        assert!(
            note.contains("fingerprint 0123456789abcdef, unrecorded;"),
            "{note}"
        );
        assert!(
            !note.contains("(seed 0)") && note.contains("(seed 2)"),
            "{note}"
        );
    }

    #[test]
    fn labels_become_folder_names() {
        assert_eq!(slug("BC of raes + PPO"), "bc-of-raes-ppo");
        assert_eq!(slug("PPO from scratch"), "ppo-from-scratch");
    }
}
