//! A jobs workload's checks: everything the simulation relies on, each fault refused naming
//! its key (run by `load.rs`, and by importers before they save a workload).

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::heterogeneity::ModelSpeeds;
use super::machines::MAX_MODEL_LABELS;
use super::requests::fits_empty;
use super::schema::{Fidelity, GPU_MILLI, JobsWorkload, MAX_CONTENTION, MAX_GPUS};
use crate::error::{EnvError, Result};
use crate::execution::Execution;

impl JobsWorkload {
    /// Checks everything the simulation relies on; public so importers validate before saving.
    pub fn validate(&self, path: &Path) -> Result<()> {
        self.check_episode(path)?;
        self.check_execution(path)?;
        self.check_interface(path)?;
        self.check_machines(path)?;
        let template_names = self.check_templates(path)?;
        self.check_jobs(path, &template_names)?;
        self.check_gpu_models(path)?;
        self.check_heterogeneity(path)?;
        self.check_tenant_shares(path)?;
        self.check_family(path)
    }

    /// Each guaranteed share in (0, 1], all of them at most the whole cluster.
    fn check_tenant_shares(&self, path: &Path) -> Result<()> {
        for (tenant, &share) in &self.tenant_shares {
            if !(share > 0.0 && share <= 1.0) {
                return Err(EnvError::config(
                    path,
                    format!("tenant_shares.{tenant}"),
                    format!("a share of the cluster in (0, 1], got {share}"),
                ));
            }
        }
        let total: f64 = self.tenant_shares.values().sum();
        if total > 1.0 + 1e-9 {
            return Err(EnvError::config(
                path,
                "tenant_shares",
                format!("the shares add up to {total}, more than the whole cluster"),
            ));
        }
        Ok(())
    }

    /// The kind, the episode's clock and limits, and the reward's weights.
    fn check_episode(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        if self.kind != "jobs" {
            return bad(
                "kind".into(),
                format!("must be \"jobs\", got {:?}", self.kind),
            );
        }
        let e = &self.episode;
        if !(e.decision_interval_s >= 0.0 && e.decision_interval_s.is_finite()) {
            return bad(
                "episode.decision_interval_s".into(),
                format!("must be 0 or positive, got {}", e.decision_interval_s),
            );
        }
        if !(e.max_time_s > 0.0 && e.max_time_s.is_finite()) {
            return bad(
                "episode.max_time_s".into(),
                format!("must be a positive number, got {}", e.max_time_s),
            );
        }
        for (key, v) in [
            ("episode.restart_s", e.restart_s),
            ("episode.speed_sigma", e.speed_sigma),
            ("episode.start_s", e.start_s),
        ] {
            if !(v >= 0.0 && v.is_finite()) {
                return bad(key.into(), format!("must be 0 or positive, got {v}"));
            }
        }
        if !(e.speed_factor > 0.0 && e.speed_factor.is_finite()) {
            return bad(
                "episode.speed_factor".into(),
                format!("must be a positive number, got {}", e.speed_factor),
            );
        }
        if !(self.reward.time_unit_s > 0.0 && self.reward.time_unit_s.is_finite()) {
            return bad(
                "reward.time_unit_s".into(),
                format!("must be a positive number, got {}", self.reward.time_unit_s),
            );
        }
        if !(self.reward.potential_gamma > 0.0 && self.reward.potential_gamma <= 1.0) {
            return bad(
                "reward.potential_gamma".into(),
                format!("must be in (0, 1], got {}", self.reward.potential_gamma),
            );
        }
        if !(self.reward.lambda_idle >= 0.0 && self.reward.lambda_idle.is_finite()) {
            return bad(
                "reward.lambda_idle".into(),
                format!("must be 0 or positive, got {}", self.reward.lambda_idle),
            );
        }
        if e.max_steps_per_decision == 0 {
            return bad(
                "episode.max_steps_per_decision".into(),
                "must be at least 1".into(),
            );
        }
        Ok(())
    }

    /// Real execution: a sound `[real]`, templates that name their single-job workloads, and
    /// the surrogate fidelity (real processes replace the surrogate's progress).
    fn check_execution(&self, path: &Path) -> Result<()> {
        if self.execution == Execution::Sim {
            return Ok(());
        }
        if let Some((key, message)) = self.real.check() {
            return Err(EnvError::config(path, key, message));
        }
        if self.fidelity == Fidelity::Trained {
            return Err(EnvError::config(
                path,
                "fidelity",
                "execution = \"real\" runs jobs as real processes: use the surrogate fidelity with it",
            ));
        }
        match self.templates.iter().position(|t| t.workload.is_empty()) {
            Some(i) => Err(EnvError::config(
                path,
                format!("templates[{i}].workload"),
                "execution = \"real\" trains each job on its template's single-job workload: name it",
            )),
            None => Ok(()),
        }
    }

    /// The decision window and the scaling ladders.
    fn check_interface(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        if self.window.queued == 0 {
            return bad("window.queued".into(), "must be at least 1".into());
        }
        for (key, ladder) in [
            ("scaling.workers", &self.scaling.workers),
            ("scaling.sizes", &self.scaling.sizes),
        ] {
            if ladder.iter().any(|&s| !(s > 0.0 && s.is_finite()))
                || ladder.windows(2).any(|w| w[0] >= w[1])
                || !ladder.contains(&1.0)
            {
                return bad(
                    key.into(),
                    format!(
                        "must be positive, strictly increasing and contain 1.0, got {ladder:?}"
                    ),
                );
            }
        }
        Ok(())
    }

    /// Every machine: a count, positive capacities, at most the GPUs a machine can hold.
    fn check_machines(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        if self.machines.is_empty() {
            return bad("machines".into(), "at least one machine is needed".into());
        }
        for (i, m) in self.machines.iter().enumerate() {
            if m.count == 0 || !(m.cpu_cores > 0.0 && m.mem_gb > 0.0) || m.gpus as usize > MAX_GPUS
            {
                return bad(
                    format!("machines[{i}] ({})", m.name),
                    format!(
                        "needs count >= 1, positive cpu_cores and mem_gb, and at most {MAX_GPUS} gpus; got count {}, {} cores, {} GB, {} GPUs",
                        m.count, m.cpu_cores, m.mem_gb, m.gpus
                    ),
                );
            }
        }
        Ok(())
    }

    /// Every template: sound fractions and contention, what the trained fidelity needs, a unique
    /// name. Returns the names.
    fn check_templates<'a>(&'a self, path: &Path) -> Result<HashSet<&'a str>> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        let mut template_names = HashSet::new();
        for (i, t) in self.templates.iter().enumerate() {
            let fractions_ok = t.utilisation.iter().all(|&u| u > 0.0 && u <= 1.0);
            let sound = (0.0..=MAX_CONTENTION).contains(&t.contention)
                && t.size_exponent >= 0.0
                && t.size_exponent.is_finite()
                && fractions_ok;
            if !sound {
                return bad(
                    format!("templates[{i}] ({})", t.name),
                    format!(
                        "needs contention in [0, {MAX_CONTENTION}], size_exponent >= 0 and utilisation in (0, 1]"
                    ),
                );
            }
            if self.fidelity == Fidelity::Trained
                && (t.workload.is_empty() || t.time_at_one_s.is_nan() || t.time_at_one_s <= 0.0)
            {
                return bad(
                    format!("templates[{i}] ({})", t.name),
                    "the trained fidelity needs the template's `workload` and `time_at_one_s` (refit with `schedlab templates fit`)".into(),
                );
            }
            if !template_names.insert(t.name.as_str()) {
                return bad(
                    format!("templates[{i}]"),
                    format!("duplicate name {:?}", t.name),
                );
            }
        }
        Ok(template_names)
    }

    /// Every job: a unique id, times, workers and GPUs that make sense, a known template and
    /// predecessors, a request some machine fits.
    fn check_jobs(&self, path: &Path, template_names: &HashSet<&str>) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        let mut ids = HashMap::new();
        for (i, j) in self.jobs.iter().enumerate() {
            if ids.insert(j.id.as_str(), i).is_some() {
                return bad(format!("jobs[{i}].id"), format!("duplicate id {:?}", j.id));
            }
        }
        for (i, j) in self.jobs.iter().enumerate() {
            let key = |field: &str| format!("jobs[{i}] (id {}).{field}", j.id);
            if !(j.arrival_s >= 0.0 && j.arrival_s.is_finite()) {
                return bad(
                    key("arrival_s"),
                    format!("must be >= 0, got {}", j.arrival_s),
                );
            }
            if !(j.duration_s > 0.0 && j.duration_s.is_finite()) {
                return bad(
                    key("duration_s"),
                    format!("must be positive, got {}", j.duration_s),
                );
            }
            if j.workers == 0 {
                return bad(key("workers"), "must be at least 1".into());
            }
            if j.gpu_milli > GPU_MILLI && j.gpu_milli % GPU_MILLI != 0 {
                return bad(
                    key("gpu_milli"),
                    format!("above one GPU it must be whole GPUs, got {}", j.gpu_milli),
                );
            }
            if !template_names.contains(j.template.as_str()) {
                return bad(
                    key("template"),
                    format!("no template named {:?}", j.template),
                );
            }
            if let Some(dep) = j.after.iter().find(|d| !ids.contains_key(d.as_str())) {
                return bad(key("after"), format!("no job with id {dep:?}"));
            }
            if !self.machines.iter().any(|m| fits_empty(m, j.request())) {
                return bad(
                    key("request"),
                    format!(
                        "a container of {} mCPU, {} MiB, {} mGPU fits on no machine",
                        j.cpu_milli, j.mem_mib, j.gpu_milli
                    ),
                );
            }
        }
        Ok(())
    }

    /// Every job's `gpu_models`: models some machine has, on one of which its request fits.
    fn check_gpu_models(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        let mut labels: Vec<&str> = self.machines.iter().map(|m| m.gpu_model.as_str()).collect();
        labels.sort_unstable();
        labels.dedup();
        if self.heterogeneity.is_some() && labels.len() > MAX_MODEL_LABELS {
            return bad(
                "heterogeneity".into(),
                format!(
                    "the machines have {} GPU models; the action's model choice takes at most {MAX_MODEL_LABELS}",
                    labels.len()
                ),
            );
        }
        let constrained = || {
            self.jobs
                .iter()
                .enumerate()
                .filter(|(_, j)| !j.gpu_models.is_empty())
        };
        let key = |i: usize| format!("jobs[{i}] (id {}).gpu_models", self.jobs[i].id);
        if let Some((i, _)) = constrained().next()
            && labels.len() > MAX_MODEL_LABELS
        {
            return bad(
                key(i),
                format!(
                    "the machines have {} GPU models; a job constrained to some needs at most {MAX_MODEL_LABELS}",
                    labels.len()
                ),
            );
        }
        for (i, j) in constrained() {
            let key = key(i);
            if let Some(m) = j.gpu_models.iter().find(|m| !labels.contains(&m.as_str())) {
                return bad(
                    key,
                    format!(
                        "no machine has GPU model `{m}` (they have: {})",
                        labels.join(", ")
                    ),
                );
            }
            let allowed = |m: &&super::schema::MachineSpec| j.gpu_models.contains(&m.gpu_model);
            if !self
                .machines
                .iter()
                .filter(allowed)
                .any(|m| fits_empty(m, j.request()))
            {
                return bad(
                    key,
                    format!(
                        "a container of {} mCPU, {} MiB, {} mGPU fits on no machine of the models {}",
                        j.cpu_milli,
                        j.mem_mib,
                        j.gpu_milli,
                        j.gpu_models.join(", ")
                    ),
                );
            }
        }
        Ok(())
    }

    /// A family of windows: of the surrogate fidelity, and sound.
    fn check_family(&self, path: &Path) -> Result<()> {
        let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
        if let Some(family) = &self.family {
            if self.fidelity == Fidelity::Trained {
                return bad(
                    "family".into(),
                    "a workload family samples windows of the surrogate fidelity only".into(),
                );
            }
            if let Err((key, message)) = family.validate(self) {
                return bad(key, message);
            }
        }
        Ok(())
    }

    /// The GPU models and job types map onto the matrix (`heterogeneity.rs` names the fault).
    fn check_heterogeneity(&self, path: &Path) -> Result<()> {
        let Some(h) = &self.heterogeneity else {
            return Ok(());
        };
        if self.fidelity == Fidelity::Trained || self.execution.is_real() {
            return Err(EnvError::config(
                path,
                "heterogeneity",
                "sets the surrogate's speeds on the virtual clock; a trained or real job's speed is its own",
            ));
        }
        ModelSpeeds::resolve(self, h)
            .map(|_| ())
            .map_err(|(key, why)| EnvError::config(path, key, why))
    }
}
