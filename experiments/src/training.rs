//! Training a learned scheduler with a progress bar, on a workload of any kind.

use schedlab_agents::SchedulingEnv;
use schedlab_env::EpisodeSummary;
use schedlab_trainer::algorithms::AgentKind;
use schedlab_trainer::run::RunDir;
use schedlab_trainer::train::{TrainSpec, train};

use crate::play::step_bar;
use crate::workloads::{Kind, Loaded, with_kind};

/// Trains with a progress bar showing env rounds per second, the latest episode return and
/// the latest greedy evaluation's headline figure.
pub fn train_with_progress<E: SchedulingEnv>(
    kind: AgentKind,
    prototype: &E,
    config: serde_json::Value,
    spec: &TrainSpec,
) -> anyhow::Result<RunDir> {
    let label = format!("{} on {}", kind.name(), prototype.workload_name());
    let bar = step_bar(spec.steps, label.clone())?;
    let mut last_return = f64::NAN;
    let mut last_eval = String::new();
    let run = train(
        kind,
        prototype,
        config,
        spec,
        crate::device::agents(),
        &mut |progress| {
            if let Some(m) = progress.stats.finished.last() {
                last_return = m.episode_return();
            }
            if let Some(episodes) = progress.evaluation {
                let headline: Vec<(&str, f64)> = episodes.iter().map(|m| m.curves()[0]).collect();
                let name = headline.first().map_or("", |c| c.0);
                let mean = headline.iter().map(|c| c.1).sum::<f64>() / headline.len() as f64;
                last_eval = format!(", greedy eval {name} {mean:.1}");
            }
            bar.set_position(progress.stats.env_steps.min(spec.steps));
            bar.set_message(format!(
                "{label}: {:.0} steps/s, return {last_return:.2}{last_eval}",
                progress.sps
            ));
        },
    )?;
    bar.finish_and_clear();
    Ok(run)
}

/// [`train_with_progress`] on a loaded workload of any kind.
pub fn train_loaded(
    kind: AgentKind,
    loaded: &Loaded,
    config: serde_json::Value,
    spec: &TrainSpec,
) -> anyhow::Result<RunDir> {
    with_kind!(loaded, |workload| train_with_progress(
        kind,
        &workload.env(),
        config,
        spec
    ))
}
