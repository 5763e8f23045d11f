//! The discrete-event engine. A worker's gradient inputs (parameter snapshot, minibatch rows)
//! are fixed when it pulls. On one thread its gradient is computed right then, so the
//! snapshot can be let go before the server next updates (no copy of the parameters); on
//! several, gradients are computed lazily: when a push needs one that is not ready, every
//! gradient still outstanding is computed at once, in parallel. Each depends only on its own
//! inputs, so results are bit-identical whatever the thread count.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;

use super::cost::CostModel;
use super::rules::Shard;
use super::server::{Applied, Server};
use super::worker::{Iteration, Phase, Worker, WorkerRound};
use crate::cluster::Amounts;
use crate::error::{EnvError, Result};
use crate::single_job::compression::Compression;
use crate::single_job::scenario::Scenario;
use crate::single_job::schema::{OptimizerKind, Topology};

/// Rows x parameters below which spreading gradients over threads costs more than it saves.
const PARALLEL_WORK_THRESHOLD: usize = 2_000_000;

#[derive(Debug, Clone, Copy)]
struct Event {
    time: f64,
    seq: u64,
    worker: usize,
    epoch: u64,
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    /// Time first, then scheduling order: ties resolve the same way on every run.
    fn cmp(&self, other: &Self) -> Ordering {
        self.time
            .total_cmp(&other.time)
            .then(self.seq.cmp(&other.seq))
    }
}

pub struct TrainingSim {
    scenario: Arc<Scenario>,
    cost: CostModel,
    server: Server,
    workers: Vec<Worker>,
    events: BinaryHeap<Reverse<Event>>,
    seq: u64,
    now: f64,
    round_start: f64,
    lr_factor: f64,
    /// Synchronous SGD: members of the open step that have not pushed yet, those that have,
    /// and how many pushes close the step (all but the backup workers).
    sync_outstanding: usize,
    sync_arrived: usize,
    sync_needed: usize,
    val_loss: f64,
    initial_loss: f64,
    evaluated_version: u64,
    evaluated_at: f64,
    /// Full validation passes since the episode began.
    validations: u64,
    completed_at: Option<f64>,
    compression: Compression,
    /// Per worker: its error-feedback residual, and the stream its stochastic rounding draws.
    residuals: Vec<Vec<f32>>,
    rounding: Vec<StdRng>,
    bits_sent: u64,
}

impl TrainingSim {
    /// A fresh job: parameters initialised and every worker's RNG stream derived from `seed`.
    pub fn new(scenario: Arc<Scenario>, seed: u64) -> Result<Self> {
        let mut rng = StdRng::seed_from_u64(seed);
        let params = scenario.model.init_params(&mut rng);
        let initial_loss = scenario.initial_loss(&params);
        let workers = (0..scenario.nodes.len())
            .map(|node| Worker {
                node,
                rng: StdRng::seed_from_u64(rng.random()),
                alloc: [0.0; 3],
                running: false,
                max_batch: 0,
                interference: 1.0,
                rate: 0.0,
                phase: Phase::Idle,
                epoch: 0,
                iteration: None,
                last_base_time: None,
                pushes: 0,
                round: WorkerRound::default(),
            })
            .collect();
        let job = &scenario.workload.job;
        let compression = job.compression;
        let d = params.len();
        // separate streams, so a run without compression draws exactly as before
        let nodes = scenario.nodes.len();
        let residuals = (0..nodes)
            .map(|_| vec![0.0; if compression.feeds_back() { d } else { 0 }])
            .collect();
        let rounding = (0..nodes as u64)
            .map(|w| {
                StdRng::seed_from_u64(
                    seed ^ (0xc0de_5eed_u64 + w).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                )
            })
            .collect();
        Ok(TrainingSim {
            compression,
            residuals,
            rounding,
            bits_sent: 0,
            cost: CostModel::new(&scenario.workload.sim, job),
            server: Server::new(params, job),
            workers,
            events: BinaryHeap::new(),
            seq: 0,
            now: 0.0,
            round_start: 0.0,
            lr_factor: 1.0,
            sync_outstanding: 0,
            sync_arrived: 0,
            sync_needed: 0,
            val_loss: initial_loss,
            initial_loss,
            evaluated_version: 0,
            evaluated_at: 0.0,
            validations: 0,
            completed_at: None,
            scenario,
        })
    }

    pub fn now(&self) -> f64 {
        self.now
    }
    pub fn iterations(&self) -> u64 {
        self.server.version
    }
    pub fn val_loss(&self) -> f64 {
        self.val_loss
    }
    pub fn initial_loss(&self) -> f64 {
        self.initial_loss
    }
    pub fn lr_factor(&self) -> f64 {
        self.lr_factor
    }
    pub fn params(&self) -> &[f32] {
        &self.server.params
    }
    /// Full validation passes so far (periodic checks and the final one; the initial loss is
    /// the scenario's, [`Scenario::initial_loss`]).
    pub fn validations(&self) -> u64 {
        self.validations
    }
    /// Bits every worker sent so far (pulls and pushes).
    pub fn bits_sent(&self) -> u64 {
        self.bits_sent
    }
    /// Largest batch worker `w`'s current allocation holds (0: it cannot run).
    pub fn max_batch(&self, w: usize) -> usize {
        self.workers[w].max_batch
    }

    /// Applies a new allocation at the current time. Workers that lose their container drop
    /// their iteration; workers whose container changes size continue at the new speed.
    /// `interference` is per node for the coming round; `reference_rate` is the cluster's
    /// compute rate under the reference (middle-of-ladder) allocation.
    pub fn set_allocation(&mut self, alloc: &[Amounts], interference: &[f64], reference_rate: f64) {
        let scenario = Arc::clone(&self.scenario);
        let nodes = &scenario.nodes;
        for (w, amounts) in alloc.iter().enumerate() {
            let max_batch = self.cost.max_batch(&nodes[w], amounts);
            let runs = amounts[0] > 0.0 && amounts[1] > 0.0 && max_batch >= 1;
            let worker = &mut self.workers[w];
            worker.interference = interference[w];
            worker.round.out_of_memory = amounts[0] > 0.0 && amounts[1] > 0.0 && max_batch == 0;
            let keeps_iteration = runs
                && worker
                    .iteration
                    .as_ref()
                    .is_some_and(|it| it.batch <= max_batch);
            worker.alloc = *amounts;
            worker.max_batch = max_batch;
            if !keeps_iteration {
                self.drop_iteration(w);
            }
            let worker = &mut self.workers[w];
            worker.running = runs;
            if let Some(batch) = worker.iteration.as_ref().map(|it| it.batch) {
                worker.rate = self
                    .cost
                    .rate(&nodes[w], amounts, batch, worker.interference);
                if worker.phase == Phase::Computing {
                    self.schedule_compute_end(w);
                }
            }
        }
        self.lr_factor = self.adequacy_factor(reference_rate);
        self.start_idle_workers();
    }

    fn adequacy_factor(&self, reference_rate: f64) -> f64 {
        let rates = self
            .workers
            .iter()
            .filter(|w| w.running)
            .map(|w| super::rules::nominal_rate(&self.scenario.nodes[w.node], &w.alloc));
        super::rules::adequacy_factor(&self.scenario.workload.job, rates, reference_rate)
    }

    fn drop_iteration(&mut self, w: usize) {
        let worker = &mut self.workers[w];
        worker.epoch += 1;
        let was_member = matches!(
            worker.phase,
            Phase::Pulling | Phase::Computing | Phase::Pushing
        );
        let was_reducing = worker.phase == Phase::Reducing;
        worker.iteration = None;
        worker.phase = Phase::Idle;
        if was_reducing {
            // the all-reduce in flight completes as the allocation changes
            self.close_sync_step();
        }
        if self.server_is_sync() && was_member {
            self.sync_outstanding -= 1;
            if self.sync_step_done() {
                self.close_sync_step();
            }
        }
    }

    fn server_is_sync(&self) -> bool {
        matches!(
            self.scenario.workload.job.optimizer,
            OptimizerKind::SyncSgd | OptimizerKind::LocalSgd
        )
    }

    fn start_idle_workers(&mut self) {
        if self.completed_at.is_some() {
            return;
        }
        if self.server_is_sync() {
            if self.sync_outstanding == 0 {
                self.open_sync_step();
            }
            return;
        }
        // stale synchronous parallel: no worker more than the bound ahead of the slowest
        let slowest = self
            .workers
            .iter()
            .filter(|w| w.running)
            .map(|w| w.pushes)
            .min()
            .unwrap_or(0);
        let bound = self.scenario.workload.job.staleness_bound;
        for w in 0..self.workers.len() {
            let worker = &self.workers[w];
            let within = bound.is_none_or(|s| worker.pushes <= slowest + s);
            if worker.running && worker.phase == Phase::Idle && within {
                self.start_iteration(w);
            }
        }
    }

    fn open_sync_step(&mut self) {
        for w in 0..self.workers.len() {
            if self.workers[w].running {
                self.start_iteration(w);
                self.sync_outstanding += 1;
            } else {
                self.workers[w].phase = Phase::Idle;
            }
        }
        self.sync_arrived = 0;
        self.sync_needed = self
            .sync_outstanding
            .saturating_sub(self.scenario.workload.job.backup_workers)
            .max(1);
    }

    /// Every member has pushed or left, or all but the backup workers have pushed.
    fn sync_step_done(&self) -> bool {
        self.sync_outstanding == 0 || self.sync_arrived >= self.sync_needed
    }

    /// Applies the step's gradients; the members still out (the backup workers' slowest)
    /// have their iterations cancelled.
    fn close_sync_step(&mut self) {
        for w in 0..self.workers.len() {
            if self.workers[w].phase == Phase::Computing {
                self.account_compute(w, self.now);
            }
            let worker = &mut self.workers[w];
            if matches!(
                worker.phase,
                Phase::Pulling | Phase::Computing | Phase::Pushing
            ) {
                worker.epoch += 1;
                worker.iteration = None;
                worker.phase = Phase::Idle;
                worker.round.cancelled += 1;
            }
        }
        self.sync_outstanding = 0;
        self.server.finish_sync_step();
        for worker in &mut self.workers {
            if matches!(worker.phase, Phase::AtBarrier | Phase::Reducing) {
                worker.phase = Phase::Idle;
            }
        }
    }

    fn next_batch(&self, w: usize) -> usize {
        let worker = &self.workers[w];
        let running = self
            .workers
            .iter()
            .filter(|o| o.running)
            .filter_map(|o| o.last_base_time);
        super::rules::next_batch(
            &self.scenario.workload.job,
            worker.last_base_time,
            running,
            worker.max_batch,
        )
    }

    /// Worker `w`'s next minibatch: its rows and the GFLOP it costs, with the iteration's
    /// jitter and straggling drawn from the worker's stream. A worker samples its shard among
    /// the running workers ([`Shard`]), as a real worker does (`env/src/real/worker.rs`).
    fn draw_minibatch(&mut self, w: usize, batch: usize) -> (Vec<usize>, f64) {
        let shard = Shard::among_running(self.workers.iter().map(|o| o.running), w);
        let shard_rows = shard.len(self.scenario.data.train.len());
        let sim = &self.cost.sim;
        let worker = &mut self.workers[w];
        let rows = (0..batch)
            .map(|_| shard.row(worker.rng.random_range(0..shard_rows)))
            .collect();
        let jitter: f64 = StandardNormal.sample(&mut worker.rng);
        let straggles = worker.rng.random_bool(sim.straggler_prob);
        let noise = (sim.straggler_sigma * jitter).exp()
            * if straggles {
                sim.straggler_slowdown
            } else {
                1.0
            };
        (rows, batch as f64 * self.cost.sample_gflop * noise)
    }

    fn start_iteration(&mut self, w: usize) {
        let batch = self.next_batch(w);
        let (rows, work) = self.draw_minibatch(w, batch);
        let ring = self.ring();
        let node = &self.scenario.nodes[w];
        let worker = &mut self.workers[w];
        worker.iteration = Some(Iteration {
            snapshot: Some(Arc::clone(&self.server.params)),
            version: self.server.version,
            rows,
            batch,
            pulled_at: self.now,
            work_left: work,
            compute_started: self.now,
            compute_time: 0.0,
            result: None,
            local_steps_done: 0,
            local_sum: None,
        });
        worker.rate = self
            .cost
            .rate(node, &worker.alloc, batch, worker.interference);
        worker.phase = Phase::Pulling;
        worker.round.batch = batch;
        // in a ring the model is every worker's already: the all-reduce brought the update
        let at = if ring {
            self.now
        } else {
            let pulled = 32 * self.server.params.len() as u64;
            worker.round.bits_sent += pulled;
            self.bits_sent += pulled;
            self.now + self.cost.transfer_time(node)
        };
        self.schedule(w, at);
        self.compute_if_serial();
    }

    /// On one thread nothing is gained by batching gradients: a gradient is computed as soon
    /// as its inputs are fixed (the only one outstanding then).
    fn compute_if_serial(&mut self) {
        if rayon::current_num_threads() == 1 {
            self.compute_outstanding();
        }
    }

    fn schedule(&mut self, w: usize, time: f64) {
        self.seq += 1;
        let epoch = self.workers[w].epoch;
        self.events.push(Reverse(Event {
            time,
            seq: self.seq,
            worker: w,
            epoch,
        }));
    }

    fn schedule_compute_end(&mut self, w: usize) {
        let worker = &mut self.workers[w];
        worker.epoch += 1;
        let it = worker
            .iteration
            .as_mut()
            .expect("computing worker has an iteration");
        it.compute_started = self.now;
        let at = self.now + it.work_left.max(0.0) / worker.rate;
        self.schedule(w, at);
    }

    /// Books compute time up to `until` into the round's usage.
    fn account_compute(&mut self, w: usize, until: f64) {
        let cost = &self.cost;
        let worker = &mut self.workers[w];
        let Some(it) = worker.iteration.as_mut() else {
            return;
        };
        let dt = until - it.compute_started;
        if dt <= 0.0 {
            return;
        }
        worker.round.compute_s += dt;
        worker.round.cpu_used_s += dt * cost.effective_cores(worker.alloc[0]);
        worker.round.gpu_used_s += dt * worker.alloc[2] * cost.gpu_saturation(it.batch);
        it.work_left -= dt * worker.rate;
        it.compute_time += dt;
        it.compute_started = until;
    }

    /// Processes events up to `t_end`. Returns the virtual time the target loss was reached,
    /// if it was.
    pub fn run_until(&mut self, t_end: f64) -> Result<Option<f64>> {
        while self.completed_at.is_none() {
            let Some(&Reverse(event)) = self.events.peek() else {
                break;
            };
            if event.time > t_end {
                break;
            }
            self.events.pop();
            if event.epoch != self.workers[event.worker].epoch {
                continue;
            }
            self.now = event.time;
            let w = event.worker;
            match self.workers[w].phase {
                Phase::Pulling => {
                    self.workers[w].phase = Phase::Computing;
                    self.schedule_compute_end(w);
                }
                Phase::Computing => {
                    self.account_compute(w, self.now);
                    if self.takes_another_local_step(w)? {
                        self.schedule_compute_end(w);
                        continue;
                    }
                    let at = self.now + self.push_time(w);
                    self.workers[w].phase = Phase::Pushing;
                    self.schedule(w, at);
                }
                Phase::Pushing => self.arrive(w)?,
                Phase::Reducing => {
                    self.close_sync_step();
                    self.maybe_evaluate()?;
                    self.start_idle_workers();
                }
                Phase::Idle | Phase::AtBarrier => {
                    unreachable!("no events are scheduled for waiting workers")
                }
            }
        }
        if self.completed_at.is_none() {
            self.now = self.now.max(t_end);
        }
        Ok(self.completed_at)
    }

    /// Local SGD: unless worker `w` has taken its `local_steps`, applies the step just computed
    /// to its own model copy (`w - lr g`, the gradients summed for the average) and draws the
    /// next minibatch on it. The last step's gradient is pushed with the sum.
    fn takes_another_local_step(&mut self, w: usize) -> Result<bool> {
        let job = &self.scenario.workload.job;
        if job.optimizer != OptimizerKind::LocalSgd {
            return Ok(false);
        }
        let it = self.workers[w]
            .iteration
            .as_ref()
            .expect("computing worker has an iteration");
        if it.is_last_step(job) {
            return Ok(false);
        }
        let (model, data) = (&*self.scenario.model, &self.scenario.data.train);
        let it = self.workers[w].iteration.as_mut().expect("checked above");
        if it.result.is_none() {
            it.compute(model, data, job);
        }
        let result = it.result.take().expect("computed above");
        if !result.finite {
            return Err(EnvError::NonFinite {
                what: "local gradient",
                time_s: self.now,
                iteration: self.server.version,
            });
        }
        let lr = job.lr as f32;
        let local: Vec<f32> = it
            .snapshot
            .as_ref()
            .expect("an inner local step keeps its snapshot")
            .iter()
            .zip(&result.grad)
            .map(|(p, g)| p - lr * g)
            .collect();
        let batch = it.batch;
        let (rows, work) = self.draw_minibatch(w, batch);
        let worker = &mut self.workers[w];
        worker.round.samples += batch as u64;
        let it = worker.iteration.as_mut().expect("checked above");
        it.local_sum = Some(match it.local_sum.take() {
            None => result.grad,
            Some(mut sum) => {
                sum.iter_mut().zip(&result.grad).for_each(|(s, g)| *s += g);
                sum
            }
        });
        it.local_steps_done += 1;
        it.snapshot = Some(Arc::new(local));
        it.rows = rows;
        it.work_left = work;
        self.compute_if_serial();
        Ok(true)
    }

    fn ring(&self) -> bool {
        self.scenario.workload.job.topology == Topology::RingAllReduce
    }

    /// Seconds from the end of worker `w`'s compute to its push's arrival: compressing on its
    /// compute rate, then the compressed message (in a ring, the all-reduce moves it later);
    /// counts the message's bits.
    fn push_time(&mut self, w: usize) -> f64 {
        let d = self.server.params.len();
        let compress_s = d as f64 * self.compression.flops_per_coordinate()
            / (1e9 * self.workers[w].rate.max(f64::MIN_POSITIVE));
        if self.ring() {
            return compress_s;
        }
        let bits = self.compression.bits(d);
        self.workers[w].round.bits_sent += bits;
        self.bits_sent += bits;
        let share = bits as f64 / (32.0 * d as f64);
        compress_s + self.cost.message_time(&self.scenario.nodes[w], share)
    }

    /// The ring all-reduce of a step whose last gradient worker `w` just delivered: its time
    /// on the members' slowest link, and each member's `2 (N - 1) / N` of a message.
    fn start_all_reduce(&mut self, w: usize) {
        let members: Vec<usize> = (0..self.workers.len())
            .filter(|&m| matches!(self.workers[m].phase, Phase::AtBarrier) || m == w)
            .collect();
        let d = self.server.params.len();
        let bits = self.compression.bits(d);
        let n = members.len() as u64;
        for &m in &members {
            let sent = 2 * (n - 1) * bits / n.max(1);
            self.workers[m].round.bits_sent += sent;
            self.bits_sent += sent;
        }
        let nodes: Vec<&crate::cluster::NodeSpec> =
            members.iter().map(|&m| &self.scenario.nodes[m]).collect();
        let share = bits as f64 / (32.0 * d as f64);
        let at = self.now + self.cost.ring_all_reduce_time(&nodes, share);
        self.workers[w].phase = Phase::Reducing;
        self.schedule(w, at);
    }

    /// Computes every outstanding gradient, in parallel when there is enough work to pay for
    /// the threads (either way each result depends only on its own inputs).
    fn compute_outstanding(&mut self) {
        let model = &*self.scenario.model;
        let data = &self.scenario.data.train;
        let job = &self.scenario.workload.job;
        let mut outstanding: Vec<&mut Iteration> = self
            .workers
            .iter_mut()
            .filter_map(|w| w.iteration.as_mut().filter(|it| it.result.is_none()))
            .collect();
        let work: usize = outstanding
            .iter()
            .map(|it| it.rows.len() * model.num_params())
            .sum();
        let compute = |it: &mut &mut Iteration| it.compute(model, data, job);
        if outstanding.len() > 1 && work >= PARALLEL_WORK_THRESHOLD {
            outstanding.par_iter_mut().for_each(compute);
        } else {
            outstanding.iter_mut().for_each(compute);
        }
    }

    fn arrive(&mut self, w: usize) -> Result<()> {
        if self.workers[w]
            .iteration
            .as_ref()
            .is_some_and(|it| it.result.is_none())
        {
            self.compute_outstanding();
        }
        let base_batch = self.scenario.workload.job.base_batch as f64;
        let worker = &mut self.workers[w];
        let it = worker
            .iteration
            .take()
            .expect("a pushing worker has an iteration");
        let result = it.result.expect("computed above");
        if !result.finite {
            return Err(EnvError::NonFinite {
                what: "training gradient",
                time_s: self.now,
                iteration: self.server.version,
            });
        }
        let staleness = self.server.version - it.version;
        worker.pushes += 1;
        let round = &mut worker.round;
        round.gradients += 1;
        round.samples += it.batch as u64;
        round.loss_sum += result.loss;
        round.variance_sum += result.variance;
        round.delay_sum_s += self.now - it.pulled_at;
        round.staleness_sum += staleness;
        worker.last_base_time = Some(it.compute_time * base_batch / it.batch as f64);
        worker.phase = Phase::Idle;
        // local SGD pushes the sum of its local steps' gradients (the model's change over lr)
        let pushed = match it.local_sum {
            None => result.grad,
            Some(mut sum) => {
                sum.iter_mut().zip(&result.grad).for_each(|(s, g)| *s += g);
                sum
            }
        };
        let grad = match self.compression {
            Compression::None => pushed,
            c => c.compress(&pushed, &mut self.residuals[w], &mut self.rounding[w]),
        };
        match self.server.push(&grad, staleness, it.batch, self.lr_factor) {
            Applied::Weighted(_) => self.maybe_evaluate()?,
            Applied::TooStale => self.workers[w].round.discarded += 1,
            Applied::Buffered => {
                self.workers[w].phase = Phase::AtBarrier;
                self.sync_outstanding -= 1;
                self.sync_arrived += 1;
                if self.sync_step_done() {
                    if self.ring() {
                        self.start_all_reduce(w);
                        return Ok(());
                    }
                    self.close_sync_step();
                    self.maybe_evaluate()?;
                }
            }
        }
        self.start_idle_workers();
        Ok(())
    }

    fn maybe_evaluate(&mut self) -> Result<()> {
        if self.scenario.workload.job.eval_every.is_due(
            self.server.version,
            self.now,
            self.evaluated_version,
            self.evaluated_at,
        ) {
            self.evaluate()?;
        }
        Ok(())
    }

    fn evaluate(&mut self) -> Result<()> {
        self.validations += 1;
        self.evaluated_version = self.server.version;
        self.evaluated_at = self.now;
        self.val_loss = self
            .scenario
            .model
            .mean_loss(&self.server.params, &self.scenario.data.validation);
        if !self.val_loss.is_finite() {
            return Err(EnvError::NonFinite {
                what: "validation loss",
                time_s: self.now,
                iteration: self.server.version,
            });
        }
        if self.val_loss <= self.scenario.workload.job.target_loss && self.completed_at.is_none() {
            self.completed_at = Some(self.now);
        }
        Ok(())
    }

    /// Validates the current parameters unless they were already (the end of an episode
    /// wants the final loss, not the last periodic check). Returns the completion time if the
    /// target has been reached.
    pub fn validate(&mut self) -> Result<Option<f64>> {
        if self.server.version != self.evaluated_version {
            self.evaluate()?;
        }
        Ok(self.completed_at)
    }

    /// Ends a round at `t`: books partial compute and memory and returns what each worker did.
    /// The validation loss stays that of the last periodic check (`job.eval_every`).
    pub fn close_round(&mut self, t: f64) -> Vec<WorkerRound> {
        for w in 0..self.workers.len() {
            if self.workers[w].phase == Phase::Computing {
                self.account_compute(w, t);
            }
        }
        let span = t - self.round_start;
        for worker in &mut self.workers {
            if worker.running {
                worker.round.mem_used_gb_s +=
                    span * self.cost.host_memory_gb(&worker.alloc, worker.round.batch);
            }
        }
        self.round_start = t;
        self.workers
            .iter_mut()
            .map(|w| {
                let batch = w.round.batch;
                let done = std::mem::take(&mut w.round);
                w.round.batch = batch;
                done
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{scenario, two_node_workload};

    /// Worker `w`'s distinct rows over 300 minibatches of 64.
    fn rows_seen(sim: &mut TrainingSim, w: usize) -> std::collections::BTreeSet<usize> {
        (0..300).flat_map(|_| sim.draw_minibatch(w, 64).0).collect()
    }

    /// The running workers split the training rows: with both running each draws only, and
    /// over many draws all, of every other row; alone, one worker draws from all of them.
    #[test]
    fn the_running_workers_split_the_training_rows() {
        let scenario = scenario(&two_node_workload("hb_asgd", ""));
        let train_rows = scenario.data.train.len();
        let mut sim = TrainingSim::new(scenario, 5).unwrap();
        sim.workers.iter_mut().for_each(|w| w.running = true);
        for w in 0..2 {
            let seen = rows_seen(&mut sim, w);
            assert!(seen.iter().all(|&r| r % 2 == w), "worker {w}: {seen:?}");
            assert_eq!(seen.len(), (w..train_rows).step_by(2).count(), "worker {w}");
        }
        sim.workers[0].running = false;
        assert_eq!(rows_seen(&mut sim, 1), (0..train_rows).collect());
    }

    /// A worker's shard index counts the running workers before it; the count is of all running.
    #[test]
    fn a_shard_is_the_workers_rank_among_the_running() {
        let running = [true, false, true, true, false];
        let shard = |w| Shard::among_running(running.into_iter(), w);
        assert_eq!(shard(0), Shard { index: 0, of: 3 });
        assert_eq!(shard(2), Shard { index: 1, of: 3 });
        assert_eq!(shard(3), Shard { index: 2, of: 3 });
        assert_eq!(Shard { index: 2, of: 3 }.len(10), 3);
        assert_eq!(Shard { index: 0, of: 3 }.len(10), 4);
        assert_eq!(Shard { index: 2, of: 3 }.row(2), 8);
    }
}
