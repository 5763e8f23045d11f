//! A node type as a workload file declares it, with the defaults of its optional keys.

use serde::{Deserialize, Serialize};

use super::Amounts;

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
