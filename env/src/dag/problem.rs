//! One scheduling instance: tasks with their dependencies and data, compiled against a
//! platform into what every DAG scheduler reads (execution time of each task on each GPU,
//! transfer time of each edge between two GPUs, release times).

use std::fmt;

use super::platform::Platform;

/// A task of a DAG workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub name: String,
    /// Index of the DAG job it belongs to.
    pub job: usize,
    /// What it does (`M`, `R`, `J` in the Alibaba trace; `compute` in the generators): GPU
    /// types may run kinds at different speeds.
    pub kind: String,
    /// Seconds on a GPU of speed 1.
    pub work_s: f64,
    pub memory_gb: f64,
    /// Its job's arrival: it cannot start before.
    pub release_s: f64,
    /// Seconds on each GPU, replacing `work_s` over the speeds (the published examples give
    /// a cost matrix).
    pub times_s: Option<Vec<f64>>,
}

/// `from`'s output, `data_mb` megabytes, is an input of `to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub data_mb: f64,
}

/// Tasks and edges before compilation against a platform.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dag {
    pub tasks: Vec<Task>,
    pub edges: Vec<Edge>,
    /// Job names, indexed by `Task::job`.
    pub jobs: Vec<String>,
}

/// Why a DAG cannot be scheduled.
#[derive(Debug, Clone, PartialEq)]
pub enum DagError {
    Cycle(Vec<String>),
    Edge { index: usize, message: String },
    Task { name: String, message: String },
}

impl fmt::Display for DagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DagError::Cycle(names) => {
                write!(f, "the dependencies form a cycle: {}", names.join(" -> "))
            }
            DagError::Edge { index, message } => write!(f, "edge {index}: {message}"),
            DagError::Task { name, message } => write!(f, "task `{name}`: {message}"),
        }
    }
}

/// Each task's neighbours with the data on the edge, in one block (the decoder walks them
/// for every task of every plan).
#[derive(Debug, Clone)]
struct Adjacency {
    start: Vec<usize>,
    edges: Vec<(usize, f64)>,
}

impl Adjacency {
    fn new(lists: &[Vec<(usize, f64)>]) -> Self {
        let mut start = Vec::with_capacity(lists.len() + 1);
        let mut edges = Vec::new();
        for list in lists {
            start.push(edges.len());
            edges.extend_from_slice(list);
        }
        start.push(edges.len());
        Adjacency { start, edges }
    }
    #[inline]
    fn of(&self, task: usize) -> &[(usize, f64)] {
        &self.edges[self.start[task]..self.start[task + 1]]
    }
}

/// A DAG compiled against a platform: the form schedulers and the env read.
#[derive(Debug, Clone)]
pub struct Problem {
    pub tasks: Vec<Task>,
    pub jobs: Vec<String>,
    gpus: usize,
    /// `exec[task * gpus + gpu]`, infinite where the task does not fit the GPU's memory.
    exec: Vec<f64>,
    preds: Adjacency,
    succs: Adjacency,
    machine_of: Vec<usize>,
    /// Each task's release, apart from the tasks (read for every task of every plan).
    release: Vec<f64>,
    /// `per_mb_s[from * gpus + to]`: transfer seconds per megabyte.
    per_mb_s: Vec<f64>,
    mean_per_mb_s: f64,
}

/// Per task, its neighbours on one side with the megabytes between them.
type Neighbours = Vec<Vec<(usize, f64)>>;

/// Each task's predecessors and successors; an edge out of range, a self-loop, a bad size or
/// a repeated edge is refused by its index.
fn adjacency(dag: &Dag) -> Result<(Neighbours, Neighbours), DagError> {
    let n = dag.tasks.len();
    let mut preds = vec![Vec::new(); n];
    let mut succs = vec![Vec::new(); n];
    for (index, e) in dag.edges.iter().enumerate() {
        let bad = |message: String| Err(DagError::Edge { index, message });
        if e.from >= n || e.to >= n {
            return bad(format!(
                "{} -> {} names a task beyond the {n} tasks",
                e.from, e.to
            ));
        }
        if e.from == e.to {
            return Err(DagError::Cycle(vec![dag.tasks[e.from].name.clone(); 2]));
        }
        if !(e.data_mb.is_finite() && e.data_mb >= 0.0) {
            return bad(format!(
                "data {} MB is not a non-negative number",
                e.data_mb
            ));
        }
        if preds[e.to].iter().any(|&(p, _)| p == e.from) {
            return bad(format!(
                "{} -> {} is given twice",
                dag.tasks[e.from].name, dag.tasks[e.to].name
            ));
        }
        preds[e.to].push((e.from, e.data_mb));
        succs[e.from].push((e.to, e.data_mb));
    }
    Ok((preds, succs))
}

/// `exec[task * gpus + gpu]`: each task's seconds on each GPU (infinite where it does not
/// fit); a task with bad work, release, job or times, or fitting no GPU, is refused by name.
fn execution_times(dag: &Dag, platform: &Platform) -> Result<Vec<f64>, DagError> {
    let (n, gpus) = (dag.tasks.len(), platform.gpus());
    let mut exec = Vec::with_capacity(n * gpus);
    for task in &dag.tasks {
        let bad = |message: String| {
            Err(DagError::Task {
                name: task.name.clone(),
                message,
            })
        };
        if !(task.work_s.is_finite() && task.work_s > 0.0) {
            return bad(format!("work {} s is not a positive number", task.work_s));
        }
        if !(task.release_s.is_finite() && task.release_s >= 0.0) {
            return bad(format!(
                "release {} s is not a non-negative number",
                task.release_s
            ));
        }
        if task.job >= dag.jobs.len() {
            return bad(format!("job {} of {} jobs", task.job, dag.jobs.len()));
        }
        match &task.times_s {
            Some(times) if times.len() != gpus => {
                return bad(format!("{} times for {gpus} GPUs", times.len()));
            }
            Some(times) if times.iter().any(|t| !(t.is_finite() && *t > 0.0)) => {
                return bad(format!("times {times:?} must be positive numbers"));
            }
            _ => {}
        }
        for g in 0..gpus {
            let fits = task.memory_gb <= platform.memory_gb(g);
            exec.push(match (&task.times_s, fits) {
                (_, false) => f64::INFINITY,
                (Some(times), true) => times[g],
                (None, true) => task.work_s / platform.speed(g, &task.kind),
            });
        }
        if exec[exec.len() - gpus..].iter().all(|t| t.is_infinite()) {
            return bad(format!(
                "needs {} GB, more than any GPU holds ({} GB)",
                task.memory_gb,
                platform.largest_memory_gb()
            ));
        }
    }
    Ok(exec)
}

impl Problem {
    /// Checks the DAG (edges in range, positive finite work, no cycle, every task fitting
    /// some GPU) and compiles it.
    pub fn new(dag: Dag, platform: &Platform) -> Result<Problem, DagError> {
        let gpus = platform.gpus();
        let (preds, succs) = adjacency(&dag)?;
        let exec = execution_times(&dag, platform)?;
        let release = dag.tasks.iter().map(|t| t.release_s).collect();
        let problem = Problem {
            tasks: dag.tasks,
            jobs: dag.jobs,
            gpus,
            exec,
            preds: Adjacency::new(&preds),
            succs: Adjacency::new(&succs),
            machine_of: (0..gpus).map(|g| platform.machine_of(g)).collect(),
            release,
            per_mb_s: (0..gpus * gpus)
                .map(|i| platform.per_mb_s(i / gpus, i % gpus))
                .collect(),
            mean_per_mb_s: platform.mean_per_mb_s(),
        };
        problem.check_acyclic()?;
        Ok(problem)
    }

    /// The same problem with its tasks renumbered: task `k` of the result is task
    /// `order[k]` here. Played in the order `0..n`, a problem renumbered by its env order
    /// reads its tables front to back (the decoder's hot loop).
    pub fn renumbered(&self, order: &[usize]) -> Problem {
        let n = self.len();
        let mut new_index = vec![usize::MAX; n];
        for (k, &t) in order.iter().enumerate() {
            new_index[t] = k;
        }
        let relabel = |list: &[(usize, f64)]| -> Vec<(usize, f64)> {
            list.iter().map(|&(t, d)| (new_index[t], d)).collect()
        };
        let preds: Vec<_> = order.iter().map(|&t| relabel(self.preds(t))).collect();
        let succs: Vec<_> = order.iter().map(|&t| relabel(self.succs(t))).collect();
        Problem {
            tasks: order.iter().map(|&t| self.tasks[t].clone()).collect(),
            jobs: self.jobs.clone(),
            gpus: self.gpus,
            exec: order
                .iter()
                .flat_map(|&t| {
                    self.exec[t * self.gpus..(t + 1) * self.gpus]
                        .iter()
                        .copied()
                })
                .collect(),
            preds: Adjacency::new(&preds),
            succs: Adjacency::new(&succs),
            machine_of: self.machine_of.clone(),
            release: order.iter().map(|&t| self.release[t]).collect(),
            per_mb_s: self.per_mb_s.clone(),
            mean_per_mb_s: self.mean_per_mb_s,
        }
    }

    pub fn len(&self) -> usize {
        self.tasks.len()
    }
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }
    pub fn gpus(&self) -> usize {
        self.gpus
    }
    /// When `task`'s job arrives.
    #[inline]
    pub fn release_s(&self, task: usize) -> f64 {
        self.release[task]
    }
    /// Seconds `task` runs on `gpu` (infinite where it does not fit).
    #[inline]
    pub fn exec_s(&self, task: usize, gpu: usize) -> f64 {
        self.exec[task * self.gpus + gpu]
    }
    pub fn fits(&self, task: usize, gpu: usize) -> bool {
        self.exec_s(task, gpu).is_finite()
    }
    /// Parents with the megabytes each sends.
    #[inline]
    pub fn preds(&self, task: usize) -> &[(usize, f64)] {
        self.preds.of(task)
    }
    #[inline]
    pub fn succs(&self, task: usize) -> &[(usize, f64)] {
        self.succs.of(task)
    }
    pub fn machine_of(&self, gpu: usize) -> usize {
        self.machine_of[gpu]
    }
    /// Seconds to move `data_mb` from `from` to `to`: nothing on the same GPU.
    #[inline]
    pub fn transfer_s(&self, data_mb: f64, from: usize, to: usize) -> f64 {
        data_mb * self.per_mb_s[from * self.gpus + to]
    }
    /// [`Platform::mean_per_mb_s`].
    pub fn mean_per_mb_s(&self) -> f64 {
        self.mean_per_mb_s
    }

    /// Kahn's algorithm: the tasks in an order where every parent comes before its
    /// children, and each task's parents left unordered (above 0 only on or behind a cycle).
    pub(super) fn kahn(&self) -> (Vec<usize>, Vec<usize>) {
        let n = self.len();
        let mut indegree: Vec<usize> = (0..n).map(|t| self.preds(t).len()).collect();
        let mut order: Vec<usize> = (0..n).filter(|&t| indegree[t] == 0).collect();
        let mut next = 0;
        while next < order.len() {
            let t = order[next];
            next += 1;
            for &(s, _) in self.succs(t) {
                indegree[s] -= 1;
                if indegree[s] == 0 {
                    order.push(s);
                }
            }
        }
        (order, indegree)
    }

    /// Tasks left over by [`Self::kahn`] lie on or behind a cycle; one cycle among them is
    /// named.
    fn check_acyclic(&self) -> Result<(), DagError> {
        let n = self.len();
        let (order, indegree) = self.kahn();
        if order.len() == n {
            return Ok(());
        }
        // walk parents among the leftovers until a task repeats: that loop is a cycle
        let mut path = vec![(0..n).find(|&t| indegree[t] > 0).expect("a task is left")];
        loop {
            let last = *path.last().expect("path is never empty");
            let parent = self
                .preds(last)
                .iter()
                .map(|&(p, _)| p)
                .find(|&p| indegree[p] > 0)
                .expect("a leftover task has a leftover parent");
            if let Some(at) = path.iter().position(|&t| t == parent) {
                let name = |t: usize| self.tasks[t].name.clone();
                let mut cycle = vec![name(parent)];
                cycle.extend(path[at + 1..].iter().rev().map(|&t| name(t)));
                cycle.push(name(parent));
                return Err(DagError::Cycle(cycle));
            }
            path.push(parent);
        }
    }
}
