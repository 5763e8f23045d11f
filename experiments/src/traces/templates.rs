//! Model templates (fitted by `schedlab templates fit`) and the rule that maps trace jobs
//! onto them.
//!
//! The rule: a job is a GPU job when it asks for any GPU, and long when its duration is at
//! least an hour. Long GPU jobs get `mnist-mlp`; long CPU jobs `a9a-svm`; a short job gets
//! its kind's template or `digits-softmax`, half and half by a hash of the seed and its id.
//!
//! With a folder of job types (templates naming a `job_type`, as `schedlab templates gavel`
//! writes), every GPU job instead gets one of them, uniformly by a second hash of the seed
//! and its id, as Gavel's generated traces draw their job types uniformly.

use std::path::{Path, PathBuf};

use anyhow::Context;
use schedlab_env::jobs::Template;

/// The templates the rule names.
pub const RULE_TEMPLATES: [&str; 3] = ["mnist-mlp", "a9a-svm", "digits-softmax"];
const LONG_S: f64 = 3600.0;

/// The folder an output file goes in (made if missing), for paths written relative to it.
pub fn output_dir(out: &Path) -> anyhow::Result<PathBuf> {
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// `to` as a path relative to the folder `from_dir` (both made absolute first), so files
/// that name each other keep working wherever the repository is.
pub fn relative_path(from_dir: &Path, to: &Path) -> anyhow::Result<PathBuf> {
    let absolute = |p: &Path| {
        p.canonicalize()
            .with_context(|| format!("resolving {}", p.display()))
    };
    let (from, to) = (absolute(from_dir)?, absolute(to)?);
    let common = from
        .components()
        .zip(to.components())
        .take_while(|(a, b)| a == b)
        .count();
    let mut out = PathBuf::new();
    (common..from.components().count()).for_each(|_| out.push(".."));
    to.components().skip(common).for_each(|c| out.push(c));
    Ok(out)
}

/// Reads `NAME.toml` for every template the rule needs, their `workload` paths made
/// relative to `out_dir` (where the jobs workload that embeds them goes).
pub fn load(dir: &Path, out_dir: &Path) -> anyhow::Result<Vec<Template>> {
    RULE_TEMPLATES
        .iter()
        .map(|name| {
            let path = dir.join(format!("{name}.toml"));
            let text = std::fs::read_to_string(&path).with_context(|| {
                format!(
                    "reading template {} (make it with `schedlab templates fit`)",
                    path.display()
                )
            })?;
            let mut template: Template =
                toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
            if !template.workload.is_empty() {
                template.workload = relative_path(out_dir, &dir.join(&template.workload))?
                    .display()
                    .to_string();
            }
            anyhow::ensure!(
                template.name == *name,
                "{}: names template {:?}, expected {name:?}",
                path.display(),
                template.name
            );
            Ok(template)
        })
        .collect()
}

/// Every template (`*.toml`) in `dir`, in name order, each naming a job type.
pub fn load_job_types(dir: &Path) -> anyhow::Result<Vec<Template>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading the job types in {}", dir.display()))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    files.sort();
    anyhow::ensure!(
        !files.is_empty(),
        "{}: no job type templates (*.toml)",
        dir.display()
    );
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let template: Template =
                toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
            anyhow::ensure!(
                template.job_type.is_some(),
                "{}: template `{}` names no job_type (write them with `schedlab templates gavel`)",
                path.display(),
                template.name
            );
            Ok(template)
        })
        .collect()
}

/// The job type (index into `types`, of `count`) of GPU job `id` under the documented rule.
pub fn assign_job_type(count: usize, id: &str, seed: u64) -> usize {
    // a salt of its own, so the draw is independent of the rule's half-and-half split
    (mix(seed ^ 0x6a09_e667_f3bc_c908, id) % count as u64) as usize
}

/// The template of a job under the documented rule.
pub fn assign(gpu: bool, duration_s: f64, id: &str, seed: u64) -> &'static str {
    let own = if gpu { "mnist-mlp" } else { "a9a-svm" };
    if duration_s >= LONG_S || mix(seed, id).is_multiple_of(2) {
        own
    } else {
        "digits-softmax"
    }
}

/// SplitMix64 over the seed and the id's bytes: stable across platforms and runs.
fn mix(seed: u64, id: &str) -> u64 {
    let mut h = seed ^ 0x9e37_79b9_7f4a_7c15;
    for b in id.bytes() {
        h = (h ^ b as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 31;
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four types over 4,000 ids: each about a quarter, and another seed draws anew.
    #[test]
    fn job_types_are_drawn_uniformly_and_by_seed() {
        let mut counts = [0usize; 4];
        for k in 0..4000 {
            counts[assign_job_type(4, &format!("j{k}"), 0)] += 1;
        }
        assert!(
            counts.iter().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
        let moved = (0..200)
            .filter(|k| {
                let id = format!("j{k}");
                assign_job_type(4, &id, 0) != assign_job_type(4, &id, 1)
            })
            .count();
        assert!(moved > 100, "{moved}");
    }

    #[test]
    fn long_jobs_keep_their_kind_and_short_ones_split_by_seed() {
        assert_eq!(assign(true, 7200.0, "a", 0), "mnist-mlp");
        assert_eq!(assign(false, 7200.0, "a", 0), "a9a-svm");
        let short: Vec<&str> = (0..200)
            .map(|k| assign(true, 60.0, &format!("j{k}"), 3))
            .collect();
        let softmax = short.iter().filter(|&&t| t == "digits-softmax").count();
        assert!((60..140).contains(&softmax), "{softmax} of 200");
        let again: Vec<&str> = (0..200)
            .map(|k| assign(true, 60.0, &format!("j{k}"), 3))
            .collect();
        assert_eq!(short, again);
    }
}
