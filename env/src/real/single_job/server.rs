//! The server of a real single-job episode: one thread per worker connection serving its
//! pulls and pushes, applying each push with the job's optimiser, and validating when due.

use std::net::TcpStream;
use std::sync::Arc;

use super::state::{Context, RealWorker, Shared};
use crate::error::{EnvError, Result};
use crate::real::messages::{FromWorker, ToWorker};
use crate::real::wire::{receive, send};
use crate::single_job::PushRecord;
use crate::single_job::sim::Applied;
use crate::single_job::sim::rules::{self, Shard};

/// Serves worker `index`'s pulls and pushes until it goes or the episode ends.
pub(super) fn serve(context: &Context, index: usize, mut stream: TcpStream) {
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
    let shard = Shard::among_running(state.workers.iter().map(|w| w.running), index);
    let work = ToWorker::Work {
        version,
        epoch,
        batch,
        shard,
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

pub(super) fn evaluate(context: &Context, state: &mut Shared, now: f64) -> Result<()> {
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
