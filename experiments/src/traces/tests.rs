//! Every importer on the shipped slices (row counts as in data/SOURCES.md) and on broken
//! copies of them.

use std::path::{Path, PathBuf};

use schedlab_env::jobs::{JobRecord, MachineSpec};

use super::*;

fn traces() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/traces")
}

fn openb_nodes() -> Vec<MachineSpec> {
    let (machines, dropped) = read_machines(
        &traces().join("alibaba_gpu_v2023/openb_node_list_all_node.csv"),
        false,
    )
    .unwrap();
    assert_eq!(dropped, 0);
    machines
}

fn pai_machines() -> Vec<MachineSpec> {
    read_machines(
        &traces().join("alibaba_pai_v2020/pai_machine_spec.csv"),
        false,
    )
    .unwrap()
    .0
}

fn options(machines: &[MachineSpec], lenient: bool) -> ReadOptions<'_> {
    ReadOptions {
        machines,
        from: None,
        to: None,
        lenient,
        seed: 0,
    }
}

#[test]
fn node_lists_hold_the_documented_machines() {
    let openb = openb_nodes();
    assert_eq!(openb.iter().map(|m| m.count).sum::<usize>(), 1523);
    let gpus: u32 = openb.iter().map(|m| m.gpus * m.count as u32).sum();
    assert!(gpus > 0);
    let pai = pai_machines();
    assert_eq!(pai.iter().map(|m| m.count).sum::<usize>(), 1897);
    // cap_gpu: 2 on 1,295 machines, 8 on 519, 0 on 83
    let with = |g: u32| {
        pai.iter()
            .filter(|m| m.gpus == g)
            .map(|m| m.count)
            .sum::<usize>()
    };
    assert_eq!((with(2), with(8), with(0)), (1295, 519, 83));
}

#[test]
fn openb_pods_import_strictly_with_their_gpu_requests() {
    let machines = openb_nodes();
    let path = traces().join("alibaba_gpu_v2023/openb_pods_before_t12200000.csv");
    let read = read_jobs(Format::AlibabaOpenb, &path, &options(&machines, false)).unwrap();
    assert_eq!((read.rows_read, read.jobs.len()), (5720, 5720));
    // num_gpu counts: 1 -> 4,846, 0 -> 821, 8 -> 37
    let count = |f: fn(&JobRecord) -> bool| read.jobs.iter().filter(|j| f(j)).count();
    assert_eq!(count(|j| j.gpu_milli == 0), 821);
    assert_eq!(count(|j| j.gpu_milli == 8000), 37);
    assert_eq!(count(|j| (1..=1000).contains(&j.gpu_milli)), 4846);
    assert!(
        read.jobs
            .iter()
            .all(|j| j.duration_s > 0.0 && j.workers == 1)
    );
}

#[test]
fn philly_jobs_import_on_pai_machines_and_split_large_jobs() {
    let machines = pai_machines();
    let path = traces().join("philly/philly_jobs_2017-09_to_10.csv.gz");
    let read = read_jobs(Format::Philly, &path, &options(&machines, false)).unwrap();
    assert_eq!((read.rows_read, read.jobs.len()), (52_849, 52_849));
    // 32 GPUs on 8-GPU machines: 4 containers of 8
    let big = read
        .jobs
        .iter()
        .find(|j| j.workers * j.gpu_milli == 32_000)
        .unwrap();
    assert_eq!((big.workers, big.gpu_milli), (4, 8000));
    // each job's virtual cluster is its tenant: 12 of them, the largest with 27,044 jobs
    let mut tenants = std::collections::BTreeMap::new();
    for j in &read.jobs {
        *tenants.entry(j.tenant.clone().unwrap()).or_insert(0) += 1;
    }
    assert_eq!((tenants.len(), tenants["6214e9"]), (12, 27_044));
    // and the tenants survive the job table
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jobs.parquet");
    std::fs::write(&file, table::write_jobs_parquet(&read.jobs).unwrap()).unwrap();
    assert_eq!(
        schedlab_artifacts::read_job_table(&file).unwrap(),
        read.jobs
    );
    assert_eq!(
        read.jobs
            .iter()
            .map(|j| j.arrival_s)
            .fold(f64::INFINITY, f64::min),
        0.0
    );
    // a one-day window on the wall clock
    let day = ReadOptions {
        from: Some(Bound::parse("2017-10-02").unwrap()),
        to: Some(Bound::parse("2017-10-03").unwrap()),
        ..options(&machines, false)
    };
    let one_day = read_jobs(Format::Philly, &path, &day).unwrap();
    assert!(
        one_day.jobs.len() > 100 && one_day.jobs.len() < 5000,
        "{}",
        one_day.jobs.len()
    );
    assert_eq!(one_day.jobs.len() + one_day.outside_window, 52_849);
    assert!(
        one_day
            .jobs
            .iter()
            .all(|j| (0.0..86_400.0).contains(&j.arrival_s))
    );
}

#[test]
fn v2018_tasks_need_lenient_and_say_what_they_dropped() {
    let machines = openb_nodes();
    let path = traces().join("alibaba_v2018_batch_dag/batch_task_dags_arrival_day0-4.csv.gz");
    let strict = read_jobs(Format::AlibabaV2018, &path, &options(&machines, false)).unwrap_err();
    let text = strict.to_string();
    assert!(
        text.contains("batch_task_dags_arrival_day0-4.csv.gz: line ") && text.contains("column `"),
        "{text}"
    );
    let read = read_jobs(Format::AlibabaV2018, &path, &options(&machines, true)).unwrap();
    assert_eq!(read.rows_read, 37_724);
    // the SOURCES caveats: 149 Waiting tasks never started; 44 end before they start
    assert_eq!(read.dropped["column `start_time`: never started"], 149);
    assert_eq!(read.dropped["column `end_time`: ends before it starts"], 44);
    assert_eq!(read.jobs.len() + read.dropped_total(), 37_724);
    // every name cut at 50 characters (256 rows, 51 distinct names) lost its last parent
    let cut = read.warnings["task names cut at 50 characters: last dependency dropped"];
    assert!((250..=256).contains(&cut), "{cut}");
    let j4142 = read.jobs.iter().find(|j| j.id == "j_4142/30").unwrap();
    assert_eq!(j4142.after.last().map(String::as_str), Some("j_4142/25"));
    // DAG parents are jobs of the same DAG that exist
    let ids: std::collections::HashSet<&str> = read.jobs.iter().map(|j| j.id.as_str()).collect();
    assert!(
        read.jobs
            .iter()
            .flat_map(|j| &j.after)
            .all(|p| ids.contains(p.as_str()))
    );
    assert!(read.jobs.iter().any(|j| j.after.len() > 1));
}

/// The shipped openb pods with one line edited.
fn broken_openb(dir: &Path, edit: impl Fn(&str) -> String) -> PathBuf {
    let pods = traces().join("alibaba_gpu_v2023/openb_pods_before_t12200000.csv");
    edited_copy(&dir.join("pods.csv"), &pods, 3, edit)
}

/// `source` (gzip-compressed when its name ends in `.gz`) written plain to `copy`, its line
/// `line` (0 = the header) edited.
fn edited_copy(copy: &Path, source: &Path, line: usize, edit: impl Fn(&str) -> String) -> PathBuf {
    use std::io::Read;
    let mut text = String::new();
    let file = std::fs::File::open(source).unwrap();
    if source.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(file).read_to_string(&mut text)
    } else {
        std::io::BufReader::new(file).read_to_string(&mut text)
    }
    .unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines[line] = edit(&lines[line]);
    std::fs::write(copy, lines.join("\n")).unwrap();
    copy.to_owned()
}

fn with_field(line: &str, index: usize, value: &str) -> String {
    let mut fields: Vec<&str> = line.split(',').collect();
    fields[index] = value;
    fields.join(",")
}

#[test]
fn malformed_rows_are_named_by_file_line_and_column_or_dropped_when_lenient() {
    let dir = tempfile::tempdir().unwrap();
    let machines = openb_nodes();
    // columns: name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time
    let cases: [(usize, &str, &str, &str); 4] = [
        (1, "lots", "`cpu_milli`", "not a number"),
        (9, "5", "`deletion_time`", "deleted before it started"),
        (3, "9", "`cpu_milli/memory_mib/num_gpu`", "fits on no node"),
        (4, "1500", "`gpu_milli`", "share out of range"),
    ];
    for (field, value, column, reason) in cases {
        let path = broken_openb(dir.path(), |l| {
            let l = if field == 4 {
                with_field(l, 3, "1")
            } else {
                l.to_owned()
            };
            with_field(&l, field, value)
        });
        let e = read_jobs(Format::AlibabaOpenb, &path, &options(&machines, false))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("pods.csv: line 4: column ") && e.contains(column) && e.contains(reason),
            "{e}"
        );
        let lenient = read_jobs(Format::AlibabaOpenb, &path, &options(&machines, true)).unwrap();
        assert_eq!((lenient.jobs.len(), lenient.dropped_total()), (5719, 1));
    }
    // a renamed column is refused before any row, naming what the file has
    let text =
        std::fs::read_to_string(traces().join("alibaba_gpu_v2023/openb_pods_before_t12200000.csv"))
            .unwrap();
    let renamed = dir.path().join("renamed.csv");
    std::fs::write(&renamed, text.replacen("memory_mib", "mem", 1)).unwrap();
    let e = read_jobs(Format::AlibabaOpenb, &renamed, &options(&machines, true))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("missing column(s) `memory_mib`")
            && e.contains("the file has: name, cpu_milli, mem"),
        "{e}"
    );
}

#[test]
fn a_pod_deleted_when_it_was_scheduled_is_a_one_second_job_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let machines = openb_nodes();
    // line 4 is openb-pod-0002, scheduled at 1558381
    let path = broken_openb(dir.path(), |l| with_field(l, 9, "1558381"));
    let read = read_jobs(Format::AlibabaOpenb, &path, &options(&machines, false)).unwrap();
    assert_eq!((read.jobs.len(), read.dropped_total()), (5720, 0));
    let pod = read.jobs.iter().find(|j| j.id == "openb-pod-0002").unwrap();
    assert_eq!(pod.duration_s, 1.0);
}

/// Philly's table, its first job's duration set to `duration`.
fn philly_with_first_duration(dir: &Path, duration: &str) -> PathBuf {
    let table = traces().join("philly/philly_jobs_2017-09_to_10.csv.gz");
    edited_copy(&dir.join("philly.csv"), &table, 1, |l| {
        with_field(l, 1, duration)
    })
}

#[test]
fn a_philly_job_of_zero_seconds_runs_one_and_a_negative_one_is_named() {
    let machines = pai_machines();
    let dir = tempfile::tempdir().unwrap();
    let zero = philly_with_first_duration(dir.path(), "0.0");
    let read = read_jobs(Format::Philly, &zero, &options(&machines, false)).unwrap();
    assert_eq!((read.jobs.len(), read.dropped_total()), (52_849, 0));
    let first = read.jobs.iter().find(|j| j.id == "philly-2").unwrap();
    assert_eq!(first.duration_s, 1.0);
    let negative = philly_with_first_duration(dir.path(), "-5.0");
    let e = read_jobs(Format::Philly, &negative, &options(&machines, false))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("philly.csv")
            && e.contains("line 2")
            && e.contains("duration")
            && e.contains("-5"),
        "{e}"
    );
}

#[test]
fn job_tables_round_trip_through_parquet() {
    let machines = openb_nodes();
    let path = traces().join("alibaba_v2018_batch_dag/batch_task_dags_arrival_day0-4.csv.gz");
    let jobs = read_jobs(Format::AlibabaV2018, &path, &options(&machines, true))
        .unwrap()
        .jobs;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jobs.parquet");
    std::fs::write(&file, table::write_jobs_parquet(&jobs).unwrap()).unwrap();
    assert_eq!(schedlab_artifacts::read_job_table(&file).unwrap(), jobs);
}

/// A table whose footer names column chunks past its end (a truncated copy, as the fuzz target
/// `jobs_parquet` found for polars' reader) is refused with an error, not a crash.
#[test]
fn a_truncated_job_table_is_an_error_not_a_crash() {
    let shipped = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/philly-train.jobs.parquet"),
    )
    .unwrap();
    let footer_len = u32::from_le_bytes(
        shipped[shipped.len() - 8..shipped.len() - 4]
            .try_into()
            .unwrap(),
    );
    let footer = &shipped[shipped.len() - 8 - footer_len as usize..];
    let dir = tempfile::tempdir().unwrap();
    for kept in [4, 1000, shipped.len() / 3] {
        let damaged = [&shipped[..kept], footer].concat();
        let file = dir.path().join("damaged.jobs.parquet");
        std::fs::write(&file, damaged).unwrap();
        let e = schedlab_artifacts::read_job_table(&file).unwrap_err();
        assert!(
            e.to_string().contains("not a readable Parquet table"),
            "{kept} bytes kept: {e}"
        );
    }
}
