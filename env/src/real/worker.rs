//! A real worker: one process per node, computing real gradients of the job's model on its
//! shard of the training rows, and burning the CPU time the iteration's virtual compute
//! stands for, so that its node's CPU quota sets how long the iteration takes.

use std::net::TcpStream;
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::messages::{FromWorker, ToWorker};
use crate::cluster::BackgroundSpec;
use crate::error::{EnvError, Result};
use crate::real::process::{burn_cpu, thread_cpu_seconds};
use crate::real::wire::{receive, send};
use crate::single_job::scenario::Scenario;
use crate::single_job::sim::compute_gradient;

/// How a worker's run ends early.
enum Ending {
    /// The connection closed: the server ended the run (a preempted job's), or died and this
    /// process dies with it; nobody is left to tell.
    Lost,
    Failed(EnvError),
}

impl From<EnvError> for Ending {
    fn from(e: EnvError) -> Self {
        Ending::Failed(e)
    }
}

/// Runs worker `index` against the server at `connect` until it says stop or goes away.
pub fn run_worker(connect: &str, index: usize) -> Result<()> {
    let connected = TcpStream::connect(connect).and_then(|s| s.set_nodelay(true).map(|()| s));
    let mut stream = match connected {
        Ok(stream) => stream,
        // the run closed its listener before this worker came up (a job preempted while its
        // workers started): nobody is left to tell, and the run does not wait for it
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => return Ok(()),
        Err(e) => {
            return Err(EnvError::RealExecution {
                message: format!("worker {index}: cannot reach {connect}: {e}"),
            });
        }
    };
    match work(&mut stream, index) {
        Ok(()) | Err(Ending::Lost) => Ok(()),
        Err(Ending::Failed(e)) => Err(e),
    }
}

fn work(stream: &mut TcpStream, index: usize) -> std::result::Result<(), Ending> {
    let lost = |_: std::io::Error| Ending::Lost;
    let pid = std::process::id();
    send(stream, &FromWorker::Hello { index, pid }, &[]).map_err(lost)?;
    let (setup, _) = receive::<ToWorker>(stream).map_err(lost)?;
    let ToWorker::Setup {
        mut workload,
        path,
        seed,
        index,
    } = setup
    else {
        return Err(Ending::Failed(EnvError::RealExecution {
            message: format!("worker {index}: expected the job's setup first"),
        }));
    };
    // the background is the server's to play out; a worker needs only the model and data
    workload.background = BackgroundSpec::None;
    let l2 = workload.job.l2 as f32;
    let workload_batch = workload.job.base_batch;
    let scenario = Scenario::from_workload(&path, *workload)?;
    let train = &scenario.data.train;
    let worker_seed = seed ^ (index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    // one untimed gradient before the clock starts: a cold process's first pass faults in its
    // code and data, which under a slice of a core would cost seconds of the first round
    let warm_up = scenario.model.init_params(&mut StdRng::seed_from_u64(seed));
    let rows: Vec<usize> = (0..workload_batch.min(train.len())).collect();
    compute_gradient(&*scenario.model, train, &warm_up, &rows, l2);
    send(stream, &FromWorker::Ready, &[]).map_err(lost)?;
    loop {
        send(stream, &FromWorker::Pull, &[]).map_err(lost)?;
        let (message, params) = receive::<ToWorker>(stream).map_err(lost)?;
        let ToWorker::Work {
            version,
            epoch,
            batch,
            shard,
            burn_cpu_s,
        } = message
        else {
            return Ok(());
        };
        let (started, cpu_before) = (Instant::now(), thread_cpu_seconds());
        // the batch is a function of the parameters' version, so a job resumed from a
        // checkpoint draws the rows it would have drawn uninterrupted
        let mut rng =
            StdRng::seed_from_u64(worker_seed ^ version.wrapping_mul(0xbf58_476d_1ce4_e5b9));
        let shard_rows = shard.len(train.len());
        let rows: Vec<usize> = (0..batch)
            .map(|_| shard.row(rng.random_range(0..shard_rows)))
            .collect();
        let result = compute_gradient(&*scenario.model, train, &params, &rows, l2);
        // the virtual compute stands for the whole iteration, the real gradient included
        burn_cpu(burn_cpu_s - (thread_cpu_seconds() - cpu_before));
        let push = FromWorker::Push {
            version,
            epoch,
            batch,
            loss: result.loss,
            variance: result.variance,
            finite: result.finite,
            wall_s: started.elapsed().as_secs_f64(),
            cpu_s: thread_cpu_seconds() - cpu_before,
        };
        send(stream, &push, &result.grad).map_err(lost)?;
    }
}
