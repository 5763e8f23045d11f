//! Calibration: the simulator's performance constants fitted to the pushes measured on real
//! processes, so that the simulator times an iteration as the machine did.
//!
//! Per push the simulator's delay (pull, compute, push) is `A x + 2 L + beta y`, with
//! `x = sample_gflop b / rate(alloc, b; s, h, i)` the modelled compute (`sim/cost.rs`: Amdahl's
//! serial fraction `s`, GPU half-saturation batch `h`, interference `i`), `L` the latency and
//! `y = 2 model_mb 8 / (1000 bw)` the transfers at the workload's bandwidth (`beta` =
//! 1 / `bandwidth_scale`). The fit takes `(s, h, i)` from a grid and `(A, L, beta)` by least
//! squares on relative errors (every node weighing the same) for each, keeping the best. The
//! real delay counts from the end of
//! the worker's previous iteration, so a quota's throttled waits are in it. The spread of
//! log(measured / fitted compute) becomes the simulator's straggler jitter, and `A` is divided
//! by the jitter's mean so that the simulator's mean iteration stays the fitted one.

use schedlab_env::cluster::NodeSpec;
use schedlab_env::single_job::PushRecord;
use schedlab_env::single_job::sim::CostModel;
use serde::Serialize;

/// The fitted constants, as workload settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    /// Measured over modelled compute time: multiplies `job.sample_gflop`.
    pub compute_scale: f64,
    pub cpu_contention: f64,
    pub gpu_half_batch: f64,
    pub interference: f64,
    pub latency_s: f64,
    pub bandwidth_scale: f64,
    /// Spread of log(measured / fitted) compute times.
    pub straggler_sigma: f64,
    /// Pushes the fit read.
    pub pushes: usize,
}

impl Calibration {
    /// `--set` pairs that make a workload's simulator this calibration's (`sample_gflop` the
    /// workload's own, scaled).
    pub fn overrides(&self, sample_gflop: f64) -> Vec<(String, String)> {
        [
            ("job.sample_gflop", sample_gflop * self.compute_scale),
            ("sim.cpu_contention", self.cpu_contention),
            ("sim.gpu_half_batch", self.gpu_half_batch),
            ("sim.interference", self.interference),
            ("sim.latency_s", self.latency_s),
            ("sim.bandwidth_scale", self.bandwidth_scale),
            ("sim.straggler_sigma", self.straggler_sigma),
            ("sim.straggler_prob", 0.0),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), format!("{v:e}")))
        .collect()
    }
}

/// The grid the nonlinear constants are taken from.
const CONTENTION: [f64; 21] = grid(0.0, 0.01);
const HALF_BATCH: [f64; 21] = grid(0.0, 4.0);
const INTERFERENCE: [f64; 21] = grid(0.0, 0.05);
/// The least `beta` (1 / bandwidth_scale): a link a million times the workload's.
const MIN_BETA: f64 = 1e-6;

const fn grid(start: f64, step: f64) -> [f64; 21] {
    let mut values = [0.0; 21];
    let mut i = 0;
    while i < 21 {
        values[i] = start + step * i as f64;
        i += 1;
    }
    values
}

/// One push as the fit reads it: modelled compute `x` (at `A = 1`), transfers `y` (at
/// `beta = 1`), measured delay.
#[derive(Clone, Copy)]
struct Row {
    x: f64,
    y: f64,
    delay: f64,
    /// `1 / delay^2` (relative errors) over the node's count of pushes: every node weighs the
    /// same in the fit however many pushes it made, as HB-ASGD's batches follow every node.
    weight: f64,
}

/// `(A, L, beta)` and the sum of squared relative errors.
type Linear = ([f64; 3], f64);

/// Fits the constants to `pushes` measured on `nodes` for a job described by `cost`.
pub fn fit(cost: &CostModel, nodes: &[NodeSpec], pushes: &[PushRecord]) -> anyhow::Result<Calibration> {
    let usable: Vec<&PushRecord> = pushes
        .iter()
        .filter(|p| p.delay_s > 0.0 && p.batch > 0 && p.node < nodes.len())
        .collect();
    anyhow::ensure!(
        usable.len() >= 10,
        "calibration needs at least 10 measured pushes, got {}",
        usable.len()
    );
    let mut model = cost.clone();
    let mut per_node = vec![0usize; nodes.len()];
    for p in &usable {
        per_node[p.node] += 1;
    }
    let mut rows = vec![
        Row {
            x: 0.0,
            y: 0.0,
            delay: 0.0,
            weight: 0.0,
        };
        usable.len()
    ];
    let mut best: Option<([f64; 3], Linear)> = None;
    for &s in &CONTENTION {
        for &h in &HALF_BATCH {
            for &i in &INTERFERENCE {
                model.sim.cpu_contention = s;
                model.sim.gpu_half_batch = h;
                model.sim.interference = i;
                for (row, p) in rows.iter_mut().zip(&usable) {
                    *row = row_of(&model, nodes, p, per_node[p.node]);
                }
                let linear = fit_linear(&rows);
                if best.is_none_or(|(_, (_, b))| linear.1 < b - 1e-12) {
                    best = Some(([s, h, i], linear));
                }
            }
        }
    }
    let ([s, h, i], ([scale, latency_s, beta], _)) = best.expect("the grid is not empty");
    model.sim.cpu_contention = s;
    model.sim.gpu_half_batch = h;
    model.sim.interference = i;
    let logs: Vec<f64> = usable
        .iter()
        .map(|p| row_of(&model, nodes, p, per_node[p.node]))
        .filter_map(|r| {
            let compute = r.delay - 2.0 * latency_s - beta * r.y;
            (compute > 0.0).then(|| (compute / (scale * r.x)).ln())
        })
        .collect();
    let mean = logs.iter().sum::<f64>() / logs.len().max(1) as f64;
    let variance = logs.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / logs.len().max(1) as f64;
    Ok(Calibration {
        // the simulator's jitter exp(sigma N) has mean exp(sigma^2 / 2)
        compute_scale: scale * (-variance / 2.0).exp(),
        cpu_contention: s,
        gpu_half_batch: h,
        interference: i,
        latency_s,
        bandwidth_scale: 1.0 / beta,
        straggler_sigma: variance.sqrt(),
        pushes: usable.len(),
    })
}

fn row_of(model: &CostModel, nodes: &[NodeSpec], p: &PushRecord, node_pushes: usize) -> Row {
    let node = &nodes[p.node];
    let interference = model.interference(node, p.background_share * node.cpu_cores);
    let rate = model.rate(node, &p.alloc, p.batch, interference);
    Row {
        x: model.sample_gflop * p.batch as f64 / rate.max(f64::MIN_POSITIVE),
        y: 2.0 * model.model_mb * 8.0 / (1000.0 * node.bandwidth_gbps),
        delay: p.delay_s,
        weight: 1.0 / (p.delay_s * p.delay_s * node_pushes.max(1) as f64),
    }
}

/// `delay = A x + 2 L + beta y` by least squares on relative errors, `A > 0`, `L >= 0`,
/// `beta >= MIN_BETA`: every subset of the constraints made binding is tried, and the best
/// feasible fit kept.
fn fit_linear(rows: &[Row]) -> Linear {
    let mut best: Option<Linear> = None;
    for (free_latency, free_beta) in [(true, true), (false, true), (true, false), (false, false)] {
        let columns = |r: &Row| {
            let mut c = vec![r.x];
            if free_latency {
                c.push(2.0);
            }
            if free_beta {
                c.push(r.y);
            }
            c
        };
        // the fixed beta's part moves to the left-hand side
        let target = |r: &Row| r.delay - if free_beta { 0.0 } else { MIN_BETA * r.y };
        let Some(solution) = weighted_least_squares(rows, &columns, &target) else {
            continue;
        };
        let mut it = solution.into_iter();
        let a = it.next().unwrap_or(0.0);
        let latency = if free_latency { it.next().unwrap_or(0.0) } else { 0.0 };
        let beta = if free_beta { it.next().unwrap_or(0.0) } else { MIN_BETA };
        if a <= 0.0 || latency < 0.0 || beta < MIN_BETA {
            continue;
        }
        let residual = rows
            .iter()
            .map(|r| r.weight * (a * r.x + 2.0 * latency + beta * r.y - r.delay).powi(2))
            .sum();
        if best.is_none_or(|(_, b)| residual < b) {
            best = Some(([a, latency, beta], residual));
        }
    }
    best.unwrap_or(([1.0, 0.0, MIN_BETA], f64::INFINITY))
}

/// Least squares of `target` on `columns`, each row by its weight; `None` where
/// the normal equations are singular.
fn weighted_least_squares(
    rows: &[Row],
    columns: &dyn Fn(&Row) -> Vec<f64>,
    target: &dyn Fn(&Row) -> f64,
) -> Option<Vec<f64>> {
    let n = columns(&rows[0]).len();
    let mut normal = vec![vec![0.0; n + 1]; n];
    for r in rows {
        let c = columns(r);
        let w = r.weight;
        let t = target(r);
        for i in 0..n {
            for j in 0..n {
                normal[i][j] += w * c[i] * c[j];
            }
            normal[i][n] += w * c[i] * t;
        }
    }
    solve(normal)
}

/// Gauss-Jordan elimination with partial pivoting on an augmented `n x (n + 1)` system.
fn solve(mut m: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let n = m.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        let scale = m[pivot][col].abs();
        if scale < 1e-300 || !scale.is_finite() {
            return None;
        }
        m.swap(col, pivot);
        for row in 0..n {
            if row != col {
                let factor = m[row][col] / m[col][col];
                for k in col..=n {
                    m[row][k] -= factor * m[col][k];
                }
            }
        }
    }
    Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, cores: f64, gpus: f64, speed: f64, bandwidth: f64) -> NodeSpec {
        NodeSpec {
            name: name.into(),
            count: 1,
            cpu_cores: cores,
            mem_gb: 64.0,
            gpus,
            gpu_mem_gb: if gpus > 0.0 { 16.0 } else { 0.0 },
            speed,
            bandwidth_gbps: bandwidth,
            cpu_gflops_per_core: 20.0,
            gpu_gflops: if gpus > 0.0 { 3000.0 } else { 0.0 },
        }
    }

    fn cost() -> CostModel {
        let job: schedlab_env::single_job::workload::JobSpec = toml::from_str(
            r#"model = "softmax"
optimizer = "hb_asgd"
lr = 0.1
base_batch = 32
target_loss = 0.1
sample_gflop = 5.0
model_mb = 45.0
sample_mem_mb = 60.0
[dataset]
format = "csv"
path = "x.csv"
task = "classification"
"#,
        )
        .unwrap();
        CostModel::new(&Default::default(), &job)
    }

    /// Pushes made by a simulator with known constants (no jitter) give those constants back.
    #[test]
    fn calibration_recovers_known_constants_from_synthetic_pushes() {
        let nodes = vec![
            node("gpu", 16.0, 1.0, 1.0, 25.0),
            node("cpu", 32.0, 0.0, 1.2, 10.0),
            node("small", 8.0, 0.0, 0.7, 5.0),
        ];
        let mut truth = cost();
        truth.sim.cpu_contention = 0.07;
        truth.sim.gpu_half_batch = 24.0;
        truth.sim.interference = 0.35;
        truth.sim.latency_s = 0.004;
        truth.sim.bandwidth_scale = 0.5;
        let scale = 1.7;
        let mut pushes = Vec::new();
        for (k, (n, cpu, gpu)) in [(0, 2.0, 0.5), (0, 8.0, 1.0), (1, 4.0, 0.0), (1, 16.0, 0.0), (2, 2.0, 0.0), (2, 8.0, 0.0)]
            .into_iter()
            .enumerate()
        {
            for (j, batch) in [4usize, 16, 32, 64].into_iter().enumerate() {
                let share = 0.1 * ((k + j) % 5) as f64;
                let mut p = PushRecord {
                    node: n,
                    alloc: [cpu, 16.0, gpu],
                    batch,
                    background_share: share,
                    compute_s: 0.0,
                    delay_s: 0.0,
                };
                p.compute_s = scale * row_of(&truth, &nodes, &p, 1).x;
                p.delay_s = p.compute_s + 2.0 * truth.transfer_time(&nodes[n]);
                pushes.push(p);
            }
        }
        let fitted = fit(&cost(), &nodes, &pushes).unwrap();
        assert!((fitted.compute_scale - scale).abs() < 1e-6 * scale, "{fitted:?}");
        assert!((fitted.cpu_contention - 0.07).abs() < 1e-9, "{fitted:?}");
        assert!((fitted.gpu_half_batch - 24.0).abs() < 1e-9, "{fitted:?}");
        assert!((fitted.interference - 0.35).abs() < 1e-9, "{fitted:?}");
        assert!((fitted.latency_s - 0.004).abs() < 1e-8, "{fitted:?}");
        assert!((fitted.bandwidth_scale - 0.5).abs() < 1e-6, "{fitted:?}");
        assert!(fitted.straggler_sigma < 1e-6, "{fitted:?}");
        assert_eq!(fitted.pushes, pushes.len());
    }

    #[test]
    fn too_few_pushes_are_refused() {
        let nodes = vec![node("gpu", 16.0, 1.0, 1.0, 25.0)];
        let err = fit(&cost(), &nodes, &[]).unwrap_err().to_string();
        assert!(err.contains("at least 10"), "{err}");
    }
}
