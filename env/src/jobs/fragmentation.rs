//! The GPU-sharing-aware fragmentation of what stays free on a machine, as Weng et al.
//! ("Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
//! Descent", ATC 2023) measure it, against the workload's most common request shapes.

use super::schema::GPU_MILLI;

/// The most frequent request shapes (at most [`FRAGMENTATION_SHAPES`]) with their shares of
/// those jobs: GPU shapes, and CPU-only ones.
pub(super) type WeightedShapes = Vec<([u32; 3], f64)>;

/// How many of the most common request shapes the fragmentation measure weighs.
pub const FRAGMENTATION_SHAPES: usize = 64;

pub(super) fn popular_shapes(shapes: &[[u32; 3]], gpu: bool) -> WeightedShapes {
    let mut counts: std::collections::BTreeMap<[u32; 3], usize> = Default::default();
    for s in shapes.iter().filter(|s| (s[2] > 0) == gpu) {
        *counts.entry(*s).or_default() += 1;
    }
    let mut ranked: Vec<([u32; 3], usize)> = counts.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(FRAGMENTATION_SHAPES);
    let total: usize = ranked.iter().map(|r| r.1).sum();
    ranked
        .into_iter()
        .map(|(s, n)| (s, n as f64 / total as f64))
        .collect()
}

/// A machine's stranded `[gpu, cpu]` (thousandths of milli-units, so totals stay exact
/// integers) with `cpu`, `mem` and per-GPU `gpus` free: the free GPU capacity a GPU job drawn
/// from the workload could not use, in expectation over the GPU request shapes (all of it
/// when the job does not fit on the machine; otherwise the GPUs with less free than its
/// share, or not wholly free for a whole-GPU job). The same for CPU with the CPU-only shapes
/// (all free CPU when the job does not fit).
pub(super) fn stranded(
    (cpu, mem, gpus): (u32, u32, &[u16]),
    gpu_shapes: &WeightedShapes,
    cpu_shapes: &WeightedShapes,
) -> [u64; 2] {
    let all_gpu: u32 = gpus.iter().map(|&g| g as u32).sum();
    let mut gpu = 0.0;
    for (s, weight) in gpu_shapes {
        let fragment = if s[0] > cpu || s[1] > mem {
            all_gpu
        } else if s[2] < GPU_MILLI {
            let short: u32 = gpus.iter().map(|&g| g as u32).filter(|&g| g < s[2]).sum();
            if gpus.iter().any(|&g| g as u32 >= s[2]) {
                short
            } else {
                all_gpu
            }
        } else {
            let whole = gpus.iter().filter(|&&g| g as u32 == GPU_MILLI).count() as u32;
            if whole < s[2] / GPU_MILLI {
                all_gpu
            } else {
                all_gpu - whole * GPU_MILLI
            }
        };
        gpu += weight * fragment as f64;
    }
    let cpu_stranded: f64 = cpu_shapes
        .iter()
        .filter(|(s, _)| s[0] > cpu || s[1] > mem)
        .map(|(_, weight)| weight * cpu as f64)
        .sum();
    [
        (gpu * 1000.0).round() as u64,
        (cpu_stranded * 1000.0).round() as u64,
    ]
}
