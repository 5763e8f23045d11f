//! Episode metrics (ARCHITECTURE.md, "Metrics"), accumulated round by round over
//! resource-seconds.

use crate::gym::columns::{Better, MetricColumn, column};
use serde::{Deserialize, Serialize};

/// The metrics of one episode. Exactly these names appear in JSON and tables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SingleJobMetrics {
    /// Virtual seconds until the validation loss reached the target; when it was not reached,
    /// the episode's length (a lower bound) and `target_reached` is false.
    pub completion_time_s: f64,
    pub rounds: usize,
    /// Parameter-server updates (one per applied gradient; one per step for synchronous SGD).
    pub iterations: u64,
    /// Validation loss at the end.
    pub final_loss: f64,
    pub target_reached: bool,
    /// GPU-seconds used / GPU-seconds allocated (0 when no GPU was allocated).
    pub gpu_util: f64,
    /// Effective core-seconds used / core-seconds allocated.
    pub cpu_util: f64,
    /// Allocated / capacity resource-seconds, averaged over the resources the cluster has.
    pub occupancy: f64,
    /// Free capacity stranded in pieces no container of the ladder can use, as a share of all
    /// free capacity (capacity-normalised over resources, time-integrated). A node's free CPU
    /// and memory are stranded while they cannot hold the smallest CPU and memory sizes
    /// together; its free GPU share is stranded then too, or when below the smallest GPU size.
    /// Free means capacity minus background load minus the job's allocation.
    pub fragmentation: f64,
    /// Price of allocated-but-unused resource-seconds (workload `prices`, per hour).
    pub idle_cost: f64,
    /// Bits the workers sent (models pulled at 32 a parameter, gradients pushed as
    /// `job.compression` encodes them), in all and per node.
    pub bits_sent: f64,
    pub bits_per_worker: f64,
    /// Sum of the rewards.
    pub episode_return: f64,
}

impl crate::gym::EpisodeSummary for SingleJobMetrics {
    const COLUMNS: &'static [MetricColumn<Self>] = &COLUMNS;

    fn episode_return(&self) -> f64 {
        self.episode_return
    }
    fn curves(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("completion_time_s", self.completion_time_s),
            ("episodic_return", self.episode_return),
            ("idle_cost", self.idle_cost),
            ("gpu_util", self.gpu_util),
        ]
    }
}

/// Running sums from which [`SingleJobMetrics`] are derived.
#[derive(Debug, Clone, Default)]
pub(crate) struct MetricSums {
    pub allocated: [f64; 3],
    pub used: [f64; 3],
    pub capacity: [f64; 3],
    pub free: [f64; 3],
    pub stranded: [f64; 3],
    pub idle_cost: f64,
    pub episode_return: f64,
}

impl MetricSums {
    /// Adds one round's resource-seconds and idle cost (not its return).
    pub fn add(&mut self, round: &MetricSums) {
        for r in 0..3 {
            self.allocated[r] += round.allocated[r];
            self.used[r] += round.used[r];
            self.capacity[r] += round.capacity[r];
            self.free[r] += round.free[r];
            self.stranded[r] += round.stranded[r];
        }
        self.idle_cost += round.idle_cost;
    }

    fn share(num: f64, den: f64) -> f64 {
        if den > 0.0 { num / den } else { 0.0 }
    }

    fn priced(prices: &[f64; 3], amounts: &[f64; 3]) -> f64 {
        (0..3).map(|r| prices[r] * amounts[r]).sum()
    }

    /// Idle cost over the price of the whole cluster's capacity, in [0, 1].
    pub fn cluster_idle_share(&self, prices: &[f64; 3]) -> f64 {
        Self::share(self.idle_cost, Self::priced(prices, &self.capacity))
    }

    /// Idle cost over the price of what was held: one minus the price-weighted utilisation.
    pub fn held_idle_share(&self, prices: &[f64; 3]) -> f64 {
        Self::share(self.idle_cost, Self::priced(prices, &self.allocated))
    }

    pub fn gpu_util(&self) -> f64 {
        Self::share(self.used[2], self.allocated[2])
    }

    pub fn cpu_util(&self) -> f64 {
        Self::share(self.used[0], self.allocated[0])
    }

    pub fn occupancy(&self) -> f64 {
        let present: Vec<usize> = (0..3).filter(|&r| self.capacity[r] > 0.0).collect();
        present
            .iter()
            .map(|&r| self.allocated[r] / self.capacity[r])
            .sum::<f64>()
            / present.len().max(1) as f64
    }

    pub fn fragmentation(&self) -> f64 {
        let normalised = |v: &[f64; 3]| -> f64 {
            (0..3)
                .filter(|&r| self.capacity[r] > 0.0)
                .map(|r| v[r] / self.capacity[r])
                .sum()
        };
        Self::share(normalised(&self.stranded), normalised(&self.free))
    }
}

/// Every SingleJobMetrics figure, in the order of its fields (and of its JSON).
const COLUMNS: [MetricColumn<SingleJobMetrics>; 13] = [
    column(
        "completion_time_s",
        |m| m.completion_time_s,
        1,
        Better::Lower,
    ),
    column("rounds", |m| m.rounds as f64, 0, Better::Lower),
    column("iterations", |m| m.iterations as f64, 0, Better::Lower),
    column("final_loss", |m| m.final_loss, 4, Better::Lower),
    column(
        "target_reached",
        |m: &SingleJobMetrics| f64::from(u8::from(m.target_reached)),
        2,
        Better::Higher,
    )
    .as_flag(),
    column("gpu_util", |m| m.gpu_util, 3, Better::Higher),
    column("cpu_util", |m| m.cpu_util, 3, Better::Higher),
    column("occupancy", |m| m.occupancy, 3, Better::Neither),
    column("fragmentation", |m| m.fragmentation, 3, Better::Lower),
    column("idle_cost", |m| m.idle_cost, 4, Better::Lower),
    column("bits_sent", |m| m.bits_sent, 0, Better::Lower),
    column("bits_per_worker", |m| m.bits_per_worker, 0, Better::Lower),
    column("episode_return", |m| m.episode_return, 3, Better::Higher),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragmentation_is_capacity_normalised() {
        // 100 core-s and 400 GB-s capacity; half the free CPU stranded, no free memory stranded
        let sums = MetricSums {
            capacity: [100.0, 400.0, 0.0],
            free: [40.0, 160.0, 0.0],
            stranded: [20.0, 0.0, 0.0],
            ..Default::default()
        };
        // (20/100) / (40/100 + 160/400) = 0.2 / 0.8
        assert!((sums.fragmentation() - 0.25).abs() < 1e-12);
        assert_eq!(MetricSums::default().fragmentation(), 0.0);
    }

    #[test]
    fn utilisation_is_zero_without_allocation() {
        let sums = MetricSums {
            used: [0.0; 3],
            allocated: [10.0, 0.0, 0.0],
            ..Default::default()
        };
        assert_eq!(sums.gpu_util(), 0.0);
        assert_eq!(sums.cpu_util(), 0.0);
    }
}
