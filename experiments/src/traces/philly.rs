//! Philly jobs (Pollux's job table): submission time, run time and GPU count.

use schedlab_env::jobs::{GPU_MILLI, JobRecord, MachineSpec};

use super::date_time::epoch_seconds;
use super::reader::{ReadJobs, ReadOptions, check_fits};
use super::table::{RowError, TextTable};
use super::templates;

pub const COLUMNS: [&str; 3] = ["timestamp", "duration", "num_gpus"];
/// The virtual cluster a job was submitted to, one per tenant (optional: a table without it
/// gives jobs of no tenant).
const TENANT_COLUMN: &str = "cluster";

/// A job arrives at `timestamp` (seconds since the earliest timestamp in the file; `--from`
/// and `--to` count on that clock) and runs `duration` seconds on `num_gpus` GPUs, split
/// into the fewest equal containers the largest GPU machine holds; a job logged shorter than
/// 1 s (0 included) is real and runs 1 s, as the openb and v2018 importers treat theirs.
/// Philly has no CPU or memory figures: a container gets, per GPU, the CPU and memory per GPU
/// of the cluster's leanest GPU machine (so a GPU-proportional share always fits). Its
/// virtual cluster (`cluster`) is its tenant.
/// The most GPUs one job asks for: its containers are searched for by trying divisors.
const MAX_JOB_GPUS: f64 = schedlab_env::limits::TOTAL_GPUS;

pub fn read(table: &TextTable, options: &ReadOptions) -> anyhow::Result<ReadJobs> {
    table.require(&COLUMNS)?;
    let mut out = ReadJobs {
        rows_read: table.rows(),
        ..ReadJobs::default()
    };
    let per_gpu = per_gpu_share(options.machines)?;
    let max_gpus = options.machines.iter().map(|m| m.gpus).max().unwrap_or(0);
    let times = submit_times(table);
    let origin = times
        .iter()
        .filter_map(|t| t.as_ref().ok())
        .copied()
        .min()
        .unwrap_or(0);
    let window = options.window(Some(origin))?;
    for (row, time) in times.into_iter().enumerate() {
        let job = (|| -> Result<Option<JobRecord>, RowError> {
            let arrival = (time? - origin) as f64;
            if !window.contains(arrival) {
                return Ok(None);
            }
            let duration = table.number(row, "duration")?;
            if duration < 0.0 {
                return Err(table.invalid(
                    row,
                    "duration",
                    "negative duration",
                    format!("{duration}"),
                ));
            }
            let duration = duration.max(1.0);
            let gpus = table.count(row, "num_gpus")?;
            if gpus == 0 {
                return Err(table.invalid(
                    row,
                    "num_gpus",
                    "zero request",
                    "a Philly job needs GPUs",
                ));
            }
            if f64::from(gpus) > MAX_JOB_GPUS {
                return Err(table.invalid(
                    row,
                    "num_gpus",
                    "too many GPUs",
                    format!("{gpus} > {MAX_JOB_GPUS}"),
                ));
            }
            let workers = (gpus.div_ceil(max_gpus.max(1))..=gpus)
                .find(|w| gpus % w == 0)
                .expect("gpus divides itself");
            let per_container = gpus / workers;
            let request = [
                (per_gpu[0] * per_container as f64).floor() as u32,
                (per_gpu[1] * per_container as f64).floor() as u32,
                per_container * GPU_MILLI,
            ];
            check_fits(table, row, "num_gpus", options.machines, request)?;
            let id = format!("philly-{}", row + 2);
            Ok(Some(JobRecord {
                template: templates::assign(true, duration, &id, options.seed).to_owned(),
                id,
                arrival_s: arrival,
                duration_s: duration,
                workers,
                cpu_milli: request[0],
                mem_mib: request[1],
                gpu_milli: request[2],
                after: Vec::new(),
                tenant: table.text(row, TENANT_COLUMN).map(str::to_owned),
                gpu_models: Vec::new(),
            }))
        })();
        out.take(options.lenient, job)?;
    }
    window.rebase(&mut out.jobs);
    Ok(out)
}

/// Each row's submit time in seconds since the epoch, or why it has none.
fn submit_times(table: &TextTable) -> Vec<Result<i64, RowError>> {
    (0..table.rows())
        .map(|row| {
            let t = table
                .text(row, "timestamp")
                .ok_or(())
                .and_then(|s| epoch_seconds(s).ok_or(()));
            t.map_err(|()| {
                table.invalid(
                    row,
                    "timestamp",
                    "not a date-time",
                    format!(
                        "{:?}, expected YYYY-MM-DD HH:MM:SS",
                        table.text(row, "timestamp").unwrap_or("")
                    ),
                )
            })
        })
        .collect()
}

/// `[mCPU, MiB]` per GPU on the GPU machine with the least of each.
fn per_gpu_share(machines: &[MachineSpec]) -> anyhow::Result<[f64; 2]> {
    let gpu_machines: Vec<&MachineSpec> = machines.iter().filter(|m| m.gpus > 0).collect();
    anyhow::ensure!(
        !gpu_machines.is_empty(),
        "Philly jobs need GPU machines; --nodes has none"
    );
    let least = |f: fn(&MachineSpec) -> u32| {
        gpu_machines
            .iter()
            .map(|m| f(m) as f64 / m.gpus as f64)
            .fold(f64::INFINITY, f64::min)
    };
    Ok([least(MachineSpec::cpu_milli), least(MachineSpec::mem_mib)])
}
