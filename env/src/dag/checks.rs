//! A DAG workload's checks: its kind, every source's values, the memory an episode would
//! take, and a mix of two sources, each fault refused naming its key (run by `load.rs`).

use std::path::Path;

use super::generate::TaskDraw;
use super::schema::{DagSource, DagWorkloadSpec};
use crate::error::{EnvError, Result};
use crate::limits;

/// A DAG workload says `kind = "dag"`.
pub(super) fn check_kind(path: &Path, spec: &DagWorkloadSpec) -> Result<()> {
    if spec.kind != "dag" {
        return Err(EnvError::config(
            path,
            "kind",
            format!("`{}`: a DAG workload says kind = \"dag\"", spec.kind),
        ));
    }
    Ok(())
}

/// Every source of `spec`, and the memory an episode of it takes on `gpus` GPUs.
pub(super) fn check_sources(path: &Path, spec: &DagWorkloadSpec, gpus: usize) -> Result<()> {
    check_source(path, "dags", &spec.dags)?;
    check_memory(path, spec, gpus)?;
    check_mix(path, spec)
}

/// A `[mix]` section: a probability, a valid second source, and at most one trace between
/// the two sources.
fn check_mix(path: &Path, spec: &DagWorkloadSpec) -> Result<()> {
    let Some(mix) = &spec.mix else {
        return Ok(());
    };
    let bad = |key: &str, message: String| Err(EnvError::config(path, key, message));
    if !(0.0..=1.0).contains(&mix.share) {
        return bad("mix.share", format!("{} is not a probability", mix.share));
    }
    check_source(path, "mix.dags", &mix.dags)?;
    if matches!(
        (&spec.dags, &mix.dags),
        (DagSource::Alibaba { .. }, DagSource::Alibaba { .. })
    ) {
        return bad("mix.dags", "one of the two sources may read a trace".into());
    }
    Ok(())
}

/// Refuses a workload whose episode would outgrow the memory budget: each task keeps its
/// run time on every GPU (`Problem`'s table), and its own record, edges and schedule entry
/// (about a kilobyte with its name, measured with `workload validate`); every pair of GPUs
/// keeps its transfer time per megabyte (found by fuzz/fuzz_targets/workload_sizes.rs).
fn check_memory(path: &Path, spec: &DagWorkloadSpec, gpus: usize) -> Result<()> {
    let sources = std::iter::once(("dags", &spec.dags))
        .chain(spec.mix.iter().map(|mix| ("mix.dags", &mix.dags)));
    let gpus_u = gpus as u64;
    for (key, source) in sources {
        let tasks = match source {
            DagSource::Layered { tasks, .. }
            | DagSource::ForkJoin { tasks, .. }
            | DagSource::Alibaba { tasks, .. } => *tasks as u64,
        };
        let estimate = tasks * gpus_u * 16 + tasks * 1024 + gpus_u * gpus_u * 16;
        limits::check_memory(
            path,
            &format!("{key}.{}.tasks", source.section()),
            format!("{tasks} tasks on {gpus} GPUs"),
            estimate,
        )?;
    }
    Ok(())
}

/// Checks one source's values; `key` is where it sits (`dags` or `mix.dags`).
fn check_source(path: &Path, key: &str, source: &DagSource) -> Result<()> {
    let bad = |field: &str, message: String| {
        Err(EnvError::config(
            path,
            format!("{key}.{}{field}", source.section()),
            message,
        ))
    };
    let (tasks, ccr) = match source {
        DagSource::Layered {
            tasks,
            ccr,
            shape,
            max_parents,
            task,
        } => {
            if !(shape.is_finite() && *shape > 0.0) || *max_parents == 0 {
                return bad(
                    "",
                    "shape must be positive and max_parents at least 1".into(),
                );
            }
            check_draw(path, &format!("{key}.layered.task"), task)?;
            (*tasks, *ccr)
        }
        DagSource::ForkJoin {
            tasks,
            width,
            ccr,
            task,
        } => {
            if *width == 0 {
                return bad(".width", "a fork needs a width".into());
            }
            check_draw(path, &format!("{key}.fork-join.task"), task)?;
            (*tasks, *ccr)
        }
        DagSource::Alibaba {
            tasks,
            ccr,
            machine_memory_gb,
            arrival_from_s,
            arrival_until_s,
            ..
        } => {
            if !(machine_memory_gb.is_finite() && *machine_memory_gb > 0.0) {
                return bad(".machine_memory_gb", format!("{machine_memory_gb}"));
            }
            if let (Some(from), Some(until)) = (arrival_from_s, arrival_until_s)
                && from.partial_cmp(until) != Some(std::cmp::Ordering::Less)
            {
                return bad(
                    ".arrival_until_s",
                    format!("{until} is not after arrival_from_s = {from}"),
                );
            }
            (*tasks, *ccr)
        }
    };
    if tasks == 0 {
        return bad(".tasks", "an episode needs a task".into());
    }
    if !(ccr.is_finite() && ccr >= 0.0) {
        return bad(".ccr", format!("{ccr} is not a non-negative ratio"));
    }
    Ok(())
}

fn check_draw(path: &Path, key: &str, draw: &TaskDraw) -> Result<()> {
    let range_ok = |[low, high]: [f64; 2], least: f64| {
        low.is_finite() && high.is_finite() && low >= least && high >= low
    };
    if !range_ok(draw.work_s, f64::MIN_POSITIVE)
        || !range_ok(draw.memory_gb, 0.0)
        || draw.kinds.is_empty()
    {
        return Err(EnvError::config(
            path,
            key,
            format!(
                "work_s {:?} must be positive, memory_gb {:?} non-negative (low <= high), kinds non-empty",
                draw.work_s, draw.memory_gb
            ),
        ));
    }
    Ok(())
}
