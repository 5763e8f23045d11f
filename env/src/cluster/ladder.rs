//! The ladder of container sizes a policy chooses from, per resource.

use serde::{Deserialize, Serialize};

use super::Resource;

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
