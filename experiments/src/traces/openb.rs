//! Alibaba GPU v2023 `openb` pods: one job per pod, one container each.

use schedlab_env::jobs::{GPU_MILLI, JobRecord};

use super::reader::{ReadJobs, ReadOptions, check_fits};
use super::table::{RowError, TextTable};
use super::templates;

pub const COLUMNS: [&str; 10] = [
    "name",
    "cpu_milli",
    "memory_mib",
    "num_gpu",
    "gpu_milli",
    "qos",
    "pod_phase",
    "creation_time",
    "deletion_time",
    "scheduled_time",
];

/// A pod arrives at `creation_time` and runs `deletion_time - scheduled_time` (a pod never
/// scheduled, `Pending`, for its whole life `deletion_time - creation_time`); a pod deleted
/// the second it was scheduled is a real, zero-length job and runs 1 s, as the v2018 importer
/// clamps its tasks (the env needs positive work). A one-GPU pod asks `gpu_milli` of a GPU; a
/// multi-GPU pod whole GPUs. A pod's `gpu_spec` (GPU models it may run on, `|`-separated;
/// empty: any) restricts it to machines of those models.
pub fn read(table: &TextTable, options: &ReadOptions) -> anyhow::Result<ReadJobs> {
    table.require(&COLUMNS)?;
    let window = options.window(None)?;
    let mut out = ReadJobs {
        rows_read: table.rows(),
        ..ReadJobs::default()
    };
    for row in 0..table.rows() {
        let job = (|| -> Result<Option<JobRecord>, RowError> {
            let created = table.number(row, "creation_time")?;
            if !window.contains(created) {
                return Ok(None);
            }
            let deleted = table.number(row, "deletion_time")?;
            let start = table
                .optional_number(row, "scheduled_time")?
                .unwrap_or(created);
            let duration = deleted - start;
            if duration < 0.0 {
                return Err(table.invalid(
                    row,
                    "deletion_time",
                    "deleted before it started",
                    format!("deletion_time {deleted} - start {start} = {duration}"),
                ));
            }
            let duration = duration.max(1.0);
            let cpu = table.count(row, "cpu_milli")?;
            let mem = table.count(row, "memory_mib")?;
            let gpus = table.count(row, "num_gpu")?;
            let share = table.count(row, "gpu_milli")?;
            let gpu = match gpus {
                0 => 0,
                1 if (1..=GPU_MILLI).contains(&share) => share,
                1 => {
                    return Err(table.invalid(
                        row,
                        "gpu_milli",
                        "share out of range",
                        format!("{share} not in 1..=1000"),
                    ));
                }
                n => n.checked_mul(GPU_MILLI).ok_or_else(|| {
                    table.invalid(row, "num_gpu", "too many GPUs", format!("{n}"))
                })?,
            };
            let request = [cpu, mem, gpu];
            check_fits(
                table,
                row,
                "cpu_milli/memory_mib/num_gpu",
                options.machines,
                request,
            )?;
            let id = table.text(row, "name").unwrap_or_default().to_owned();
            Ok(Some(JobRecord {
                template: templates::assign(gpu > 0, duration, &id, options.seed).to_owned(),
                id,
                arrival_s: created,
                duration_s: duration,
                workers: 1,
                cpu_milli: cpu,
                mem_mib: mem,
                gpu_milli: gpu,
                after: Vec::new(),
                tenant: None,
                gpu_models: gpu_spec(table.text(row, "gpu_spec")),
            }))
        })();
        out.take(options.lenient, job)?;
    }
    window.rebase(&mut out.jobs);
    Ok(out)
}

/// The models of a `gpu_spec` cell, `|`-separated.
fn gpu_spec(cell: Option<&str>) -> Vec<String> {
    cell.unwrap_or_default()
        .split('|')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_gpu_spec_lists_its_models_and_an_empty_one_none() {
        assert_eq!(
            super::gpu_spec(Some("V100M16|V100M32")),
            ["V100M16", "V100M32"]
        );
        assert_eq!(super::gpu_spec(Some("T4")), ["T4"]);
        assert!(super::gpu_spec(None).is_empty());
    }
}
