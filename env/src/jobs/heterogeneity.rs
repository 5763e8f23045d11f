//! Opt-in GPU heterogeneity (`[heterogeneity]`, docs/heterogeneity.md): how fast a job of a
//! template runs on the machines' GPU models, from a measured throughput matrix
//! (`throughputs.rs`). A job's trace duration is its time at its request on the reference
//! model; the template's speed-up curve keeps setting how it scales with its containers, and
//! the matrix sets the ratio of one model to the reference at the job's GPU count.

use super::machines::{Cluster, Container};
use super::schema::{GPU_MILLI, Heterogeneity, JobsWorkload, ModelMapping};
use super::sharing::SharingRules;
use super::throughputs::Throughputs;

use super::throughputs::COUNTS;

/// Each template's speed on each mapped model, against the reference model.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ModelSpeeds {
    /// The mapped models (`heterogeneity.models`, in its order): what a model index counts.
    names: Vec<String>,
    /// Per machine (as the cluster numbers them), its mapped model; `None` without GPUs.
    machine_model: Vec<Option<usize>>,
    /// Per model, the cluster's GPUs of it.
    model_gpus: Vec<u32>,
    /// `[template][model][spread as usize][count]`: the ratio, NaN where not measured.
    ratio: Vec<Vec<[[f64; 4]; 2]>>,
    /// Per template, its largest ratio on any machine's model (for lower bounds).
    fastest: Vec<f64>,
    /// With `heterogeneity.pairs`, `[model][template][other]`: a job's speed sharing a GPU
    /// with the other's over its speed alone there, 0 where they do not fit together, NaN
    /// where the matrix lacks the pair and no GPU job could meet it. Empty without.
    pair: Vec<f64>,
}

/// What is wrong, as (key, why).
type Refusal = (String, String);

impl ModelSpeeds {
    pub fn resolve(workload: &JobsWorkload, h: &Heterogeneity) -> Result<Self, Refusal> {
        let matrix = h.matrix.as_deref().ok_or((
            "heterogeneity.throughputs".to_owned(),
            "the matrix was not read: load the workload from its file".to_owned(),
        ))?;
        if !matrix.has_model(&h.reference_model) {
            return Err((
                "heterogeneity.reference_model".to_owned(),
                format!(
                    "`{}` is not a model of {}",
                    h.reference_model, h.throughputs
                ),
            ));
        }
        let (models, machine_model, model_gpus) = machine_models(workload, h, matrix)?;
        let used = gpu_templates(workload);
        let mut ratio = Vec::new();
        for (t, template) in workload.templates.iter().enumerate() {
            let key = format!("templates[{t}].job_type");
            let Some(job_type) = &template.job_type else {
                if used[t] {
                    return Err((
                        key,
                        format!(
                            "template `{}` names no job type: with heterogeneity on, every template GPU jobs use needs one",
                            template.name
                        ),
                    ));
                }
                ratio.push(vec![[[f64::NAN; 4]; 2]; models.len()]);
                continue;
            };
            let reference = |c| matrix.alone(&h.reference_model, false, job_type, c);
            if reference(1).is_none() {
                return Err((
                    key,
                    format!(
                        "`{job_type}` is not measured on the reference model `{}` at 1 GPU",
                        h.reference_model
                    ),
                ));
            }
            let mut per_model = Vec::new();
            for name in &models {
                per_model
                    .push(ratios_on(h, matrix, name, job_type).map_err(|why| (key.clone(), why))?);
            }
            ratio.push(per_model);
        }
        let fastest = ratio
            .iter()
            .map(|per_model| {
                per_model
                    .iter()
                    .flatten()
                    .flatten()
                    .copied()
                    .filter(|r| !r.is_nan())
                    .fold(1.0_f64, f64::max)
            })
            .collect();
        let pair = if h.pairs {
            pair_ratios(workload, h, matrix, &models, &used)?
        } else {
            Vec::new()
        };
        Ok(ModelSpeeds {
            names: models.iter().map(|m| (*m).to_owned()).collect(),
            machine_model,
            model_gpus,
            ratio,
            fastest,
            pair,
        })
    }

    /// The speed of a job of `template` on `containers` against the reference model: the
    /// ratio at the largest measured GPU count up to the job's, spread when its GPUs are on
    /// more than one machine, and the slowest model's where they are on several models (a
    /// synchronous job waits for its slowest worker). 1 without GPUs.
    pub fn factor(&self, template: usize, containers: &[Container]) -> f64 {
        let with_gpus = || containers.iter().filter(|c| c.gpu_milli() > 0);
        let milli: u32 = with_gpus().map(Container::gpu_milli).sum();
        let Some(first) = with_gpus().next() else {
            return 1.0;
        };
        let gpus = milli.div_ceil(GPU_MILLI).max(1);
        let spread = with_gpus().any(|c| c.machine != first.machine);
        with_gpus()
            .filter_map(|c| self.machine_model[c.machine as usize])
            .map(|model| self.ratio_at(template, model, spread, gpus))
            .fold(f64::INFINITY, f64::min)
    }

    /// With `heterogeneity.pairs`, which templates may share a GPU of each model.
    pub fn sharing_rules(&self) -> Option<SharingRules> {
        let templates = self.ratio.len();
        (!self.pair.is_empty()).then(|| {
            SharingRules::new(
                self.machine_model.clone(),
                self.names.len(),
                templates,
                |m, a, b| self.pair_ratio(m, a, b) != 0.0,
            )
        })
    }

    fn pair_ratio(&self, model: usize, template: usize, other: usize) -> f64 {
        let templates = self.ratio.len();
        self.pair[(model * templates + template) * templates + other]
    }

    /// What sharing GPUs costs a job of `template` on `containers`: per container holding a
    /// share, the product of the pair ratios with each other job on its GPU (the matrix
    /// measures pairs only; with three or more on a GPU each pair's slowdown is taken as
    /// independent), the slowest container's. 1 when no GPU is shared.
    pub fn sharing_factor(
        &self,
        cluster: &Cluster,
        template: usize,
        containers: &[Container],
    ) -> f64 {
        let mut slowest = 1.0_f64;
        for c in containers.iter().filter(|c| c.sharer.is_some()) {
            let Some(model) = self.machine_model[c.machine as usize] else {
                continue;
            };
            let mut others: Vec<_> = cluster.co_sharers(c).collect();
            others.sort_unstable_by_key(|s| s.job);
            others.dedup_by_key(|s| s.job);
            let factor: f64 = others
                .iter()
                .map(|s| self.pair_ratio(model, template, s.kind as usize))
                .product();
            slowest = slowest.min(factor);
        }
        slowest
    }

    /// The ratio at the largest measured GPU count up to `gpus`.
    fn ratio_at(&self, template: usize, model: usize, spread: bool, gpus: u32) -> f64 {
        let top = COUNTS.iter().rposition(|&c| c <= gpus).unwrap_or(0);
        let row = &self.ratio[template][model][usize::from(spread)];
        (0..=top)
            .rev()
            .map(|c| row[c])
            .find(|r| !r.is_nan())
            .unwrap_or(row[0])
    }

    /// The speed of a job of `template` on `gpus` GPUs packed, averaged over the cluster's
    /// GPUs: its speed on an equal share of every model, as Gavel's isolated allocation gives
    /// it (finish-time fairness, `fairness.rs`).
    pub fn mean_factor(&self, template: usize, gpus: u32) -> f64 {
        let (mut weighted, mut total) = (0.0, 0.0);
        for (model, &count) in self.model_gpus.iter().enumerate().filter(|(_, c)| **c > 0) {
            weighted += f64::from(count) * self.ratio_at(template, model, false, gpus.max(1));
            total += f64::from(count);
        }
        if total > 0.0 { weighted / total } else { 1.0 }
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Machine `m`'s model index; `None` without GPUs.
    pub fn model_of_machine(&self, m: usize) -> Option<usize> {
        self.machine_model[m]
    }

    /// A job of `template` on `gpus` GPUs packed on one machine: its speed on each model.
    pub fn ratios(&self, template: usize, gpus: u32) -> impl Iterator<Item = f64> + '_ {
        (0..self.names.len()).map(move |model| self.ratio_at(template, model, false, gpus.max(1)))
    }

    /// The largest speed of a job of `template` on any model of the cluster, at least 1.
    pub fn fastest(&self, template: usize) -> f64 {
        self.fastest[template]
    }
}

/// Per template, whether any of its jobs uses GPUs (a job without runs at ratio 1: its
/// template needs no job type).
fn gpu_templates(workload: &JobsWorkload) -> Vec<bool> {
    (workload.templates.iter())
        .map(|t| (workload.jobs.iter()).any(|j| j.template == t.name && j.gpu_milli > 0))
        .collect()
}

/// The mapped models; per machine, its model's index (`None` without GPUs); per model, the
/// cluster's GPUs of it.
type MachineModels<'a> = (Vec<&'a str>, Vec<Option<usize>>, Vec<u32>);

fn machine_models<'a>(
    workload: &JobsWorkload,
    h: &'a Heterogeneity,
    matrix: &Throughputs,
) -> Result<MachineModels<'a>, Refusal> {
    for (name, mapping) in &h.models {
        check_mapping(h, matrix, name, mapping)?;
    }
    // every mapped model, in the mapping's order: the same list in every window of a family
    let models: Vec<&str> = h.models.keys().map(String::as_str).collect();
    let mut machine_model = Vec::new();
    let mut model_gpus = vec![0u32; models.len()];
    for (i, spec) in workload.machines.iter().enumerate() {
        let model = (spec.gpus > 0)
            .then(|| {
                models.iter().position(|m| *m == spec.gpu_model).ok_or_else(|| {
                    (
                        format!("machines[{i}].gpu_model"),
                        format!(
                            "`{}` is not in heterogeneity.models: map it onto a measured model (docs/heterogeneity.md)",
                            spec.gpu_model
                        ),
                    )
                })
            })
            .transpose()?;
        if let Some(model) = model {
            model_gpus[model] += spec.gpus * spec.count as u32;
        }
        machine_model.extend(std::iter::repeat_n(model, spec.count));
    }
    Ok((models, machine_model, model_gpus))
}

/// Per model, per pair of templates with job types, the first's speed beside the second on
/// one GPU over its speed alone (`ModelSpeeds::pair`); a pair the matrix lacks is refused by
/// name where both templates' jobs use GPUs.
fn pair_ratios(
    workload: &JobsWorkload,
    h: &Heterogeneity,
    matrix: &Throughputs,
    models: &[&str],
    used: &[bool],
) -> Result<Vec<f64>, Refusal> {
    let templates = &workload.templates;
    let mut pair = vec![f64::NAN; models.len() * templates.len() * templates.len()];
    let job_type = |t: usize| templates[t].job_type.as_deref();
    for (m, name) in models.iter().enumerate() {
        let measured = &h.models[*name].measured;
        for (a, b) in (0..templates.len()).flat_map(|a| (0..templates.len()).map(move |b| (a, b))) {
            let (Some(this), Some(other)) = (job_type(a), job_type(b)) else {
                continue;
            };
            let alone = matrix
                .alone(measured, false, this, 1)
                .expect("resolve checked every used type at 1 GPU");
            let Some((here, there)) = matrix.pair(measured, this, 1, other) else {
                if used[a] && used[b] {
                    return Err((
                        "heterogeneity.pairs".to_owned(),
                        format!(
                            "`{this}` beside `{other}` is not measured on `{measured}` at 1 GPU: set pairs = false to share GPUs at the speeds alone"
                        ),
                    ));
                }
                continue;
            };
            pair[(m * templates.len() + a) * templates.len() + b] = if here > 0.0 && there > 0.0 {
                here / alone
            } else {
                0.0
            };
        }
    }
    Ok(pair)
}

/// `job_type`'s ratios on machines of model `name` to the reference, `[spread][count]`; NaN
/// where not measured, refused where not measured at 1 GPU.
fn ratios_on(
    h: &Heterogeneity,
    matrix: &Throughputs,
    name: &str,
    job_type: &str,
) -> Result<[[f64; 4]; 2], String> {
    let mapping = &h.models[name];
    let reference = |c| matrix.alone(&h.reference_model, false, job_type, c);
    let mut table = [[f64::NAN; 4]; 2];
    for (spread, row) in table.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            // a spread figure the file lacks: the packed one stands
            let measured = matrix
                .alone(&mapping.measured, spread == 1, job_type, COUNTS[c])
                .or_else(|| matrix.alone(&mapping.measured, false, job_type, COUNTS[c]));
            if let (Some(here), Some(there)) = (measured, reference(COUNTS[c])) {
                *cell = mapping.factor * here / there;
            }
        }
    }
    if table[0][0].is_nan() {
        return Err(format!(
            "`{job_type}` is not measured on `{}` (machines of model `{name}`) at 1 GPU",
            mapping.measured
        ));
    }
    Ok(table)
}

/// A mapping onto a model of the matrix, with a positive factor.
fn check_mapping(
    h: &Heterogeneity,
    matrix: &Throughputs,
    name: &str,
    mapping: &ModelMapping,
) -> Result<(), Refusal> {
    if !matrix.has_model(&mapping.measured) {
        return Err((
            format!("heterogeneity.models.{name}.measured"),
            format!("`{}` is not a model of {}", mapping.measured, h.throughputs),
        ));
    }
    if !(mapping.factor > 0.0 && mapping.factor.is_finite()) {
        return Err((
            format!("heterogeneity.models.{name}.factor"),
            format!("must be a positive number, got {}", mapping.factor),
        ));
    }
    Ok(())
}
