//! Heterogeneous GPUs grouped on machines, with the bandwidth inside a machine and between
//! machines: given inline in a workload file or sampled from the Alibaba PAI machine list.

use std::collections::BTreeMap;
use std::path::Path;

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::error::{EnvError, Result};
use crate::limits;

/// A kind of GPU: speed relative to a speed-1 reference, per task kind where it differs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuType {
    pub name: String,
    pub memory_gb: f64,
    pub speed: f64,
    /// Speed for tasks of a kind (`M`, `R`, `J`, `compute`), overriding `speed`.
    #[serde(default)]
    pub kind_speed: BTreeMap<String, f64>,
}

/// `count` machines of `gpus` GPUs of type `gpu_type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineGroup {
    pub gpu_type: String,
    pub gpus: usize,
    #[serde(default = "one")]
    pub count: usize,
}

fn one() -> usize {
    1
}

/// Machines sampled from the PAI machine list (`machine,gpu_type,cap_cpu,cap_mem,cap_gpu`):
/// `machines` GPU machines drawn without replacement by `seed`, each with its listed GPUs of
/// a type from `gpu_types` (a type the list names but the workload does not is an error).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaiSample {
    pub file: String,
    pub machines: usize,
    #[serde(default)]
    pub seed: u64,
}

/// The platform section of a DAG workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlatformSpec {
    /// Megabytes per second between two GPUs of one machine.
    pub intra_mbps: f64,
    /// Megabytes per second between machines.
    pub inter_mbps: f64,
    pub gpu_types: Vec<GpuType>,
    #[serde(default)]
    pub machines: Vec<MachineGroup>,
    pub pai: Option<PaiSample>,
    /// Every listed speed is raised to this power: 0 makes the GPUs alike (speed 1), 1 keeps
    /// the list, 2 squares its spread (for sweeps over heterogeneity).
    #[serde(default = "listed")]
    pub heterogeneity: f64,
}

fn listed() -> f64 {
    1.0
}

/// The compiled platform: one entry per GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct Platform {
    pub types: Vec<GpuType>,
    /// Per GPU: its type index and its machine.
    gpu_type: Vec<usize>,
    machine: Vec<usize>,
    pub machine_names: Vec<String>,
    pub intra_mbps: f64,
    pub inter_mbps: f64,
}

impl Platform {
    pub fn gpus(&self) -> usize {
        self.gpu_type.len()
    }
    pub fn machines(&self) -> usize {
        self.machine_names.len()
    }
    pub fn machine_of(&self, gpu: usize) -> usize {
        self.machine[gpu]
    }
    pub fn type_of(&self, gpu: usize) -> &GpuType {
        &self.types[self.gpu_type[gpu]]
    }
    pub fn memory_gb(&self, gpu: usize) -> f64 {
        self.type_of(gpu).memory_gb
    }
    pub fn largest_memory_gb(&self) -> f64 {
        self.types.iter().map(|t| t.memory_gb).fold(0.0, f64::max)
    }
    pub fn speed(&self, gpu: usize, kind: &str) -> f64 {
        let t = self.type_of(gpu);
        t.kind_speed.get(kind).copied().unwrap_or(t.speed)
    }
    /// Seconds to move one megabyte from `from` to `to`: nothing on the same GPU.
    pub fn per_mb_s(&self, from: usize, to: usize) -> f64 {
        if from == to {
            0.0
        } else if self.machine[from] == self.machine[to] {
            1.0 / self.intra_mbps
        } else {
            1.0 / self.inter_mbps
        }
    }
    /// Mean transfer seconds per megabyte over ordered pairs of distinct GPUs (HEFT's
    /// average communication cost; 0 on one GPU).
    pub fn mean_per_mb_s(&self) -> f64 {
        let p = self.gpus();
        if p < 2 {
            return 0.0;
        }
        let sum: f64 = (0..p)
            .flat_map(|a| (0..p).map(move |b| (a, b)))
            .map(|(a, b)| self.per_mb_s(a, b))
            .sum();
        sum / (p * (p - 1)) as f64
    }
    /// `GPU 3 (V100 on m1)`.
    pub fn label(&self, gpu: usize) -> String {
        format!(
            "GPU {gpu} ({} on {})",
            self.type_of(gpu).name,
            self.machine_names[self.machine[gpu]]
        )
    }
}

impl PlatformSpec {
    /// Bandwidths, heterogeneity and every GPU type's memory and speeds are positive numbers,
    /// and no type is given twice.
    fn check_numbers(&self, workload: &Path) -> Result<()> {
        let bad = |key: &str, message: String| Err(EnvError::config(workload, key, message));
        for (key, v) in [
            ("platform.intra_mbps", self.intra_mbps),
            ("platform.inter_mbps", self.inter_mbps),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return bad(key, format!("{v} is not a positive bandwidth"));
            }
        }
        if !(self.heterogeneity.is_finite() && self.heterogeneity >= 0.0) {
            return bad(
                "platform.heterogeneity",
                format!("{} is not an exponent >= 0", self.heterogeneity),
            );
        }
        for (i, t) in self.gpu_types.iter().enumerate() {
            let key = format!("platform.gpu_types[{i}]");
            let speeds = std::iter::once(t.speed).chain(t.kind_speed.values().copied());
            if !(t.memory_gb > 0.0 && t.memory_gb.is_finite()) {
                return bad(&key, format!("{}: memory {} GB", t.name, t.memory_gb));
            }
            if speeds.clone().any(|s| !(s.is_finite() && s > 0.0)) {
                return bad(&key, format!("{}: speeds must be positive", t.name));
            }
            if self.gpu_types[..i].iter().any(|o| o.name == t.name) {
                return bad(&key, format!("type `{}` is given twice", t.name));
            }
        }
        Ok(())
    }

    /// Checks the section and lays out its GPUs; `workload` is the file that holds it (for
    /// errors and for the PAI list's relative path).
    pub fn compile(&self, workload: &Path) -> Result<Platform> {
        self.check_numbers(workload)?;
        let bad = |key: &str, message: String| Err(EnvError::config(workload, key, message));
        let type_index = |name: &str, key: &str| {
            self.gpu_types
                .iter()
                .position(|t| t.name == name)
                .ok_or_else(|| {
                    let known: Vec<&str> = self.gpu_types.iter().map(|t| t.name.as_str()).collect();
                    EnvError::config(
                        workload,
                        key,
                        format!("unknown GPU type `{name}`; the workload's types: {known:?}"),
                    )
                })
        };
        let listed = |per: fn(&MachineGroup) -> f64| self.machines.iter().map(per).sum::<f64>();
        let machines = listed(|m| m.count as f64);
        limits::check_total(
            workload,
            "platform.machines",
            "machines",
            machines,
            limits::TOTAL_MACHINES,
        )?;
        let gpus = listed(|m| (m.count * m.gpus) as f64);
        limits::check_total(
            workload,
            "platform.machines",
            "GPUs",
            gpus,
            limits::TOTAL_GPUS,
        )?;
        let mut groups: Vec<(String, usize, usize)> = Vec::new();
        for (i, m) in self.machines.iter().enumerate() {
            let key = format!("platform.machines[{i}]");
            let t = type_index(&m.gpu_type, &key)?;
            if m.gpus == 0 || m.count == 0 {
                return bad(&key, "a machine group needs GPUs and a count".into());
            }
            for k in 0..m.count {
                groups.push((format!("{}-{i}-{k}", m.gpu_type), t, m.gpus));
            }
        }
        if let Some(pai) = &self.pai {
            for (name, gpu_type, gpus) in sample_pai(workload, pai)? {
                groups.push((name, type_index(&gpu_type, "platform.pai.file")?, gpus));
            }
        }
        if groups.is_empty() {
            return bad("platform.machines", "the platform has no GPU".into());
        }
        let mut types = self.gpu_types.clone();
        for t in &mut types {
            t.speed = t.speed.powf(self.heterogeneity);
            for s in t.kind_speed.values_mut() {
                *s = s.powf(self.heterogeneity);
            }
        }
        let mut platform = Platform {
            types,
            gpu_type: Vec::new(),
            machine: Vec::new(),
            machine_names: Vec::new(),
            intra_mbps: self.intra_mbps,
            inter_mbps: self.inter_mbps,
        };
        for (m, (name, t, gpus)) in groups.into_iter().enumerate() {
            platform.machine_names.push(name);
            for _ in 0..gpus {
                platform.gpu_type.push(t);
                platform.machine.push(m);
            }
        }
        Ok(platform)
    }
}

/// `(machine name, GPU type, GPUs)` of `pai.machines` GPU machines drawn from the list.
fn sample_pai(workload: &Path, pai: &PaiSample) -> Result<Vec<(String, String, usize)>> {
    let path = crate::workload_file::resolve(workload, &pai.file);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(crate::data::open_text(&path)?);
    let header = reader
        .headers()
        .map_err(|e| EnvError::parse(&path, 1, "header", e.to_string()))?
        .clone();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| EnvError::parse(&path, 1, name, "missing column"))
    };
    let (machine, gpu_type, cap_gpu) = (col("machine")?, col("gpu_type")?, col("cap_gpu")?);
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let record = record.map_err(|e| EnvError::parse(&path, line, "record", e.to_string()))?;
        let gpus: usize = record[cap_gpu].trim().parse().map_err(|_| {
            EnvError::parse(
                &path,
                line,
                "cap_gpu",
                format!("`{}` is not a count", &record[cap_gpu]),
            )
        })?;
        // CPU-only machines hold no GPU task
        if gpus > 0 {
            rows.push((
                record[machine].to_owned(),
                record[gpu_type].to_owned(),
                gpus,
            ));
        }
    }
    if pai.machines == 0 || pai.machines > rows.len() {
        return Err(EnvError::config(
            workload,
            "platform.pai.machines",
            format!(
                "{} machines asked, the list has {} with GPUs",
                pai.machines,
                rows.len()
            ),
        ));
    }
    rows.shuffle(&mut StdRng::seed_from_u64(pai.seed));
    rows.truncate(pai.machines);
    Ok(rows)
}
