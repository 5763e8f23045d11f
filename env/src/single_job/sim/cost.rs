//! The cluster performance model: how long an iteration takes on an allocation, and how much
//! of the allocation it actually uses.
//!
//! - compute rate (GFLOP/s) = `speed x (1 - interference x background CPU share) x
//!   (effective_cores x cpu_gflops_per_core + gpus x gpu_gflops x saturation(batch))`
//! - effective cores follow Amdahl's law: `c / (1 + s (c - 1))` for `c >= 1` cores
//! - GPU saturation: `batch / (batch + gpu_half_batch)` (a small batch leaves the GPU idle)
//! - one transfer (pull or push) = `latency + model_mb x 8 / (1000 x bandwidth_gbps x
//!   bandwidth_scale)` seconds;
//!   a compressed push sends its share of `model_mb` (`compress.rs`); a ring all-reduce
//!   instead of pulls and pushes: see [`CostModel::ring_all_reduce_time`]
//! - memory: the batch lives in GPU memory (the GPU share times one GPU's memory) when the
//!   container has a GPU, otherwise in the container's memory, next to one model copy.

use crate::cluster::{Amounts, NodeSpec};
use crate::single_job::schema::{JobSpec, SimSpec};

#[derive(Debug, Clone)]
pub struct CostModel {
    pub sim: SimSpec,
    pub sample_gflop: f64,
    pub model_gb: f64,
    pub sample_gb: f64,
    pub model_mb: f64,
}

impl CostModel {
    pub fn new(sim: &SimSpec, job: &JobSpec) -> Self {
        CostModel {
            sim: sim.clone(),
            sample_gflop: job.sample_gflop,
            model_gb: job.model_mb / 1024.0,
            sample_gb: job.sample_mem_mb / 1024.0,
            model_mb: job.model_mb,
        }
    }

    pub fn effective_cores(&self, cores: f64) -> f64 {
        if cores <= 1.0 {
            cores
        } else {
            cores / (1.0 + self.sim.cpu_contention * (cores - 1.0))
        }
    }

    pub fn gpu_saturation(&self, batch: usize) -> f64 {
        batch as f64 / (batch as f64 + self.sim.gpu_half_batch)
    }

    /// Slowdown factor from other tenants' CPU load on the node.
    pub fn interference(&self, node: &NodeSpec, background_cpu: f64) -> f64 {
        (1.0 - self.sim.interference * (background_cpu / node.cpu_cores).clamp(0.0, 1.0)).max(0.05)
    }

    /// GFLOP/s of a container; `interference` from [`CostModel::interference`].
    pub fn rate(&self, node: &NodeSpec, alloc: &Amounts, batch: usize, interference: f64) -> f64 {
        let cpu = self.effective_cores(alloc[0]) * node.cpu_gflops_per_core;
        let gpu = alloc[2] * node.gpu_gflops * self.gpu_saturation(batch);
        node.speed * interference * (cpu + gpu)
    }

    /// Seconds for one pull or one uncompressed push.
    pub fn transfer_time(&self, node: &NodeSpec) -> f64 {
        self.message_time(node, 1.0)
    }

    /// A node's link, Gbit/s, under `sim.bandwidth_scale`.
    pub fn bandwidth_gbps(&self, node: &NodeSpec) -> f64 {
        node.bandwidth_gbps * self.sim.bandwidth_scale
    }

    /// Seconds for a message of `share` of the model's size.
    pub fn message_time(&self, node: &NodeSpec, share: f64) -> f64 {
        self.sim.latency_s + share * self.model_mb * 8.0 / (1000.0 * self.bandwidth_gbps(node))
    }

    /// Seconds of a bandwidth-optimal ring all-reduce of a message of `share` of the model's
    /// size among `members`: reduce-scatter then all-gather, `2 (N - 1)` rounds each sending
    /// `1 / N` of the message, paced by the slowest link:
    /// `2 (N - 1) latency + 2 (N - 1) / N x share x model_mb x 8 / (1000 x min bandwidth_gbps)`.
    pub fn ring_all_reduce_time(&self, members: &[&NodeSpec], share: f64) -> f64 {
        let n = members.len() as f64;
        if members.len() < 2 {
            return 0.0;
        }
        let slowest = members
            .iter()
            .map(|node| self.bandwidth_gbps(node))
            .fold(f64::INFINITY, f64::min);
        2.0 * (n - 1.0) * self.sim.latency_s
            + 2.0 * (n - 1.0) / n * share * self.model_mb * 8.0 / (1000.0 * slowest)
    }

    /// Largest batch the container's memory holds; 0 if not even the model fits.
    pub fn max_batch(&self, node: &NodeSpec, alloc: &Amounts) -> usize {
        let batch_memory = if alloc[2] > 0.0 {
            if alloc[1] < self.model_gb {
                return 0;
            }
            alloc[2] * node.gpu_mem_gb
        } else {
            alloc[1]
        };
        let room = batch_memory - self.model_gb;
        if room < self.sample_gb {
            0
        } else {
            (room / self.sample_gb).floor() as usize
        }
    }

    /// Host memory the worker occupies with a given batch.
    pub fn host_memory_gb(&self, alloc: &Amounts, batch: usize) -> f64 {
        let batch_part = if alloc[2] > 0.0 {
            0.0
        } else {
            batch as f64 * self.sample_gb
        };
        (self.model_gb + batch_part).min(alloc[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four nodes, one on a 1 Gbit/s link, a 100 MB model, 1 ms latency: 2 x 3 rounds of
    /// latency plus 2 x 3 / 4 of 800 Mbit on the slowest link: 0.006 + 1.2 s.
    #[test]
    fn ring_all_reduce_time_matches_a_hand_computed_case() {
        let job: JobSpec = toml::from_str(
            r#"model = "softmax"
optimizer = "sync_sgd"
lr = 0.1
base_batch = 8
target_loss = 0.1
sample_gflop = 1.0
model_mb = 100.0
sample_mem_mb = 1.0
[dataset]
format = "csv"
path = "x.csv"
task = "classification"
"#,
        )
        .unwrap();
        let sim = SimSpec {
            latency_s: 0.001,
            ..SimSpec::default()
        };
        let cost = CostModel::new(&sim, &job);
        let node = |gbps: f64| NodeSpec {
            name: "n".into(),
            count: 1,
            cpu_cores: 4.0,
            mem_gb: 8.0,
            gpus: 0,
            gpu_mem_gb: 0.0,
            speed: 1.0,
            bandwidth_gbps: gbps,
            cpu_gflops_per_core: 10.0,
            gpu_gflops: 0.0,
        };
        let nodes = [node(10.0), node(10.0), node(1.0), node(10.0)];
        let members: Vec<&NodeSpec> = nodes.iter().collect();
        assert!((cost.ring_all_reduce_time(&members, 1.0) - 1.206).abs() < 1e-12);
        // a quarter of the message (compressed): only the bandwidth term shrinks
        assert!((cost.ring_all_reduce_time(&members, 0.25) - (0.006 + 0.3)).abs() < 1e-12);
        assert_eq!(cost.ring_all_reduce_time(&members[..1], 1.0), 0.0);
    }
}
