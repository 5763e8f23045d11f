//! Seeded DAG generators (named generators, not data) and the published 10-task example of
//! Topcuoglu, Hariri and Wu (2002, Fig. 2) with its cost matrix.

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use super::platform::{GpuType, MachineGroup, Platform, PlatformSpec};
use super::problem::{Dag, Edge, Task};

/// What every generated task draws from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskDraw {
    /// Seconds on a speed-1 GPU, uniform in `[low, high]`.
    #[serde(default = "default_work")]
    pub work_s: [f64; 2],
    /// GB, uniform in `[low, high]`.
    #[serde(default = "default_memory")]
    pub memory_gb: [f64; 2],
    /// Task kinds, drawn uniformly (GPU types may run them at different speeds).
    #[serde(default = "default_kinds")]
    pub kinds: Vec<String>,
}

fn default_work() -> [f64; 2] {
    [10.0, 100.0]
}
fn default_memory() -> [f64; 2] {
    [1.0, 12.0]
}
fn default_kinds() -> Vec<String> {
    vec!["compute".to_owned()]
}

impl Default for TaskDraw {
    fn default() -> Self {
        TaskDraw {
            work_s: default_work(),
            memory_gb: default_memory(),
            kinds: default_kinds(),
        }
    }
}

impl TaskDraw {
    fn task(&self, name: String, rng: &mut StdRng) -> Task {
        let uniform = |[low, high]: [f64; 2], rng: &mut StdRng| {
            if high > low {
                rng.random_range(low..=high)
            } else {
                low
            }
        };
        Task {
            name,
            job: 0,
            work_s: uniform(self.work_s, rng),
            memory_gb: uniform(self.memory_gb, rng),
            kind: self.kinds.choose(rng).expect("kinds are checked").clone(),
            release_s: 0.0,
            times_s: None,
        }
    }
}

/// Layered random DAG after Topcuoglu et al.'s generator: about `sqrt(tasks) / shape` layers
/// of about `shape * sqrt(tasks)` tasks; every task below the first layer has a parent in
/// the layer above and up to `max_parents - 1` more from any layer above. Edges carry no
/// data yet ([`set_edge_data`]).
pub fn layered(tasks: usize, shape: f64, max_parents: usize, draw: &TaskDraw, seed: u64) -> Dag {
    let mut rng = StdRng::seed_from_u64(seed);
    let layers = ((tasks as f64).sqrt() / shape)
        .round()
        .clamp(1.0, tasks as f64) as usize;
    // every layer gets one task, the rest fall uniformly
    let mut sizes = vec![1usize; layers];
    for _ in layers..tasks {
        sizes[rng.random_range(0..layers)] += 1;
    }
    let mut dag = single_job("layered");
    let mut layer_of = Vec::with_capacity(tasks);
    let mut first_of_layer = Vec::with_capacity(layers + 1);
    for (l, &size) in sizes.iter().enumerate() {
        first_of_layer.push(dag.tasks.len());
        for k in 0..size {
            let t = draw.task(format!("L{l}T{k}"), &mut rng);
            dag.tasks.push(t);
            layer_of.push(l);
        }
    }
    first_of_layer.push(tasks);
    for (t, &l) in layer_of.iter().enumerate().skip(first_of_layer[1]) {
        let mut parents = vec![rng.random_range(first_of_layer[l - 1]..first_of_layer[l])];
        let extra = rng.random_range(0..max_parents.max(1));
        for _ in 0..extra {
            let p = rng.random_range(0..first_of_layer[l]);
            if !parents.contains(&p) {
                parents.push(p);
            }
        }
        parents.sort_unstable();
        dag.edges.extend(parents.into_iter().map(|from| Edge {
            from,
            to: t,
            data_mb: 0.0,
        }));
    }
    dag
}

/// Fork-join stages: a task forks into `width` parallel tasks that join into the next
/// stage's fork, until `tasks` tasks exist (the last stage takes what is left).
pub fn fork_join(tasks: usize, width: usize, draw: &TaskDraw, seed: u64) -> Dag {
    let mut rng = StdRng::seed_from_u64(seed);
    let width = width.max(1);
    let mut dag = single_job("fork-join");
    dag.tasks.push(draw.task("F0".into(), &mut rng));
    let mut fork = 0;
    let mut stage = 0;
    while dag.tasks.len() < tasks {
        let left = tasks - dag.tasks.len();
        // a stage with room for a join after it, or everything left in parallel
        let parallel = if left > width + 1 {
            width
        } else {
            left.saturating_sub(1).max(1)
        };
        let first = dag.tasks.len();
        for k in 0..parallel {
            dag.tasks.push(draw.task(format!("S{stage}P{k}"), &mut rng));
            dag.edges.push(Edge {
                from: fork,
                to: first + k,
                data_mb: 0.0,
            });
        }
        if dag.tasks.len() < tasks {
            let join = dag.tasks.len();
            dag.tasks.push(draw.task(format!("S{stage}J"), &mut rng));
            dag.edges.extend((first..join).map(|p| Edge {
                from: p,
                to: join,
                data_mb: 0.0,
            }));
            fork = join;
        }
        stage += 1;
    }
    dag
}

fn single_job(name: &str) -> Dag {
    Dag {
        jobs: vec![name.to_owned()],
        ..Dag::default()
    }
}

/// The communication-to-computation ratio rule (a model: traces give no edge data): the
/// data on an edge is `ccr` times its parent's mean execution time over the platform, in
/// the megabytes that take that long at the platform's mean transfer rate, times a uniform
/// factor in `[0.5, 1.5]`.
pub fn set_edge_data(dag: &mut Dag, platform: &Platform, ccr: f64, rng: &mut StdRng) {
    let per_mb = platform.mean_per_mb_s();
    let inverse_speeds = |kind: &str| {
        (0..platform.gpus())
            .map(|g| 1.0 / platform.speed(g, kind))
            .sum::<f64>()
            / platform.gpus() as f64
    };
    for e in &mut dag.edges {
        let parent = &dag.tasks[e.from];
        let mean_exec = parent.work_s * inverse_speeds(&parent.kind);
        let factor: f64 = rng.random_range(0.5..=1.5);
        e.data_mb = if per_mb > 0.0 {
            ccr * mean_exec * factor / per_mb
        } else {
            0.0
        };
    }
}

/// Topcuoglu, Hariri and Wu (2002), Fig. 2: ten tasks on three processors, its cost matrix
/// and edge costs (as megabytes over 1 MB/s links between single-GPU machines). HEFT's
/// schedule is 80 long, CPOP's 86.
pub fn topcuoglu_example() -> (Dag, Platform) {
    const COSTS: [[f64; 3]; 10] = [
        [14.0, 16.0, 9.0],
        [13.0, 19.0, 18.0],
        [11.0, 13.0, 19.0],
        [13.0, 8.0, 17.0],
        [12.0, 13.0, 10.0],
        [13.0, 16.0, 9.0],
        [7.0, 15.0, 11.0],
        [5.0, 11.0, 14.0],
        [18.0, 12.0, 20.0],
        [21.0, 7.0, 16.0],
    ];
    const EDGES: [(usize, usize, f64); 15] = [
        (1, 2, 18.0),
        (1, 3, 12.0),
        (1, 4, 9.0),
        (1, 5, 11.0),
        (1, 6, 14.0),
        (2, 8, 19.0),
        (2, 9, 16.0),
        (3, 7, 23.0),
        (4, 8, 27.0),
        (4, 9, 23.0),
        (5, 9, 13.0),
        (6, 8, 15.0),
        (7, 10, 17.0),
        (8, 10, 11.0),
        (9, 10, 13.0),
    ];
    let mut dag = single_job("topcuoglu-2002");
    for (i, costs) in COSTS.iter().enumerate() {
        dag.tasks.push(Task {
            name: format!("n{}", i + 1),
            job: 0,
            kind: "compute".into(),
            work_s: costs.iter().sum::<f64>() / 3.0,
            memory_gb: 1.0,
            release_s: 0.0,
            times_s: Some(costs.to_vec()),
        });
    }
    dag.edges = EDGES
        .iter()
        .map(|&(from, to, data_mb)| Edge {
            from: from - 1,
            to: to - 1,
            data_mb,
        })
        .collect();
    let spec = PlatformSpec {
        intra_mbps: 1.0,
        inter_mbps: 1.0,
        gpu_types: vec![GpuType {
            name: "P".into(),
            memory_gb: 16.0,
            speed: 1.0,
            kind_speed: Default::default(),
        }],
        machines: vec![MachineGroup {
            gpu_type: "P".into(),
            gpus: 1,
            count: 3,
        }],
        pai: None,
        heterogeneity: 1.0,
    };
    let platform = spec
        .compile(std::path::Path::new("(built in)"))
        .expect("the example's platform is valid");
    (dag, platform)
}
