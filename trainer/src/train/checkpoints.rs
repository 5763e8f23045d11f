//! What every checkpoint of a run records besides the learner's own state, and the checks a
//! resumed run passes before it continues: same agent, same workload, same settings, sound
//! files.

use std::collections::BTreeMap;
use std::time::Instant;

use super::error::{TrainError, invalid, io};
use super::spec::TrainSpec;
use crate::algorithms::AgentKind;
use crate::learner::Learner;
use crate::reward_scale::ReturnStats;
use crate::run::{BestPolicy, Manifest, RunDir};

/// What every checkpoint of a run records besides the learner's own state.
pub(super) struct Checkpoints<'a> {
    pub(super) kind: AgentKind,
    pub(super) config: &'a serde_json::Value,
    pub(super) spec: &'a TrainSpec<'a>,
    pub(super) run: &'a RunDir,
    pub(super) workload_sha256: String,
    pub(super) run_seed: u64,
    /// The network's `(observation, mask)` lengths.
    pub(super) shapes: (usize, usize),
    pub(super) env_kind: &'static str,
    pub(super) wall_s_at_start: f64,
    pub(super) started: Instant,
}

impl Checkpoints<'_> {
    pub(super) fn manifest(
        &self,
        step: u64,
        return_stats: Option<ReturnStats>,
        resumable: bool,
        best: Option<BestPolicy>,
    ) -> Manifest {
        let (model, optimizer, target) =
            Manifest::record_names(step, self.kind.has_target_network());
        Manifest {
            agent: self.kind.name().into(),
            config: self.config.clone(),
            workload: self.spec.workload_path.display().to_string(),
            workload_sha256: self.workload_sha256.clone(),
            step,
            seed: self.run_seed,
            schedlab_version: env!("CARGO_PKG_VERSION").into(),
            model,
            optimizer,
            target,
            observation_len: self.shapes.0,
            mask_len: self.shapes.1,
            return_stats,
            play_settings: self.spec.play_settings.iter().cloned().collect(),
            workload_settings: self.spec.workload_settings.iter().cloned().collect(),
            env_kind: Some(self.env_kind.to_owned()),
            resume_state: resumable.then(|| Manifest::resume_state_name(step)),
            wall_s: Some(self.wall_s_at_start + self.started.elapsed().as_secs_f64()),
            best,
        }
    }

    /// Record files first, the manifest naming them last (trainer/src/run.rs).
    pub(super) fn save<M>(
        &self,
        learner: &dyn Learner<M>,
        step: u64,
        best: Option<BestPolicy>,
    ) -> Result<(), TrainError> {
        let state = learner.resume_state();
        let manifest = self.manifest(step, learner.return_stats(), state.is_some(), best);
        let run = self.run;
        learner
            .save(run, &manifest)
            .and_then(|()| match (&state, &manifest.resume_state) {
                (Some(state), Some(name)) => run.write_json(name, state),
                _ => Ok(()),
            })
            .and_then(|()| run.commit_checkpoint(&manifest))
            .map_err(io(&run.path))
    }
}

/// Continues `learner` from the checkpoint `manifest` names in `run`, refused where the
/// network was built for other shapes than the workload's `(observation, mask)` lengths.
pub(super) fn restore<M>(
    learner: &mut dyn Learner<M>,
    manifest: &Manifest,
    run: &RunDir,
    shapes: (usize, usize),
) -> Result<(), TrainError> {
    if (manifest.observation_len, manifest.mask_len) != shapes {
        return Err(invalid(
            &run.path,
            "network shapes differ from the workload's".into(),
        ));
    }
    learner
        .restore(&run.path, manifest)
        .and_then(|()| manifest.read_resume_state(&run.path))
        .and_then(|state| state.map_or(Ok(()), |s| learner.restore_state(s)))
        .map_err(|e| invalid(&run.path, e.to_string()))
}

/// The manifest of the run `spec` resumes, refused when it is of another agent or was trained
/// on another workload file; none for a new run.
pub(super) fn resumed_manifest(
    kind: AgentKind,
    spec: &TrainSpec,
    workload_sha256: &str,
) -> Result<Option<Manifest>, TrainError> {
    Ok(match spec.resume {
        Some(path) => {
            let manifest = Manifest::read(path).map_err(io(path))?;
            if manifest.agent != kind.name() {
                return Err(invalid(
                    path,
                    format!("agent `{}` is not {}", manifest.agent, kind.name()),
                ));
            }
            if manifest.workload_sha256 != workload_sha256 {
                return Err(invalid(
                    path,
                    format!(
                        "trained on {} (a different file than {})",
                        manifest.workload,
                        spec.workload_path.display()
                    ),
                ));
            }
            let settings: BTreeMap<String, String> =
                spec.workload_settings.iter().cloned().collect();
            if manifest.workload_settings != settings {
                return Err(invalid(
                    path,
                    format!(
                        "trained with the workload settings {:?}, resumed with {settings:?}",
                        manifest.workload_settings
                    ),
                ));
            }
            Some(manifest)
        }
        None => None,
    })
}
