//! The single-job episode on real processes (`execution = "real"`, docs/real-execution.md).
//!
//! Each node of the workload is a control group with a `job` group holding its worker and a
//! `background` group holding a CPU-burning tenant. The env's allocation becomes CPU quotas
//! and memory limits, written live while the workers run. A worker pulls the parameters over
//! loopback TCP, computes a real gradient on its shard, burns the CPU time that the
//! iteration's virtual compute stands for, and pushes; this server applies the push with the
//! job's optimiser (HB-ASGD's rules shared with the simulator, `sim/rules.rs`).
//!
//! The mapping, one constant `k` (real cores per virtual GFLOP/s): a container of `c` cores
//! and `g` GPUs on a node of speed `s` gets `k s (c cpu_gflops_per_core + g gpu_gflops)` real
//! cores (the GPU emulated as extra CPU quota), and an iteration of batch `b` burns
//! `k time_scale sample_gflop b` CPU seconds, so that at full quota it lasts `time_scale`
//! times its virtual compute time at the node's nominal rate. `k` shares `real.cores` out
//! over the cluster's full capacity. Amdahl's law, GPU saturation and interference are not
//! emulated: what the machine does instead is what the simulator's error measures.

pub(crate) mod connect;
pub(crate) mod messages;
pub mod worker;

use std::net::TcpStream;
use std::process::Child;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;

use self::connect::{StartFailure, WorkerListener};
use self::messages::{FromWorker, ToWorker};
use super::scenario::Scenario;
use super::sim::{Applied, CostModel, Server, WorkerRound, rules};
use super::training::{PushRecord, Training};
use super::workload::{OptimizerKind, Topology};
use crate::cluster::{Amounts, NodeSpec};
use crate::error::{EnvError, Result};
use crate::real::cgroup::{Group, Hierarchy, LiveCpuGroup};
use crate::real::wire::{receive, send};
use crate::real::{RealSpec, process};

/// The least CPU quota the kernel takes (1 ms per 1 s period): a background tenant's with no
/// load.
const LEAST_CORES: f64 = 0.001;

/// The groups of a node.
struct NodeGroups {
    node: Group,
    job: LiveCpuGroup,
    background: LiveCpuGroup,
}

struct RealWorker {
    alloc: Amounts,
    running: bool,
    max_batch: usize,
    background_share: f64,
    /// Bumped when the container goes or shrinks below the batch in flight: that push is void.
    epoch: u64,
    last_base_time: Option<f64>,
    /// When the iteration in flight began, virtual seconds: the arrival of the worker's
    /// previous push when it went on without waiting for a container (throttled waits
    /// between iterations count, as they slow it down), else the reply to its pull.
    pulled: Option<f64>,
    last_arrival: Option<f64>,
    round: WorkerRound,
}

struct Shared {
    server: Server,
    workers: Vec<RealWorker>,
    lr_factor: f64,
    val_loss: f64,
    evaluated_version: u64,
    evaluated_at: f64,
    validations: u64,
    completed_at: Option<f64>,
    failure: Option<String>,
    bits_sent: u64,
    pushes: Vec<PushRecord>,
    stopping: bool,
    /// Virtual time zero: when the first allocation was written, as in the simulator.
    started: Option<Instant>,
}

impl Shared {
    fn virtual_now(&self, time_scale: f64) -> f64 {
        self.started
            .map_or(0.0, |s| s.elapsed().as_secs_f64() / time_scale)
    }
}

/// What every connection thread reads.
struct Context {
    scenario: Arc<Scenario>,
    state: Mutex<Shared>,
    changed: Condvar,
    cost: CostModel,
    time_scale: f64,
    /// Real cores per virtual GFLOP/s.
    k: f64,
}

impl Context {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A single-job episode on real processes.
pub struct RealTraining {
    context: Arc<Context>,
    spec: RealSpec,
    tag: u64,
    nodes: Vec<NodeGroups>,
    children: Vec<Child>,
    tenants: Vec<Child>,
    threads: Vec<JoinHandle<()>>,
    now: f64,
    round_started: f64,
    initial_loss: f64,
    finished: bool,
    _turn: crate::real::Turn,
}

impl RealTraining {
    /// Starts the run: groups, workers and tenants, the workers connected and their data
    /// loaded. The clock starts with the first allocation.
    pub fn start(scenario: Arc<Scenario>, seed: u64) -> Result<RealTraining> {
        check_supported(&scenario)?;
        let spec = scenario.workload.real.clone();
        let turn = crate::real::Turn::take();
        let hierarchy = Hierarchy::detect(spec.cgroup_root.as_deref())?;
        let tag = crate::real::next_run_tag();
        let run = hierarchy.create_run(tag)?;
        let k = cores_per_rate(&scenario.nodes, spec.cores());
        let made = make_node_groups(&run, &scenario.nodes, spec.mem_mb_per_gb);
        crate::real::register(tag, run);
        let nodes = match made {
            Ok(nodes) => nodes,
            Err(e) => {
                crate::real::remove_run(tag)?;
                return Err(e);
            }
        };
        let mut rng = StdRng::seed_from_u64(seed);
        let params = scenario.model.init_params(&mut rng);
        let initial_loss = scenario.initial_loss(&params);
        let shared = Shared {
            server: Server::new(params, &scenario.workload.job),
            workers: scenario.nodes.iter().map(|_| idle_worker()).collect(),
            lr_factor: 1.0,
            val_loss: initial_loss,
            evaluated_version: 0,
            evaluated_at: 0.0,
            validations: 0,
            completed_at: None,
            failure: None,
            bits_sent: 0,
            pushes: Vec::new(),
            stopping: false,
            started: None,
        };
        let cost = CostModel::new(&scenario.workload.sim, &scenario.workload.job);
        let context = Arc::new(Context {
            time_scale: spec.time_scale,
            scenario,
            state: Mutex::new(shared),
            changed: Condvar::new(),
            cost,
            k,
        });
        let mut training = RealTraining {
            context,
            spec,
            tag,
            nodes,
            children: Vec::new(),
            tenants: Vec::new(),
            threads: Vec::new(),
            now: 0.0,
            round_started: 0.0,
            initial_loss,
            finished: false,
            _turn: turn,
        };
        if let Err(e) = training.launch(seed) {
            training.finish()?;
            return Err(e);
        }
        Ok(training)
    }

    /// Starts tenants and workers with no CPU limit (a slice of a core would take seconds to
    /// load the binary and the data), connects and sets up the workers, waits for every
    /// tenant to start, then sets every node's limits and starts the clock and the tenants.
    fn launch(&mut self, seed: u64) -> Result<()> {
        let listener = WorkerListener::bind()?;
        let nodes = self.context.scenario.nodes.len();
        for n in 0..nodes {
            let tenant = process::spawn(&["--role".into(), "tenant".into()], true)?;
            self.nodes[n].background.add(tenant.id())?;
            self.tenants.push(tenant);
            let worker = listener.spawn_worker(n)?;
            self.nodes[n].job.add(worker.id())?;
            self.children.push(worker);
        }
        let scenario = Arc::clone(&self.context.scenario);
        let connected = listener.connect(
            nodes,
            (&scenario, seed),
            || self.check_children_alive(),
            || false,
        );
        let streams = match connected {
            Ok(streams) => streams.expect("a single job's start is never stopped"),
            Err(StartFailure::Connecting(message)) => return Err(real_error(message)),
            Err(StartFailure::Worker { index, error }) => {
                return Err(real_error(format!(
                    "the worker of node {index} ({}) went away at the start: {error}",
                    scenario.nodes[index].name
                )));
            }
        };
        for tenant in &mut self.tenants {
            process::await_tenant(tenant)?;
        }
        let k = self.context.k;
        for (groups, node) in self.nodes.iter_mut().zip(&self.context.scenario.nodes) {
            groups
                .node
                .set_cpu(Some(k * rules::nominal_rate(node, &node.capacity())))?;
            groups.background.set_cpu(Some(LEAST_CORES))?;
        }
        for tenant in &mut self.tenants {
            process::start_tenant(tenant)?;
        }
        for (index, stream) in streams.into_iter().enumerate() {
            let context = Arc::clone(&self.context);
            self.threads
                .push(std::thread::spawn(move || serve(&context, index, stream)));
        }
        Ok(())
    }

    fn check_children_alive(&mut self) -> std::result::Result<(), StartFailure> {
        for child in self.children.iter_mut().chain(&mut self.tenants) {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(StartFailure::Connecting(format!(
                    "a real process ({}) exited at the start: {status}; run `schedlab real-process --help` to check the binary",
                    child.id()
                )));
            }
        }
        Ok(())
    }

    /// Writes node `n`'s limits: the container's, where it runs (a worker without one waits
    /// at the server, and its group keeps the last limit, under which an iteration in flight
    /// ends and is discarded), and the tenant's.
    fn write_quotas(&mut self, n: usize, worker: &RealWorker, background_cpu: f64) -> Result<()> {
        let node = &self.context.scenario.nodes[n];
        let groups = &mut self.nodes[n];
        if worker.running {
            groups.job.set_cpu(Some(
                self.context.k * rules::nominal_rate(node, &worker.alloc),
            ))?;
            groups
                .job
                .outer()
                .set_memory(mebibytes(worker.alloc[1], self.spec.mem_mb_per_gb))?;
        }
        let tenant = self.context.k * rules::nominal_rate(node, &[background_cpu, 0.0, 0.0]);
        groups.background.set_cpu(Some(tenant.max(LEAST_CORES)))
    }
}

impl Training for RealTraining {
    fn now(&self) -> f64 {
        self.now
    }
    fn iterations(&self) -> u64 {
        self.context.lock().server.version
    }
    fn val_loss(&self) -> f64 {
        self.context.lock().val_loss
    }
    fn initial_loss(&self) -> f64 {
        self.initial_loss
    }
    fn lr_factor(&self) -> f64 {
        self.context.lock().lr_factor
    }
    fn validations(&self) -> u64 {
        self.context.lock().validations
    }
    fn bits_sent(&self) -> u64 {
        self.context.lock().bits_sent
    }

    fn set_allocation(
        &mut self,
        alloc: &[Amounts],
        background_cpu: &[f64],
        // the tenants' real load is what interferes here, not the model's factor
        _interference: &[f64],
        reference_rate: f64,
    ) -> Result<()> {
        let context = Arc::clone(&self.context);
        let (scenario, cost) = (&context.scenario, &context.cost);
        let job = &scenario.workload.job;
        let mut state = context.lock();
        // the running workers' rates at the base batch, for HB-ASGD's learning rate
        let mut rates = Vec::new();
        for (n, amounts) in alloc.iter().enumerate() {
            let node = &scenario.nodes[n];
            let max_batch = cost.max_batch(node, amounts);
            let runs = amounts[0] > 0.0 && amounts[1] > 0.0 && max_batch >= 1;
            let worker = &mut state.workers[n];
            worker.round.out_of_memory = amounts[0] > 0.0 && amounts[1] > 0.0 && max_batch == 0;
            let keeps = runs && worker.running && worker.round.batch <= max_batch;
            if !keeps {
                worker.epoch += 1;
            }
            worker.alloc = *amounts;
            worker.running = runs;
            worker.max_batch = max_batch;
            if runs {
                rates.push(rules::nominal_rate(node, amounts));
            }
            worker.background_share = background_cpu[n] / node.cpu_cores;
            let written = self.write_quotas(n, &state.workers[n], background_cpu[n]);
            if let Err(e) = written {
                state.failure = Some(e.to_string());
                return Err(e);
            }
        }
        state.lr_factor = rules::adequacy_factor(job, rates.into_iter(), reference_rate);
        state.started.get_or_insert_with(Instant::now);
        context.changed.notify_all();
        Ok(())
    }

    fn run_until(&mut self, t_end: f64) -> Result<Option<f64>> {
        let context = Arc::clone(&self.context);
        let mut state = context.lock();
        let started = *state.started.get_or_insert_with(Instant::now);
        let deadline = started + Duration::from_secs_f64(t_end * context.time_scale);
        loop {
            if let Some(failure) = &state.failure {
                return Err(real_error(failure.clone()));
            }
            if let Some(t) = state.completed_at {
                self.now = t;
                return Ok(Some(t));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = context
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        self.now = t_end;
        Ok(None)
    }

    fn close_round(&mut self, t: f64) -> Result<Vec<WorkerRound>> {
        let span = t - self.round_started;
        self.round_started = t;
        let memory: Vec<u64> = self
            .nodes
            .iter()
            .map(|n| n.job.outer().memory_used())
            .collect::<Result<_>>()?;
        let gb_per_byte = 1.0 / (self.spec.mem_mb_per_gb * 1024.0 * 1024.0);
        let mut state = self.context.lock();
        Ok(state
            .workers
            .iter_mut()
            .zip(memory)
            .map(|(worker, bytes)| {
                if worker.running {
                    worker.round.mem_used_gb_s += span * bytes as f64 * gb_per_byte;
                }
                let batch = worker.round.batch;
                let done = std::mem::take(&mut worker.round);
                worker.round.batch = batch;
                done
            })
            .collect())
    }

    fn validate(&mut self) -> Result<Option<f64>> {
        let context = Arc::clone(&self.context);
        let mut state = context.lock();
        if state.server.version != state.evaluated_version {
            let now = self.now;
            evaluate(&context, &mut state, now)?;
        }
        Ok(state.completed_at)
    }

    fn take_pushes(&mut self) -> Vec<PushRecord> {
        std::mem::take(&mut self.context.lock().pushes)
    }

    /// Stops the workers, kills every process of the run and removes its groups.
    fn finish(&mut self) -> Result<()> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        {
            let mut state = self.context.lock();
            state.stopping = true;
        }
        self.context.changed.notify_all();
        for child in self.children.iter_mut().chain(&mut self.tenants) {
            process::kill(child.id());
        }
        for child in self.children.iter_mut().chain(&mut self.tenants) {
            // reaps the child; an error only means it was reaped already
            let _ = child.wait();
        }
        for thread in self.threads.drain(..) {
            // a connection thread ends once its worker's socket closes
            let _ = thread.join();
        }
        crate::real::remove_run(self.tag)
    }
}

impl Drop for RealTraining {
    fn drop(&mut self) {
        if let Err(e) = self.finish() {
            eprintln!("real execution: {e}");
        }
    }
}

/// Serves worker `index`'s pulls and pushes until it goes or the episode ends.
fn serve(context: &Context, index: usize, mut stream: TcpStream) {
    let outcome = (|| -> std::io::Result<()> {
        loop {
            let (message, grad) = receive::<FromWorker>(&mut stream)?;
            match message {
                FromWorker::Pull => match next_work(context, index) {
                    Some((work, params)) => send(&mut stream, &work, &params)?,
                    None => return send(&mut stream, &ToWorker::Stop, &[]),
                },
                FromWorker::Push { .. } => {
                    if let Err(e) = apply_push(context, index, &message, &grad) {
                        let mut state = context.lock();
                        state.failure.get_or_insert(e.to_string());
                        context.changed.notify_all();
                        return send(&mut stream, &ToWorker::Stop, &[]);
                    }
                }
                _ => {
                    return Err(std::io::Error::other("a message out of turn"));
                }
            }
        }
    })();
    if let Err(e) = outcome {
        let mut state = context.lock();
        if !state.stopping && state.completed_at.is_none() {
            let node = &context.scenario.nodes[index].name;
            state.failure.get_or_insert(format!(
                "the worker of node {index} ({node}) stopped: {e} (killed for memory? its limit is the container's memory times real.mem_mb_per_gb)"
            ));
            context.changed.notify_all();
        }
    }
}

/// Waits until worker `index` holds a container, then gives it the next iteration: `None`
/// once the episode is over.
fn next_work(context: &Context, index: usize) -> Option<(ToWorker, Arc<Vec<f32>>)> {
    let mut state = context.lock();
    let mut waited = false;
    loop {
        if state.stopping || state.completed_at.is_some() || state.failure.is_some() {
            return None;
        }
        if state.workers[index].running {
            break;
        }
        waited = true;
        state = context
            .changed
            .wait(state)
            .unwrap_or_else(|e| e.into_inner());
    }
    let job = &context.scenario.workload.job;
    let running = state
        .workers
        .iter()
        .filter(|w| w.running)
        .filter_map(|w| w.last_base_time);
    let worker = &state.workers[index];
    let batch = rules::next_batch(job, worker.last_base_time, running, worker.max_batch);
    let epoch = worker.epoch;
    let version = state.server.version;
    let params = Arc::clone(&state.server.params);
    let pulled = 32 * params.len() as u64;
    let now = state.virtual_now(context.time_scale);
    state.bits_sent += pulled;
    let worker = &mut state.workers[index];
    worker.round.bits_sent += pulled;
    worker.round.batch = batch;
    worker.pulled = Some(match worker.last_arrival {
        Some(arrival) if !waited => arrival,
        _ => now,
    });
    let burn_cpu_s = context.k * context.time_scale * job.sample_gflop * batch as f64;
    let work = ToWorker::Work {
        version,
        epoch,
        batch,
        burn_cpu_s,
    };
    Some((work, params))
}

/// Applies a worker's push with the job's optimiser and books what it cost.
fn apply_push(context: &Context, index: usize, push: &FromWorker, grad: &[f32]) -> Result<()> {
    let FromWorker::Push {
        version,
        epoch,
        batch,
        loss,
        variance,
        finite,
        wall_s,
        cpu_s,
    } = *push
    else {
        unreachable!("called with a push");
    };
    let mut state = context.lock();
    let now = state.virtual_now(context.time_scale);
    if state.completed_at.is_some() || state.stopping {
        return Ok(());
    }
    let worker = &mut state.workers[index];
    let pulled_at = worker.pulled.take().unwrap_or(now);
    worker.last_arrival = Some(now);
    if epoch != worker.epoch {
        worker.round.cancelled += 1;
        return Ok(());
    }
    if !finite {
        return Err(EnvError::NonFinite {
            what: "training gradient",
            time_s: now,
            iteration: state.server.version,
        });
    }
    let job = &context.scenario.workload.job;
    let compute_s = book_compute(context, index, worker, wall_s, cpu_s);
    let alloc = worker.alloc;
    let round = &mut worker.round;
    round.gradients += 1;
    round.samples += batch as u64;
    round.loss_sum += loss;
    round.variance_sum += variance;
    round.delay_sum_s += now - pulled_at;
    let staleness = state.server.version - version;
    let worker = &mut state.workers[index];
    worker.round.staleness_sum += staleness;
    worker.last_base_time = Some(compute_s * job.base_batch as f64 / batch as f64);
    let record = PushRecord {
        node: index,
        alloc,
        batch,
        background_share: worker.background_share,
        compute_s,
        delay_s: now - pulled_at,
    };
    let pushed = 32 * grad.len() as u64;
    worker.round.bits_sent += pushed;
    state.bits_sent += pushed;
    state.pushes.push(record);
    apply_gradient(context, &mut state, index, (grad, staleness, batch), now)?;
    context.changed.notify_all();
    Ok(())
}

/// Books a push's compute on its worker's round and returns it in virtual seconds: the wall
/// time, and the virtual GFLOP the burnt CPU stands for, split between the container's CPU
/// and GPU in proportion to their nominal rates.
fn book_compute(
    context: &Context,
    index: usize,
    worker: &mut RealWorker,
    wall_s: f64,
    cpu_s: f64,
) -> f64 {
    let node = &context.scenario.nodes[index];
    let compute_s = wall_s / context.time_scale;
    let gflop = cpu_s / (context.k * context.time_scale);
    let alloc = worker.alloc;
    let (cpu_rate, gpu_rate) = (
        node.speed * alloc[0] * node.cpu_gflops_per_core,
        node.speed * alloc[2] * node.gpu_gflops,
    );
    let total = (cpu_rate + gpu_rate).max(f64::MIN_POSITIVE);
    let round = &mut worker.round;
    round.compute_s += compute_s;
    round.cpu_used_s += gflop * cpu_rate / total / (node.speed * node.cpu_gflops_per_core);
    if gpu_rate > 0.0 {
        round.gpu_used_s += gflop * gpu_rate / total / (node.speed * node.gpu_gflops);
    }
    compute_s
}

/// Applies worker `index`'s gradient with the job's optimiser (`staleness` versions old, of
/// `batch` rows) and validates when due.
fn apply_gradient(
    context: &Context,
    state: &mut Shared,
    index: usize,
    (grad, staleness, batch): (&[f32], u64, usize),
    now: f64,
) -> Result<()> {
    let lr_factor = state.lr_factor;
    match state.server.push(grad, staleness, batch, lr_factor) {
        Applied::Weighted(_) => {
            let job = &context.scenario.workload.job;
            if job.eval_every.is_due(
                state.server.version,
                now,
                state.evaluated_version,
                state.evaluated_at,
            ) {
                evaluate(context, state, now)?;
            }
        }
        Applied::TooStale => state.workers[index].round.discarded += 1,
        Applied::Buffered => unreachable!("synchronous optimisers are refused at the start"),
    }
    Ok(())
}

fn evaluate(context: &Context, state: &mut Shared, now: f64) -> Result<()> {
    let scenario = &context.scenario;
    state.validations += 1;
    state.evaluated_version = state.server.version;
    state.evaluated_at = now;
    state.val_loss = scenario
        .model
        .mean_loss(&state.server.params, &scenario.data.validation);
    if !state.val_loss.is_finite() {
        return Err(EnvError::NonFinite {
            what: "validation loss",
            time_s: now,
            iteration: state.server.version,
        });
    }
    if state.val_loss <= scenario.workload.job.target_loss && state.completed_at.is_none() {
        state.completed_at = Some(now);
    }
    Ok(())
}

/// `k`: real cores per virtual GFLOP/s, so that every node's full capacity takes `cores`.
pub fn cores_per_rate(nodes: &[NodeSpec], cores: f64) -> f64 {
    let total: f64 = nodes
        .iter()
        .map(|n| rules::nominal_rate(n, &n.capacity()))
        .sum();
    cores / total.max(f64::MIN_POSITIVE)
}

/// The groups of every node with their memory limits; CPU limits come once every process
/// has started (`RealTraining::launch`).
fn make_node_groups(run: &Group, nodes: &[NodeSpec], mb_per_gb: f64) -> Result<Vec<NodeGroups>> {
    run.set_cpu(None)?;
    nodes
        .iter()
        .enumerate()
        .map(|(n, node)| {
            let group = run.child(&format!("node-{n}"))?;
            group.delegate()?;
            group.set_memory(mebibytes(node.mem_gb, mb_per_gb))?;
            let job = LiveCpuGroup::new(group.child("job")?)?;
            job.outer().set_memory(mebibytes(node.mem_gb, mb_per_gb))?;
            let background = LiveCpuGroup::new(group.child("background")?)?;
            Ok(NodeGroups {
                node: group,
                job,
                background,
            })
        })
        .collect()
}

fn mebibytes(gb: f64, mb_per_gb: f64) -> u64 {
    (gb * mb_per_gb * 1024.0 * 1024.0) as u64
}

fn idle_worker() -> RealWorker {
    RealWorker {
        alloc: [0.0; 3],
        running: false,
        max_batch: 0,
        background_share: 0.0,
        epoch: 0,
        last_base_time: None,
        pulled: None,
        last_arrival: None,
        round: WorkerRound::default(),
    }
}

/// Real execution runs the asynchronous optimisers through a parameter server, without
/// compression; the rest is refused by name.
fn check_supported(scenario: &Scenario) -> Result<()> {
    let job = &scenario.workload.job;
    let refuse = |key: &str, what: String| {
        Err(EnvError::config(
            &scenario.path,
            key,
            format!(
                "{what} is not supported with execution = \"real\" yet (asynchronous optimisers through a parameter server only)"
            ),
        ))
    };
    if matches!(
        job.optimizer,
        OptimizerKind::SyncSgd | OptimizerKind::LocalSgd
    ) {
        return refuse("job.optimizer", format!("`{}`", job.optimizer.name()));
    }
    if job.topology != Topology::ParameterServer {
        return refuse("job.topology", "ring all-reduce".into());
    }
    if job.compression != super::compression::Compression::None {
        return refuse("job.compression", "gradient compression".into());
    }
    if job.staleness_bound.is_some() {
        return refuse("job.staleness_bound", "stale synchronous parallel".into());
    }
    Ok(())
}

fn real_error(message: String) -> EnvError {
    EnvError::RealExecution { message }
}
