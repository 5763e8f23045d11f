//! [`RealTraining`]: the single-job env's training (`crate::single_job::Training`) on real
//! processes, from the start of its groups, workers and tenants to their removal.

use std::process::Child;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::rngs::StdRng;

use super::groups::{NodeGroups, cores_per_rate, make_node_groups, mebibytes};
use super::server::{evaluate, serve};
use super::state::{Context, RealWorker, Shared, idle_worker};
use crate::cluster::Amounts;
use crate::error::{EnvError, Result};
use crate::execution::RealSpec;
use crate::real::cgroup::Hierarchy;
use crate::real::connect::{StartFailure, WorkerListener};
use crate::real::{Turn, process};
use crate::single_job::compression::Compression;
use crate::single_job::scenario::Scenario;
use crate::single_job::schema::{OptimizerKind, Topology};
use crate::single_job::sim::{CostModel, Server, WorkerRound, rules};
use crate::single_job::{PushRecord, Training};

/// The least CPU quota the kernel takes (1 ms per 1 s period): a background tenant's with no
/// load.
const LEAST_CORES: f64 = 0.001;

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
    _turn: Turn,
}

impl RealTraining {
    /// Starts the run: groups, workers and tenants, the workers connected and their data
    /// loaded. The clock starts with the first allocation.
    pub fn start(scenario: Arc<Scenario>, seed: u64) -> Result<RealTraining> {
        check_supported(&scenario)?;
        let spec = scenario.workload.real.clone();
        let turn = Turn::take();
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
            Ok(connected) => {
                connected
                    .expect("a single job's start is never stopped")
                    .streams
            }
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
    if job.compression != Compression::None {
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
