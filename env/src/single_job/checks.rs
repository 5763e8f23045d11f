//! A single-job workload's checks, section by section, so a bad value is refused naming the
//! file and the key (run by `load.rs` on every file it reads).

use std::path::Path;

use super::compression::Compression;
use super::schema::{OptimizerKind, SingleJobWorkload, Topology};
use crate::cluster::{BackgroundSpec, Resource};
use crate::error::{EnvError, Result};
use crate::limits;
use crate::schema::{DataFormat, ModelKind};
use crate::workload_file::resolve;

impl SingleJobWorkload {
    /// Checks every section of a workload read from `path`.
    pub(super) fn check(&self, path: &Path) -> Result<()> {
        check_episode(self, path)?;
        check_nodes(self, path)?;
        check_containers(self, path)?;
        check_job_numbers(self, path)?;
        check_optimiser(self, path)?;
        check_model_and_data(self, path)?;
        check_background(self, path)?;
        check_memory(self, path)?;
        if self.execution == crate::execution::Execution::Slurm {
            return Err(EnvError::config(
                path,
                "execution",
                "\"slurm\" runs jobs workloads; a single job's containers are resized in place, which Slurm cannot do: use \"real\"",
            ));
        }
        match self.real.check() {
            Some((key, message)) => Err(EnvError::config(path, key, message)),
            None => Ok(()),
        }
    }
}

/// Refuses a cluster above the machine limit in all, and a model whose hidden layers alone
/// would outgrow the memory budget (every worker holds the weights, its gradient and its
/// optimiser's state, in `f32`), or an episode whose background series would.
fn check_memory(w: &SingleJobWorkload, path: &Path) -> Result<()> {
    let nodes: usize = w.nodes.iter().map(|n| n.count).sum();
    limits::check_total(path, "nodes", "nodes", nodes as f64, limits::TOTAL_MACHINES)?;
    let hidden = &w.job.hidden;
    let weights: u64 = hidden
        .windows(2)
        .map(|p| p[0] as u64 * p[1] as u64)
        .sum::<u64>()
        + hidden.iter().map(|&h| h as u64).sum::<u64>();
    let copies = nodes as u64 + 2;
    let shown = format!("{hidden:?} on {nodes} nodes");
    let estimate = weights.saturating_mul(4 * 3).saturating_mul(copies);
    limits::check_memory(path, "job.hidden", shown, estimate)?;
    // a stochastic background keeps three numbers per node and period over the episode,
    // in vectors that may hold twice what they were grown to
    if let BackgroundSpec::Stochastic { period_s, .. } = w.background {
        let horizon_s = w.episode.max_time_s + w.episode.round_interval_s;
        let periods = (horizon_s / period_s).ceil() + 1.0;
        let estimate = periods * nodes as f64 * 3.0 * 8.0 * 2.0;
        let shown = format!(
            "{} s of {period_s} s periods on {nodes} nodes",
            w.episode.max_time_s
        );
        // a float beyond u64 converts to u64::MAX
        limits::check_memory(path, "episode.max_time_s", shown, estimate as u64)?;
    }
    Ok(())
}

/// The episode's clock (positive round interval and time limit, at least one round) and the
/// reward's weights (finite, not negative).
fn check_episode(w: &SingleJobWorkload, path: &Path) -> Result<()> {
    let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
    let e = &w.episode;
    for (key, v) in [
        ("episode.round_interval_s", e.round_interval_s),
        ("episode.max_time_s", e.max_time_s),
    ] {
        if !(v > 0.0 && v.is_finite()) {
            return bad(key.into(), format!("must be a positive number, got {v}"));
        }
    }
    if e.max_rounds == 0 {
        return bad("episode.max_rounds".into(), "must be at least 1".into());
    }
    let r = &w.reward;
    for (key, v) in [
        ("reward.lambda_time", r.lambda_time),
        ("reward.lambda_idle", r.lambda_idle),
        ("reward.lambda_held_idle", r.lambda_held_idle),
        ("reward.lambda_episode_idle", r.lambda_episode_idle),
    ] {
        if !(v >= 0.0 && v.is_finite()) {
            return bad(key.into(), format!("must be 0 or positive, got {v}"));
        }
    }
    Ok(())
}

/// Every node: positive capacities and speeds, a count, GPU memory and rate with GPUs.
fn check_nodes(w: &SingleJobWorkload, path: &Path) -> Result<()> {
    let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
    if w.nodes.is_empty() {
        return bad("nodes".into(), "at least one node is needed".into());
    }
    for (i, n) in w.nodes.iter().enumerate() {
        let fields = [
            ("cpu_cores", n.cpu_cores, true),
            ("mem_gb", n.mem_gb, true),
            ("gpus", f64::from(n.gpus), false),
            ("gpu_mem_gb", n.gpu_mem_gb, false),
            ("speed", n.speed, true),
            ("bandwidth_gbps", n.bandwidth_gbps, true),
            ("cpu_gflops_per_core", n.cpu_gflops_per_core, true),
            ("gpu_gflops", n.gpu_gflops, false),
        ];
        for (field, v, positive) in fields {
            if !v.is_finite() || v < 0.0 || (positive && v == 0.0) {
                let need = if positive { "positive" } else { "non-negative" };
                return bad(
                    format!("nodes[{i}].{field}"),
                    format!("must be {need}, got {v}"),
                );
            }
        }
        if n.count == 0 {
            return bad(format!("nodes[{i}].count"), "must be at least 1".into());
        }
        if n.gpus > 0 && (n.gpu_mem_gb <= 0.0 || n.gpu_gflops <= 0.0) {
            return bad(
                format!("nodes[{i}]"),
                "a node with GPUs needs gpu_mem_gb and gpu_gflops".into(),
            );
        }
    }
    Ok(())
}

/// The container ladder: increasing positive sizes, CPU and memory required.
fn check_containers(w: &SingleJobWorkload, path: &Path) -> Result<()> {
    let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
    for r in Resource::ALL {
        let sizes = w.containers.sizes(r);
        let key = format!("containers.{}", ["cpu_cores", "mem_gb", "gpus"][r as usize]);
        if r != Resource::Gpu && sizes.is_empty() {
            return bad(key, "needs at least one size".into());
        }
        if sizes.iter().any(|&s| !(s > 0.0 && s.is_finite()))
            || sizes.windows(2).any(|w| w[0] >= w[1])
        {
            return bad(
                key,
                format!("sizes must be positive and strictly increasing, got {sizes:?}"),
            );
        }
    }
    Ok(())
}

/// The job's rates and sizes: positive, its target and penalty non-negative.
fn check_job_numbers(w: &SingleJobWorkload, path: &Path) -> Result<()> {
    let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
    let j = &w.job;
    let positive = [
        ("sim.bandwidth_scale", w.sim.bandwidth_scale),
        ("job.lr", j.lr),
        ("job.sample_gflop", j.sample_gflop),
        ("job.model_mb", j.model_mb),
        ("job.sample_mem_mb", j.sample_mem_mb),
    ];
    for (key, v) in positive {
        if !(v > 0.0 && v.is_finite()) {
            return bad(key.into(), format!("must be a positive number, got {v}"));
        }
    }
    if !(j.target_loss.is_finite() && j.target_loss >= 0.0) {
        return bad(
            "job.target_loss".into(),
            format!("must be a non-negative number, got {}", j.target_loss),
        );
    }
    if j.l2 < 0.0 || !j.l2.is_finite() {
        return bad(
            "job.l2".into(),
            format!("must be non-negative, got {}", j.l2),
        );
    }
    if j.base_batch == 0 {
        return bad("job.base_batch".into(), "must be at least 1".into());
    }
    if let Some(problem) = j.eval_every.problem() {
        return bad("job.eval_every".into(), problem);
    }
    if !(0.0..1.0).contains(&j.momentum) {
        return bad(
            "job.momentum".into(),
            format!("must lie in [0, 1), got {}", j.momentum),
        );
    }
    Ok(())
}

/// Options of the optimiser and of communication, each only where the optimiser has it.
fn check_optimiser(w: &SingleJobWorkload, path: &Path) -> Result<()> {
    let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
    let j = &w.job;
    if j.local_steps == 0 || (j.local_steps > 1 && j.optimizer != OptimizerKind::LocalSgd) {
        return bad(
            "job.local_steps".into(),
            format!(
                "{}: at least 1, and above 1 only for local_sgd",
                j.local_steps
            ),
        );
    }
    if j.topology == Topology::RingAllReduce
        && !matches!(
            j.optimizer,
            OptimizerKind::SyncSgd | OptimizerKind::LocalSgd
        )
    {
        return bad(
            "job.topology".into(),
            format!(
                "ring all-reduce is for sync_sgd and local_sgd, not {}",
                j.optimizer.name()
            ),
        );
    }
    if j.backup_workers > 0 && j.optimizer != OptimizerKind::SyncSgd {
        return bad(
            "job.backup_workers".into(),
            format!(
                "backup workers are for sync_sgd, not {}",
                j.optimizer.name()
            ),
        );
    }
    if j.staleness_bound.is_some()
        && matches!(
            j.optimizer,
            OptimizerKind::SyncSgd | OptimizerKind::LocalSgd
        )
    {
        return bad(
            "job.staleness_bound".into(),
            "a staleness bound is for the asynchronous optimisers; sync_sgd has none".into(),
        );
    }
    if !(j.beta > 0.0 && j.beta < 1.0) {
        return bad(
            "job.beta".into(),
            format!("must lie in (0, 1), got {}", j.beta),
        );
    }
    let (lo, hi) = j.lr_factor_bounds;
    if !(lo > 0.0 && lo <= 1.0 && hi >= 1.0 && hi.is_finite()) {
        return bad(
            "job.lr_factor_bounds".into(),
            format!("need 0 < low <= 1 <= high, got ({lo}, {hi})"),
        );
    }
    match j.compression {
        Compression::Qsgd { levels: 0 } => {
            return bad(
                "job.compression".into(),
                "QSGD needs at least 1 level".into(),
            );
        }
        Compression::TopK { ratio } if !(ratio > 0.0 && ratio <= 1.0) => {
            return bad(
                "job.compression".into(),
                format!("top-k's ratio must lie in (0, 1], got {ratio}"),
            );
        }
        _ => {}
    }
    Ok(())
}

/// The model's layers and the dataset: files that exist, a label only for CSV.
fn check_model_and_data(w: &SingleJobWorkload, path: &Path) -> Result<()> {
    let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
    let j = &w.job;
    if j.dataset.validation_rows == Some(0) {
        return bad(
            "job.dataset.validation_rows".into(),
            "a validation subset needs a row".into(),
        );
    }
    if (j.model == ModelKind::Mlp) == j.hidden.is_empty() {
        return bad(
            "job.hidden".into(),
            "hidden layer widths are required for `mlp` and only for it".into(),
        );
    }
    let d = &j.dataset;
    for (key, file) in [
        ("job.dataset.path", Some(&d.path)),
        ("job.dataset.validation_path", d.validation_path.as_ref()),
    ] {
        if let Some(file) = file {
            let full = resolve(path, file);
            if !full.is_file() {
                return bad(
                    key.into(),
                    format!("dataset file {} does not exist", full.display()),
                );
            }
        }
    }
    if (d.format == DataFormat::Csv) != d.label.is_some() {
        return bad(
            "job.dataset.label".into(),
            "CSV needs a label column name; LIBSVM takes none".into(),
        );
    }
    if d.validation_path.is_none() && !(d.validation_fraction > 0.0 && d.validation_fraction < 1.0)
    {
        return bad(
            "job.dataset.validation_fraction".into(),
            "must lie in (0, 1)".into(),
        );
    }
    Ok(())
}

/// Background load: shares in [0, 1], a trace file that exists.
fn check_background(w: &SingleJobWorkload, path: &Path) -> Result<()> {
    let bad = |key: String, message: String| Err(EnvError::config(path, key, message));
    match &w.background {
        BackgroundSpec::None => {}
        BackgroundSpec::Stochastic {
            mean_share,
            volatility,
            phi,
            period_s,
            max_share,
        } => {
            if !(0.0..=1.0).contains(max_share) || !(0.0..=*max_share).contains(mean_share) {
                return bad(
                    "background.mean_share".into(),
                    "need 0 <= mean_share <= max_share <= 1".into(),
                );
            }
            if *volatility < 0.0 || !(0.0..1.0).contains(phi) || *period_s <= 0.0 {
                return bad(
                    "background".into(),
                    "need volatility >= 0, 0 <= phi < 1, period_s > 0".into(),
                );
            }
        }
        BackgroundSpec::Trace {
            path: file,
            cpu_scale,
            mem_scale,
            time_scale,
            max_share,
        } => {
            if !resolve(path, file).is_file() {
                return bad(
                    "background.path".into(),
                    format!("trace file {file} does not exist"),
                );
            }
            if [*cpu_scale, *mem_scale, *time_scale]
                .iter()
                .any(|v| *v <= 0.0)
                || !(0.0..=1.0).contains(max_share)
            {
                return bad(
                    "background".into(),
                    "scales must be positive and max_share in [0, 1]".into(),
                );
            }
        }
    }
    Ok(())
}
