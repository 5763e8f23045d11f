//! Playing policies on workloads of any kind over seeds: what `run`, `eval`, `compare`,
//! sweeps and plots share.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use schedlab_agents::options::parse_inline;
use schedlab_agents::registry;
use schedlab_agents::{
    EnvContext, Policy, PolicyError, SchedulingEnv, TrainedLoader, run_episode_observed,
};
use schedlab_env::Step;
use schedlab_trainer::algorithms::load_agent;

use crate::workloads::{InfoOf, Kind, MetricsOf};

/// The most seeds one command plays (docs/workload-files.md, "Limits").
pub const MAX_SEEDS: u64 = 1_000_000;

/// Parses `0..4` (inclusive: 0,1,2,3,4), `3` or `1,5,9`; at most [`MAX_SEEDS`] seeds.
pub fn parse_seeds(text: &str) -> anyhow::Result<Vec<u64>> {
    let number = |s: &str| {
        s.trim()
            .parse::<u64>()
            .with_context(|| format!("seeds `{text}`: `{s}` is not a seed"))
    };
    if let Some((a, b)) = text.split_once("..") {
        let (a, b) = (number(a)?, number(b)?);
        anyhow::ensure!(a <= b, "seeds `{text}`: the range is empty");
        anyhow::ensure!(
            b - a < MAX_SEEDS,
            "seeds `{text}`: {} seeds, above the limit of {MAX_SEEDS}",
            u128::from(b - a) + 1
        );
        return Ok((a..=b).collect());
    }
    text.split(',').map(number).collect()
}

/// A progress bar over episodes.
pub fn episode_bar(total: u64, message: String) -> anyhow::Result<ProgressBar> {
    count_bar(total, message, "episodes")
}

/// A progress bar over `total` pieces of work named `unit` (`windows`, `episodes`).
pub fn count_bar(total: u64, message: String, unit: &'static str) -> anyhow::Result<ProgressBar> {
    let template =
        format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{elapsed}} elapsed, ~{{eta}} left");
    let bar = ProgressBar::new(total).with_style(ProgressStyle::with_template(&template)?);
    bar.set_message(message);
    with_log_lines(bar, unit)
}

/// A progress bar over env rounds, with a message for rates and returns.
pub fn step_bar(total: u64, message: String) -> anyhow::Result<ProgressBar> {
    let bar = ProgressBar::new(total).with_style(ProgressStyle::with_template(
        "{msg} [{bar:30}] {pos}/{len} rounds, {elapsed} elapsed, ~{eta} left",
    )?);
    bar.set_message(message);
    with_log_lines(bar, "rounds")
}

/// Seconds between plain progress lines where standard error is not a terminal.
pub const PROGRESS_EVERY_VARIABLE: &str = "SCHEDLAB_PROGRESS_EVERY_S";
const PROGRESS_EVERY_S: f64 = 30.0;

/// `bar` as it is on a terminal; elsewhere (a log file, Slurm, nohup, a pipe), where a bar
/// draws nothing, the same figures as one plain line on standard error every
/// `SCHEDLAB_PROGRESS_EVERY_S` seconds (30 by default) until the bar is finished or dropped.
fn with_log_lines(bar: ProgressBar, unit: &'static str) -> anyhow::Result<ProgressBar> {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        return Ok(bar);
    }
    let every = match std::env::var(PROGRESS_EVERY_VARIABLE) {
        Ok(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| *s > 0.0 && s.is_finite())
            .with_context(|| {
                format!("{PROGRESS_EVERY_VARIABLE}={text}: seconds between progress lines must be a positive number")
            })?,
        Err(_) => PROGRESS_EVERY_S,
    };
    let weak = bar.downgrade();
    std::thread::spawn(move || {
        loop {
            std::thread::sleep(std::time::Duration::from_secs_f64(every));
            let Some(bar) = weak.upgrade() else {
                return;
            };
            if bar.is_finished() {
                return;
            }
            let (done, total, elapsed) = (bar.position(), bar.length().unwrap_or(0), bar.elapsed());
            // the mean rate so far: a bar's own estimate follows the last few steps, and
            // between slow episodes it runs to years
            let left = if done > 0 {
                let per_unit = elapsed.as_secs_f64() / done as f64;
                let seconds = per_unit * total.saturating_sub(done) as f64;
                indicatif::HumanDuration(std::time::Duration::from_secs_f64(seconds)).to_string()
            } else {
                "unknown".to_owned()
            };
            eprintln!(
                "{}: {done}/{total} {unit}, {} elapsed, ~{left} left",
                bar.message(),
                indicatif::HumanDuration(elapsed),
            );
        }
    });
    Ok(bar)
}

/// The run folder `spec` names: a path to one, or the name of a shipped policy, either
/// followed by inline play options (`dag-gnn:episodes=64`).
pub fn trained_run(spec: &str) -> Option<PathBuf> {
    trained_spec(spec).map(|(run, _)| run)
}

/// [`trained_run`] with the text of the play options after it (empty where none).
fn trained_spec(spec: &str) -> Option<(PathBuf, &str)> {
    let run_folder = |name: &str| {
        let path = Path::new(name);
        if path.join("manifest.json").is_file() {
            return Some(path.to_owned());
        }
        let shipped = crate::paths::shipped_policies().join(name);
        let plain_name = !name.is_empty() && !name.contains(['/', ':', '.']);
        (plain_name && shipped.join("manifest.json").is_file()).then_some(shipped)
    };
    if let Some(run) = run_folder(spec) {
        return Some((run, ""));
    }
    let (name, inline) = spec.split_once(':')?;
    Some((run_folder(name)?, inline))
}

/// A scheduler by spec (with the `options` it declares), a shipped trained policy by name
/// (data/policies/), or the trained agent of a run
/// folder (acting deterministically; refused on an env of another shape).
pub fn make_policy<E: SchedulingEnv>(
    spec: &str,
    env: &E,
    options: &[(String, String)],
) -> anyhow::Result<Box<dyn Policy>> {
    let context = env
        .context()
        .with_trained(TrainedLoader(Arc::new(load_trained)));
    if let Some(loaded) = load_trained(spec, &context) {
        return Ok(loaded?);
    }
    // `raes` finds the shipped fitted predictors unless told
    let predictors = crate::paths::shipped_predictors();
    let defaults = [("predictor_dir".to_owned(), predictors.display().to_string())];
    let options: Vec<(String, String)> = defaults.into_iter().chain(options.to_vec()).collect();
    Ok(registry::build(spec, &context, &options)?)
}

/// The trained agent `spec` names, with its inline play options (also for schedulers built
/// on one: WORL-RTGS's guide).
fn load_trained(spec: &str, ctx: &EnvContext) -> Option<Result<Box<dyn Policy>, PolicyError>> {
    let (run, inline) = trained_spec(spec)?;
    Some(parse_inline(spec, inline).and_then(|options| {
        load_agent(&run, ctx, &crate::device::agents(), &options).map_err(|e| {
            PolicyError::Trained {
                spec: spec.to_owned(),
                message: e.to_string(),
            }
        })
    }))
}

/// Plays one episode of `policy` (see [`make_policy`]) on a fresh env of `workload`, handing
/// each step to `observe`; returns the episode's metrics and the env at its end.
pub fn play_observed<K: Kind>(
    workload: &K,
    policy: &str,
    options: &[(String, String)],
    seed: u64,
    observe: impl FnMut(&[usize], &Step<InfoOf<K>>),
) -> anyhow::Result<(MetricsOf<K>, K::Env)> {
    let mut env = workload.env();
    let mut policy = make_policy(policy, &env, options)?;
    let metrics = run_episode_observed(&mut env, policy.as_mut(), seed, observe)
        .with_context(|| format!("{} on {}, seed {seed}", policy.name(), workload.name()))?;
    Ok((metrics, env))
}

/// [`play_observed`] without the observer.
pub fn play<K: Kind>(
    workload: &K,
    policy: &str,
    options: &[(String, String)],
    seed: u64,
) -> anyhow::Result<MetricsOf<K>> {
    Ok(play_observed(workload, policy, options, seed, |_, _| {})?.0)
}

/// Every seed's episode, in parallel (one env each); results in seed order.
pub fn play_seeds<K: Kind>(
    workload: &K,
    policy: &str,
    options: &[(String, String)],
    seeds: &[u64],
    bar: &ProgressBar,
) -> anyhow::Result<Vec<MetricsOf<K>>> {
    seeds
        .par_iter()
        .map(|&seed| {
            let metrics = play(workload, policy, options, seed);
            bar.inc(1);
            metrics
        })
        .collect()
}

/// Every job's completion time (hours) in one episode of `policy` on `workload` from `seed`;
/// jobs still in the system at the time limit count their time so far.
pub fn completion_hours<K: Kind>(
    workload: &K,
    policy: &str,
    seed: u64,
) -> anyhow::Result<Vec<f64>> {
    let (_, env) = play_observed(workload, policy, &[], seed, |_, _| {})?;
    let seconds = workload
        .completion_times(&env)
        .with_context(|| format!("{} has no jobs to time", workload.name()))?;
    Ok(seconds.iter().map(|s| s / 3600.0).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No shipped jobs policy strands work (env/src/jobs/conserve.rs): seed 0, no episode ends
    /// with a queued job that could start. The clones of a heuristic (folders with a warm-start
    /// report) play every held-out and later window; the policies trained from scratch, whose
    /// episodes take many more decisions, every eighth (a debug build plays each in about a
    /// minute; every window would take over eight).
    #[test]
    fn no_shipped_jobs_policy_ends_an_episode_with_a_queued_job_that_fits() {
        use schedlab_trainer::run::Manifest;
        let in_folder = |folder: &Path| -> Vec<PathBuf> {
            let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            paths.sort();
            paths
        };
        let policies: Vec<String> = in_folder(&crate::paths::shipped_policies())
            .into_iter()
            .filter(|dir| Manifest::read(dir).is_ok_and(|m| m.env_kind.as_deref() == Some("jobs")))
            .map(|dir| dir.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(policies.len() >= 2, "{policies:?}");
        let workloads = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/workloads");
        let windows: Vec<PathBuf> = ["heldout", "later"]
            .iter()
            .flat_map(|period| in_folder(&workloads.join(period)))
            .flat_map(|trace| in_folder(&trace))
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        assert!(windows.len() > 100, "{}", windows.len());
        let cloned = |policy: &str| {
            crate::paths::shipped_policies()
                .join(policy)
                .join("warm_start.json")
                .is_file()
        };
        // a policy trained on a heterogeneous family plays the windows of that family's
        // trace alone (its spaces hold one block per GPU model), the others homogeneous ones
        let plays = |policy: &str, window: &PathBuf, heterogeneous: bool| {
            let folder = crate::paths::shipped_policies().join(policy);
            let manifest = schedlab_trainer::run::Manifest::read(&folder).unwrap();
            let root = crate::paths::shipped_policies().join("../..");
            let family = std::fs::read_to_string(root.join(&manifest.workload)).unwrap();
            let trace = manifest
                .workload
                .trim_end_matches(".toml")
                .replace("-train", "");
            let trace = trace.rsplit('/').next().unwrap().to_owned();
            match family.contains("\n[heterogeneity]") {
                true => heterogeneous && window.to_string_lossy().contains(&format!("/{trace}/")),
                false => !heterogeneous,
            }
        };
        let cases: Vec<(&String, &PathBuf)> = policies
            .iter()
            .flat_map(|p| {
                let every = if cloned(p) { 1 } else { 8 };
                windows.iter().step_by(every).map(move |w| (p, w))
            })
            .collect();
        assert!(policies.iter().any(|p| !cloned(p)), "{policies:?}");
        let stranded: Vec<String> = cases
            .par_iter()
            .filter_map(|&(policy, window)| {
                let (settings, loaded) =
                    crate::settings::Settings::load(&[], window, std::slice::from_ref(policy))
                        .unwrap();
                let jobs: &crate::workloads::Jobs = loaded.expect("test", window).unwrap();
                // a policy plays the windows of its training family's kind of cluster: one
                // block per GPU model is in a heterogeneous one's spaces
                if !plays(policy, window, jobs.workload.heterogeneity.is_some()) {
                    return None;
                }
                let (metrics, env) =
                    play_observed(jobs, policy, &settings.policy, 0, |_, _| {}).unwrap();
                let idle = env.queued_that_fit();
                (!idle.is_empty()).then(|| {
                    format!(
                        "{policy} on {}: {} of {} jobs unfinished, {} queued that fit ({:?}...)",
                        window.display(),
                        metrics.unfinished,
                        metrics.jobs,
                        idle.len(),
                        &idle[..idle.len().min(3)]
                    )
                })
            })
            .collect();
        assert!(stranded.is_empty(), "{stranded:#?}");
    }

    /// Every shipped policy folder stands alone: its training workload named relative to the
    /// repository and there, every file its manifest names present (and nothing it does not
    /// need: no optimiser state), `config.json` its manifest's settings, and it loads and acts
    /// on its training workload.
    #[test]
    fn every_shipped_policy_is_whole_and_acts_on_its_workload() {
        use schedlab_env::Environment;
        use schedlab_trainer::run::Manifest;
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let mut folders: Vec<PathBuf> = std::fs::read_dir(crate::paths::shipped_policies())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("manifest.json").is_file())
            .collect();
        folders.sort();
        assert!(folders.len() >= 7, "{folders:?}");
        for folder in folders {
            let manifest = Manifest::read(&folder).unwrap();
            let workload = Path::new(&manifest.workload);
            assert!(
                workload.is_relative() && repo.join(workload).is_file(),
                "{folder:?}"
            );
            for file in manifest.files() {
                assert!(
                    folder.join(file).is_file(),
                    "{folder:?} names {file}, not there"
                );
            }
            assert!(
                manifest.optimizer.is_empty(),
                "{folder:?} ships optimiser state"
            );
            let config: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(folder.join("config.json")).unwrap())
                    .unwrap();
            for (key, value) in [
                ("config", &manifest.config),
                ("agent", &serde_json::json!(manifest.agent)),
                ("workload", &serde_json::json!(manifest.workload)),
            ] {
                assert_eq!(&config[key], value, "{folder:?}: config.json's {key}");
            }
            let spec = folder.display().to_string();
            let (settings, loaded) = crate::settings::Settings::load(
                &[],
                &repo.join(workload),
                std::slice::from_ref(&spec),
            )
            .unwrap();
            crate::workloads::with_kind!(&loaded, |k| {
                let mut env = k.env();
                let mut policy = make_policy(&spec, &env, &settings.policy).unwrap();
                let (observation, _) = env.reset(0).unwrap();
                policy.reset(0);
                let action = policy.act(&observation);
                env.step(&action).unwrap();
            });
        }
    }

    #[test]
    fn seeds_parse_as_inclusive_ranges_lists_or_single_values() {
        assert_eq!(parse_seeds("0..4").unwrap(), vec![0, 1, 2, 3, 4]);
        assert_eq!(parse_seeds("7").unwrap(), vec![7]);
        assert_eq!(parse_seeds("1, 5,9").unwrap(), vec![1, 5, 9]);
        assert!(parse_seeds("4..1").is_err());
        assert!(parse_seeds("a..3").unwrap_err().to_string().contains("`a`"));
    }
}
