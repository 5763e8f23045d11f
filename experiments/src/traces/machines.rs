//! Machine lists: the Alibaba GPU v2023 node list, the PAI v2020 machine spec, or a TOML
//! file of `[[machines]]`; identical machines are grouped with a count.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use schedlab_env::jobs::{MAX_GPUS, MachineSpec};
use serde::{Deserialize, Serialize};

use super::table::TextTable;

/// A machines TOML: what `--format alibaba-pai-machines` writes and `--nodes` reads.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachinesFile {
    pub machines: Vec<MachineSpec>,
}

/// Reads machines from any of the three forms, told apart by extension and header.
pub fn read_machines(path: &Path, lenient: bool) -> anyhow::Result<(Vec<MachineSpec>, usize)> {
    if path.extension().is_some_and(|e| e == "toml") {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let file: MachinesFile =
            toml::from_str(&text).with_context(|| format!("{}", path.display()))?;
        return Ok((file.machines, 0));
    }
    let table = TextTable::read(path)?;
    let layout = node_list_layout(&table, path)?;
    let (cpu_col, cpu_div, mem_col, mem_div, gpu_col, model_col) = layout;
    let mut groups: BTreeMap<(u64, u64, u32, String), usize> = BTreeMap::new();
    let mut dropped = 0;
    for row in 0..table.rows() {
        let parsed = (|| {
            let cpu = table.number(row, cpu_col)? / cpu_div;
            let mem = table.number(row, mem_col)? / mem_div;
            let gpus = table.count(row, gpu_col)?;
            if !(cpu > 0.0 && mem > 0.0) {
                return Err(table.invalid(
                    row,
                    cpu_col,
                    "not positive",
                    format!("{cpu} cores, {mem} GB"),
                ));
            }
            if gpus as usize > MAX_GPUS {
                return Err(table.invalid(
                    row,
                    gpu_col,
                    "too many GPUs",
                    format!("{gpus} > {MAX_GPUS}"),
                ));
            }
            let model = table.text(row, model_col).unwrap_or("").to_owned();
            Ok((
                (cpu * 1000.0).round() as u64,
                (mem * 1024.0).round() as u64,
                gpus,
                model,
            ))
        })();
        match parsed {
            Ok(key) => *groups.entry(key).or_default() += 1,
            Err(_) if lenient => dropped += 1,
            Err(e) => anyhow::bail!("{e} (pass --lenient to drop such rows)"),
        }
    }
    let machines = groups.into_iter().map(machine_spec).collect();
    Ok((machines, dropped))
}

/// Where a node list keeps each figure: `(cpu column, its divisor to cores, memory column,
/// its divisor to GB, GPU column, GPU model column)`.
type NodeListLayout = (
    &'static str,
    f64,
    &'static str,
    f64,
    &'static str,
    &'static str,
);

/// The layout of a node list: the Alibaba GPU v2023 node list's (memory in MiB) or the PAI
/// v2020 machine spec's (memory in GB).
fn node_list_layout(table: &TextTable, path: &Path) -> anyhow::Result<NodeListLayout> {
    let has = |columns: &[&str]| table.require(columns).is_ok();
    if has(&["sn", "cpu_milli", "memory_mib", "gpu", "model"]) {
        Ok(("cpu_milli", 1000.0, "memory_mib", 1024.0, "gpu", "model"))
    } else if has(&["machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"]) {
        Ok(("cap_cpu", 1.0, "cap_mem", 1.0, "cap_gpu", "gpu_type"))
    } else {
        anyhow::bail!(
            "{}: not a node list: expected the columns of the Alibaba GPU v2023 node list (sn, cpu_milli, memory_mib, gpu, model) or of the PAI v2020 machine spec (machine, gpu_type, cap_cpu, cap_mem, cap_gpu)",
            path.display()
        )
    }
}

/// One group of identical machines as a machine type.
fn machine_spec(((cpu, mem, gpus, model), count): ((u64, u64, u32, String), usize)) -> MachineSpec {
    let (cores, gb) = (cpu as f64 / 1000.0, mem as f64 / 1024.0);
    let kind = if gpus == 0 || model.is_empty() || model == "CPU" {
        "cpu".to_owned()
    } else {
        model.clone()
    };
    MachineSpec {
        name: format!("{kind}-{cores}c-{gb}g-{gpus}gpu"),
        count,
        cpu_cores: cores,
        mem_gb: gb,
        gpus,
        gpu_model: model,
    }
}

/// Keeps `round(count * factor)` of each machine type; when that leaves none, one machine
/// of the most common type.
pub fn scale_machines(machines: &mut Vec<MachineSpec>, factor: f64) {
    let most_common = machines.iter().max_by_key(|m| m.count).cloned();
    for m in machines.iter_mut() {
        m.count = (m.count as f64 * factor).round() as usize;
    }
    machines.retain(|m| m.count > 0);
    if let (true, Some(mut m)) = (machines.is_empty(), most_common) {
        m.count = 1;
        machines.push(m);
    }
}
