//! Load from other tenants, as per-node step functions of virtual time.

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use super::{NodeSpec, TraceTask};

fn default_period() -> f64 {
    30.0
}
fn default_max_share() -> f64 {
    0.8
}
fn unit() -> f64 {
    1.0
}

/// Where background load comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case", deny_unknown_fields)]
pub enum BackgroundSpec {
    None,
    /// Per node and resource, an AR(1) process on the occupied share, redrawn every `period_s`:
    /// `x' = mean + phi (x - mean) + volatility * N(0,1)`, clipped to `[0, max_share]`.
    Stochastic {
        mean_share: f64,
        volatility: f64,
        #[serde(default = "default_phi")]
        phi: f64,
        #[serde(default = "default_period")]
        period_s: f64,
        #[serde(default = "default_max_share")]
        max_share: f64,
    },
    /// Alibaba cluster-trace v2018 batch tasks. Each task is put on a node chosen by a seeded
    /// hash of its job and task names and occupies `plan_cpu / 100 * cpu_scale` cores and
    /// `plan_mem / 100 * mem_scale` of the node's memory from `start_time` to `end_time`.
    /// `plan_cpu`/`plan_mem` are one instance's request; the slice has no per-instance times
    /// (the trace's `batch_instance` table), so a task counts as one request and `cpu_scale`
    /// sets the amplitude. Virtual time `t` maps to trace time `offset + t * time_scale`, the
    /// offset drawn per episode from the seed. Load above `max_share` of a node is clipped, and
    /// the clipped amount is reported (`Info::background_clipped`).
    Trace {
        path: String,
        #[serde(default = "unit")]
        cpu_scale: f64,
        #[serde(default = "unit")]
        mem_scale: f64,
        #[serde(default = "unit")]
        time_scale: f64,
        #[serde(default = "default_max_share")]
        max_share: f64,
    },
}

fn default_phi() -> f64 {
    0.8
}

/// A step function: `cpu[k]`, `mem[k]` hold on `[times[k], times[k+1])`; the last value holds
/// for ever. `times[0] == 0`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoadSeries {
    pub times: Vec<f64>,
    pub cpu: Vec<f64>,
    pub mem: Vec<f64>,
}

impl LoadSeries {
    fn flat() -> Self {
        LoadSeries {
            times: vec![0.0],
            cpu: vec![0.0],
            mem: vec![0.0],
        }
    }

    /// Index of the piece holding at `t`.
    fn piece(&self, t: f64) -> usize {
        self.times.partition_point(|&s| s <= t).saturating_sub(1)
    }

    /// `(duration, cpu, mem)` for each piece overlapping `[t0, t1)`.
    pub fn segments(&self, t0: f64, t1: f64) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
        let first = self.piece(t0);
        (first..self.times.len())
            .take_while(move |&k| self.times[k] < t1 || k == first)
            .map(move |k| {
                let a = self.times[k].max(t0);
                let b = self
                    .times
                    .get(k + 1)
                    .copied()
                    .unwrap_or(f64::INFINITY)
                    .min(t1);
                ((b - a).max(0.0), self.cpu[k], self.mem[k])
            })
    }

    /// Highest `(cpu, mem)` at any instant of `[t0, t1)`: what an allocation must leave room for.
    pub fn max_over(&self, t0: f64, t1: f64) -> (f64, f64) {
        self.segments(t0, t1)
            .fold((0.0, 0.0), |(c, m), (_, sc, sm)| (c.max(sc), m.max(sm)))
    }

    /// Time-average `(cpu, mem)` over `[t0, t1)`.
    pub fn mean_over(&self, t0: f64, t1: f64) -> (f64, f64) {
        let (c, m) = self
            .segments(t0, t1)
            .fold((0.0, 0.0), |(c, m), (dt, sc, sm)| {
                (c + dt * sc, m + dt * sm)
            });
        let span = (t1 - t0).max(1e-12);
        (c / span, m / span)
    }
}

/// One episode's background load: a series per node, plus what the trace mapping clipped.
#[derive(Debug, Clone, PartialEq)]
pub struct Background {
    pub nodes: Vec<LoadSeries>,
    /// Core-seconds and GB-seconds of trace load that did not fit under `max_share`.
    pub clipped: (f64, f64),
}

impl Background {
    /// Builds the series for `[0, horizon_s]` from the spec and the episode seed.
    pub fn generate(
        spec: &BackgroundSpec,
        trace: Option<&Arc<Vec<TraceTask>>>,
        nodes: &[NodeSpec],
        horizon_s: f64,
        seed: u64,
    ) -> Background {
        let mut rng = StdRng::seed_from_u64(seed);
        match spec {
            BackgroundSpec::None => Background {
                nodes: vec![LoadSeries::flat(); nodes.len()],
                clipped: (0.0, 0.0),
            },
            BackgroundSpec::Stochastic {
                mean_share,
                volatility,
                phi,
                period_s,
                max_share,
            } => {
                let steps = (horizon_s / period_s).ceil() as usize + 1;
                let series = nodes
                    .iter()
                    .map(|node| {
                        let mut share = [*mean_share; 2];
                        let mut s = LoadSeries::default();
                        for k in 0..steps {
                            for x in &mut share {
                                let noise: f64 = StandardNormal.sample(&mut rng);
                                *x = (mean_share + phi * (*x - mean_share) + volatility * noise)
                                    .clamp(0.0, *max_share);
                            }
                            s.times.push(k as f64 * period_s);
                            s.cpu.push(share[0] * node.cpu_cores);
                            s.mem.push(share[1] * node.mem_gb);
                        }
                        s
                    })
                    .collect();
                Background {
                    nodes: series,
                    clipped: (0.0, 0.0),
                }
            }
            BackgroundSpec::Trace {
                cpu_scale,
                mem_scale,
                time_scale,
                max_share,
                ..
            } => {
                let tasks = trace.expect("a trace background has its tasks loaded");
                let (lo, hi) = tasks.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
                    (lo.min(t.start), hi.max(t.end))
                });
                let window = horizon_s * time_scale;
                let offset = lo + rng.random_range(0.0..1.0) * (hi - lo - window).max(0.0);
                let salt: u64 = rng.random();
                map_trace(
                    tasks,
                    nodes,
                    offset,
                    *time_scale,
                    *cpu_scale,
                    *mem_scale,
                    *max_share,
                    window,
                    salt,
                )
            }
        }
    }
}

/// A stable, seeded node choice for a task (FNV-1a over its names, mixed with the salt).
pub fn hash_task(job: &str, task: &str, salt: u64) -> u64 {
    let mut h = 0xcbf29ce484222325u64 ^ salt;
    for b in job.bytes().chain([b'/']).chain(task.bytes()) {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    h
}

#[allow(clippy::too_many_arguments)]
fn map_trace(
    tasks: &[TraceTask],
    nodes: &[NodeSpec],
    offset: f64,
    time_scale: f64,
    cpu_scale: f64,
    mem_scale: f64,
    max_share: f64,
    window: f64,
    salt: u64,
) -> Background {
    let n = nodes.len();
    // (virtual time, +/- cpu, +/- mem) change points per node
    let mut changes: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); n];
    for task in tasks
        .iter()
        .filter(|t| t.end > offset && t.start < offset + window)
    {
        let node = (hash_task(&task.job, &task.name, salt) % n as u64) as usize;
        let start = ((task.start - offset) / time_scale).max(0.0);
        let end = (task.end - offset) / time_scale;
        let cpu = task.plan_cpu / 100.0 * cpu_scale;
        let mem = task.plan_mem / 100.0 * mem_scale * nodes[node].mem_gb;
        changes[node].push((start, cpu, mem));
        changes[node].push((end, -cpu, -mem));
    }
    let mut clipped = (0.0, 0.0);
    let horizon = window / time_scale;
    let series = changes
        .into_iter()
        .zip(nodes)
        .map(|(mut ch, node)| {
            ch.sort_by(|a, b| a.0.total_cmp(&b.0));
            let caps = (node.cpu_cores * max_share, node.mem_gb * max_share);
            let mut s = LoadSeries::flat();
            let mut raw = vec![(0.0f64, 0.0f64)];
            let (mut cpu, mut mem) = (0.0f64, 0.0f64);
            for (t, dc, dm) in ch {
                cpu += dc;
                mem += dm;
                let (c, m) = (cpu.max(0.0), mem.max(0.0));
                if s.times.last() != Some(&t) {
                    s.times.push(t);
                    s.cpu.push(0.0);
                    s.mem.push(0.0);
                    raw.push((0.0, 0.0));
                }
                *s.cpu.last_mut().unwrap() = c.min(caps.0);
                *s.mem.last_mut().unwrap() = m.min(caps.1);
                *raw.last_mut().unwrap() = (c, m);
            }
            for (k, (start, (raw_cpu, raw_mem))) in s.times.iter().zip(&raw).enumerate() {
                let end = s.times.get(k + 1).copied().unwrap_or(horizon).min(horizon);
                let dt = (end - start).max(0.0);
                clipped.0 += dt * (raw_cpu - s.cpu[k]);
                clipped.1 += dt * (raw_mem - s.mem[k]);
            }
            s
        })
        .collect::<Vec<_>>();
    Background {
        nodes: series,
        clipped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(cpu: f64, mem: f64) -> NodeSpec {
        toml::from_str(&format!(
            "name = \"n\"\ncpu_cores = {cpu}\nmem_gb = {mem}\nbandwidth_gbps = 1"
        ))
        .unwrap()
    }

    #[test]
    fn step_function_peaks_and_means_cover_partial_pieces() {
        let s = LoadSeries {
            times: vec![0.0, 10.0, 20.0],
            cpu: vec![1.0, 5.0, 2.0],
            mem: vec![0.0, 1.0, 3.0],
        };
        assert_eq!(s.max_over(0.0, 10.0), (1.0, 0.0));
        assert_eq!(s.max_over(5.0, 10.5), (5.0, 1.0));
        assert_eq!(s.max_over(25.0, 30.0), (2.0, 3.0));
        let (c, m) = s.mean_over(5.0, 15.0);
        assert!((c - 3.0).abs() < 1e-12 && (m - 0.5).abs() < 1e-12);
        let total: f64 = s.segments(5.0, 25.0).map(|(dt, _, _)| dt).sum();
        assert!((total - 20.0).abs() < 1e-12);
    }

    #[test]
    fn stochastic_load_stays_within_its_share_and_is_seeded() {
        let spec = BackgroundSpec::Stochastic {
            mean_share: 0.3,
            volatility: 0.3,
            phi: 0.5,
            period_s: 5.0,
            max_share: 0.6,
        };
        let nodes = vec![node(10.0, 40.0), node(4.0, 8.0)];
        let a = Background::generate(&spec, None, &nodes, 200.0, 1);
        assert_eq!(a, Background::generate(&spec, None, &nodes, 200.0, 1));
        assert_ne!(a, Background::generate(&spec, None, &nodes, 200.0, 2));
        for (series, n) in a.nodes.iter().zip(&nodes) {
            assert!(
                series
                    .cpu
                    .iter()
                    .all(|&c| (0.0..=0.6 * n.cpu_cores + 1e-9).contains(&c))
            );
            assert!(
                series
                    .mem
                    .iter()
                    .all(|&m| (0.0..=0.6 * n.mem_gb + 1e-9).contains(&m))
            );
        }
    }

    #[test]
    fn trace_load_is_placed_in_its_window_clipped_and_accounted() {
        let task = |name: &str, start: f64, end: f64| TraceTask {
            job: "j1".into(),
            name: name.into(),
            start,
            end,
            plan_cpu: 100.0,
            plan_mem: 10.0,
        };
        // one node: 3 cores of load between trace seconds 110 and 130; the cap is 2 cores
        let tasks = vec![
            task("M1", 110.0, 130.0),
            task("M2", 110.0, 130.0),
            task("R3_1_2", 115.0, 130.0),
            task("J4_3", 500.0, 600.0),
        ];
        let nodes = vec![node(4.0, 10.0)];
        let bg = map_trace(&tasks, &nodes, 100.0, 1.0, 1.0, 1.0, 0.5, 100.0, 0);
        let s = &bg.nodes[0];
        assert_eq!(s.max_over(0.0, 10.0), (0.0, 0.0));
        let (cpu, mem) = s.max_over(10.0, 30.0);
        assert_eq!(cpu, 2.0, "three cores of load capped at half of four");
        assert!(
            (mem - 3.0 * 0.1 * 10.0).abs() < 1e-9,
            "three tasks of 10% of 10 GB, got {mem}"
        );
        assert_eq!(
            s.max_over(30.0, 100.0),
            (0.0, 0.0),
            "j2 lies outside the window"
        );
        assert!(
            (bg.clipped.0 - 15.0).abs() < 1e-9,
            "1 core clipped for 15 s, got {:?}",
            bg.clipped
        );
    }
}
