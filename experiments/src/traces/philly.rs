//! Philly jobs (Pollux's job table): submission time, run time and GPU count.

use schedlab_env::jobs::{GPU_MILLI, JobRecord, MachineSpec};

use super::table::{RowError, TextTable};
use super::{ReadJobs, ReadOptions, check_fits, templates};

pub const COLUMNS: [&str; 3] = ["timestamp", "duration", "num_gpus"];

/// A job arrives at `timestamp` (seconds since the earliest timestamp in the file; `--from`
/// and `--to` count on that clock) and runs `duration` seconds on `num_gpus` GPUs, split
/// into the fewest equal containers the largest GPU machine holds; a job logged shorter than
/// 1 s (0 included) is real and runs 1 s, as the openb and v2018 importers treat theirs.
/// Philly has no CPU or memory figures: a container gets, per GPU, the CPU and memory per GPU
/// of the cluster's leanest GPU machine (so a GPU-proportional share always fits).
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

/// `YYYY-MM-DD HH:MM:SS` (or just the date) as seconds since 1970-01-01, UTC.
pub fn epoch_seconds(text: &str) -> Option<i64> {
    let (date, time) = text
        .trim()
        .split_once(' ')
        .unwrap_or((text.trim(), "00:00:00"));
    let d: Vec<i64> = date
        .split('-')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let t: Vec<i64> = time
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let ([y, m, day], [hh, mm, ss]) =
        (<[i64; 3]>::try_from(d).ok()?, <[i64; 3]>::try_from(t).ok()?);
    let valid = (1..=12).contains(&m)
        && (1..=31).contains(&day)
        && (0..24).contains(&hh)
        && (0..60).contains(&mm)
        && (0..=60).contains(&ss);
    valid.then(|| days_from_civil(y, m, day) * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `epoch_seconds`'s inverse: `YYYY-MM-DD HH:MM:SS` (H. Hinnant's `civil_from_days`).
pub fn date_time(epoch: i64) -> String {
    let (days, secs) = (epoch.div_euclid(86_400), epoch.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_seconds_from_the_unix_epoch() {
        assert_eq!(epoch_seconds("1970-01-01 00:00:00"), Some(0));
        assert_eq!(epoch_seconds("2017-10-09 07:01:55"), Some(1_507_532_515));
        for text in [
            "1970-01-01 00:00:00",
            "2017-10-09 07:01:55",
            "2000-02-29 23:59:59",
        ] {
            assert_eq!(date_time(epoch_seconds(text).unwrap()), text);
        }
        assert_eq!(epoch_seconds("2000-03-01"), Some(951_868_800));
        assert_eq!(epoch_seconds("2017-13-01 00:00:00"), None);
        assert_eq!(epoch_seconds("yesterday"), None);
    }
}
