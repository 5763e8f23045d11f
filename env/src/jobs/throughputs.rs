//! A measured throughput matrix in Gavel's format (Narayanan et al., "Heterogeneity-Aware
//! Cluster Scheduling Policies for Deep Learning Workloads", 2020; the file is
//! data/throughputs/gavel/simulation_throughputs.json): steps per second of each job type on
//! each GPU model at a GPU count, alone and beside each other job type.

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{EnvError, Result};

/// The GPU counts Gavel measures.
pub const COUNTS: [u32; 4] = [1, 2, 4, 8];

/// The matrix, keyed by (model, job type, GPU count). A model named `M_unconsolidated` is
/// model `M` with the job spread over machines.
#[derive(Clone, Default, PartialEq)]
pub struct Throughputs {
    alone: BTreeMap<(String, String, u32), f64>,
    /// This job's and the other's steps per second when both share the GPUs; 0.0 where they
    /// do not fit together.
    pairs: BTreeMap<(String, String, u32, String), (f64, f64)>,
}

/// Sizes only: a workload's debug print would otherwise hold the whole matrix.
impl std::fmt::Debug for Throughputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Throughputs")
            .field("alone", &self.alone.len())
            .field("pairs", &self.pairs.len())
            .finish()
    }
}

/// Gavel's suffix for a model's figures with the job spread over machines.
pub const SPREAD_SUFFIX: &str = "_unconsolidated";

impl Throughputs {
    pub fn read(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| EnvError::config(path, "(file)", e.to_string()))?;
        Self::parse(&text).map_err(|(key, why)| EnvError::config(path, &key, why))
    }

    /// Parses the JSON; `Err((key, why))` names the entry that is wrong.
    pub fn parse(text: &str) -> std::result::Result<Self, (String, String)> {
        let root: serde_json::Value =
            serde_json::from_str(text).map_err(|e| ("(json)".to_owned(), e.to_string()))?;
        let models = root
            .as_object()
            .ok_or(("(top)".to_owned(), "not an object of GPU models".to_owned()))?;
        let mut matrix = Throughputs::default();
        for (model, entries) in models {
            let entries = entries.as_object().ok_or((
                model.clone(),
                "not an object of (job type, GPUs)".to_owned(),
            ))?;
            for (key, entry) in entries {
                let at = format!("{model}.{key}");
                let (job_type, gpus) = type_and_count(key)
                    .ok_or((at.clone(), "a key is `('job type', GPU count)`".to_owned()))?;
                let number = |v: &serde_json::Value, what: &str| {
                    v.as_f64()
                        .filter(|x| x.is_finite() && *x >= 0.0)
                        .ok_or((at.clone(), format!("{what}: not a finite number >= 0")))
                };
                let alone = entry
                    .get("null")
                    .ok_or((at.clone(), "no `null` (alone) figure".to_owned()))?;
                let alone = number(alone, "null")?;
                matrix
                    .alone
                    .insert((model.clone(), job_type.clone(), gpus), alone);
                let others = entry.as_object().into_iter().flatten();
                for (other, pair) in others.filter(|(other, _)| *other != "null") {
                    let (other_type, _) = type_and_count(other).ok_or((
                        format!("{at}.{other}"),
                        "a key is `('job type', GPU count)`".to_owned(),
                    ))?;
                    let both = pair.as_array().filter(|p| p.len() == 2).ok_or((
                        format!("{at}.{other}"),
                        "a pair is [this job's, the other's]".to_owned(),
                    ))?;
                    let this = number(&both[0], other)?;
                    let that = number(&both[1], other)?;
                    matrix.pairs.insert(
                        (model.clone(), job_type.clone(), gpus, other_type),
                        (this, that),
                    );
                }
            }
        }
        Ok(matrix)
    }

    /// Steps per second of `job_type` alone on `gpus` GPUs of `model` (spread over machines
    /// with `spread`); `None` where not measured, or measured as 0.0 (it does not run there).
    pub fn alone(&self, model: &str, spread: bool, job_type: &str, gpus: u32) -> Option<f64> {
        let model = model_key(model, spread);
        self.alone
            .get(&(model, job_type.to_owned(), gpus))
            .copied()
            .filter(|&x| x > 0.0)
    }

    /// Steps per second of `job_type` and of `other` sharing `gpus` GPUs of `model`; `None`
    /// where not measured, `Some((0.0, 0.0))` where they do not fit together.
    pub fn pair(&self, model: &str, job_type: &str, gpus: u32, other: &str) -> Option<(f64, f64)> {
        self.pairs
            .get(&(
                model.to_owned(),
                job_type.to_owned(),
                gpus,
                other.to_owned(),
            ))
            .copied()
    }

    /// The job types measured alone on `model` (not spread), in order.
    pub fn job_types(&self, model: &str) -> Vec<&str> {
        let mut types: Vec<&str> = self
            .alone
            .keys()
            .filter(|(m, _, _)| m == model)
            .map(|(_, t, _)| t.as_str())
            .collect();
        types.dedup();
        types
    }

    /// Whether `model` (not spread) has any figure.
    pub fn has_model(&self, model: &str) -> bool {
        self.alone.keys().any(|(m, _, _)| m == model)
    }
}

fn model_key(model: &str, spread: bool) -> String {
    if spread {
        format!("{model}{SPREAD_SUFFIX}")
    } else {
        model.to_owned()
    }
}

/// `('ResNet-50 (batch size 64)', 1)` -> (`ResNet-50 (batch size 64)`, 1).
fn type_and_count(key: &str) -> Option<(String, u32)> {
    let inner = key.strip_prefix("('")?.strip_suffix(')')?;
    let (job_type, count) = inner.rsplit_once("', ")?;
    Some((job_type.to_owned(), count.trim().parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_read_as_gavel_writes_them() {
        assert_eq!(
            type_and_count("('ResNet-50 (batch size 64)', 4)"),
            Some(("ResNet-50 (batch size 64)".to_owned(), 4))
        );
        assert_eq!(type_and_count("ResNet-50, 4"), None);
    }

    #[test]
    fn a_malformed_entry_is_named() {
        let text = r#"{"v100": {"('A3C', 1)": {"null": "fast"}}}"#;
        let (key, why) = Throughputs::parse(text).unwrap_err();
        assert_eq!(key, "v100.('A3C', 1)");
        assert!(why.contains("null"), "{why}");
        let text = r#"{"v100": {"A3C": {"null": 1.0}}}"#;
        assert_eq!(Throughputs::parse(text).unwrap_err().0, "v100.A3C");
    }

    #[test]
    fn zero_alone_reads_as_not_running_there() {
        let text = r#"{"k80": {"('R', 1)": {"null": 2.0, "('S', 1)": [1.0, 0.5]},
                               "('R', 2)": {"null": 0.0}}}"#;
        let m = Throughputs::parse(text).unwrap();
        assert_eq!(m.alone("k80", false, "R", 1), Some(2.0));
        assert_eq!(m.alone("k80", false, "R", 2), None);
        assert_eq!(m.alone("k80", true, "R", 1), None);
        assert_eq!(m.pair("k80", "R", 1, "S"), Some((1.0, 0.5)));
        assert!(m.has_model("k80") && !m.has_model("v100"));
        assert_eq!(m.job_types("k80"), vec!["R"]);
    }
}
