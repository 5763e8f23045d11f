//! The cluster: nodes, the resources a container takes, the ladder of container sizes, and
//! the background load of other tenants over virtual time.

mod background;
mod trace_v2018;

pub use background::{Background, BackgroundSpec, LoadSeries, hash_task};
pub use trace_v2018::{
    TaskName, TraceStats, TraceTask, V2018_COLUMNS, load_v2018_tasks, parse_task_name,
};

use serde::{Deserialize, Serialize};

/// The resources a container holds, in this order everywhere (`[cpu, mem, gpu]` arrays).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resource {
    Cpu = 0,
    Mem = 1,
    Gpu = 2,
}

impl Resource {
    pub const ALL: [Resource; 3] = [Resource::Cpu, Resource::Mem, Resource::Gpu];

    pub fn name(self) -> &'static str {
        match self {
            Resource::Cpu => "cpu",
            Resource::Mem => "mem",
            Resource::Gpu => "gpu",
        }
    }
}

/// Amounts per resource: CPU cores, memory GB, GPUs (fractions allowed: shared GPUs).
pub type Amounts = [f64; 3];

pub(crate) fn one() -> usize {
    1
}
fn unit() -> f64 {
    1.0
}
fn default_cpu_gflops() -> f64 {
    20.0
}

/// A node type as the workload declares it; `count` copies are made, named `name-0`, `name-1`, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default = "one")]
    pub count: usize,
    pub cpu_cores: f64,
    pub mem_gb: f64,
    #[serde(default)]
    pub gpus: u32,
    /// Memory of one GPU.
    #[serde(default)]
    pub gpu_mem_gb: f64,
    /// Relative speed (heterogeneity): multiplies every compute rate on the node.
    #[serde(default = "unit")]
    pub speed: f64,
    pub bandwidth_gbps: f64,
    /// Sustained training throughput of one core.
    #[serde(default = "default_cpu_gflops")]
    pub cpu_gflops_per_core: f64,
    /// Sustained training throughput of one whole GPU.
    #[serde(default)]
    pub gpu_gflops: f64,
}

impl NodeSpec {
    pub fn capacity(&self) -> Amounts {
        [self.cpu_cores, self.mem_gb, f64::from(self.gpus)]
    }
}

/// Container sizes per resource; level 0 (no container) is implicit, level `k` is `sizes[k-1]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ladder {
    pub cpu_cores: Vec<f64>,
    pub mem_gb: Vec<f64>,
    #[serde(default)]
    pub gpus: Vec<f64>,
}

impl Ladder {
    pub fn sizes(&self, r: Resource) -> &[f64] {
        match r {
            Resource::Cpu => &self.cpu_cores,
            Resource::Mem => &self.mem_gb,
            Resource::Gpu => &self.gpus,
        }
    }

    /// Number of choices for a resource, counting level 0.
    pub fn levels(&self, r: Resource) -> usize {
        self.sizes(r).len() + 1
    }

    pub fn amount(&self, r: Resource, level: usize) -> f64 {
        if level == 0 {
            0.0
        } else {
            self.sizes(r)[level - 1]
        }
    }

    /// The smallest non-zero size; what fragmentation measures free pieces against.
    pub fn smallest(&self, r: Resource) -> Option<f64> {
        self.sizes(r).first().copied()
    }

    /// The level in the middle of the ladder: the `static` policy's equal allocation and the
    /// reference against which resource adequacy is measured.
    pub fn middle_level(&self, r: Resource) -> usize {
        let n = self.sizes(r).len();
        if n == 0 { 0 } else { n.div_ceil(2) }
    }
}
