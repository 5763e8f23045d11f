//! The server side of starting workers (`worker.rs`): a listener (on loopback, or on the
//! address a Slurm cluster's nodes reach), worker processes that connect to it, their hellos
//! taken in index order, and each set up until it says it is ready. The single job's server
//! and each real job of the jobs cluster start theirs so.

use std::net::{IpAddr, Ipv4Addr, TcpListener, TcpStream};
use std::process::Child;
use std::time::{Duration, Instant};

use super::messages::{FromWorker, ToWorker};
use crate::error::{EnvError, Result};
use crate::real::process;
use crate::real::wire::{receive, send};
use crate::single_job::scenario::Scenario;

/// How long workers may take to start, connect and load their data.
pub(crate) const START_TIMEOUT: Duration = Duration::from_secs(60);

/// Why workers did not start; the caller names its run.
pub(crate) enum StartFailure {
    /// Before every worker said hello.
    Connecting(String),
    /// Worker `index` during its setup.
    Worker { index: usize, error: String },
}

/// A listener workers connect to.
pub(crate) struct WorkerListener {
    listener: TcpListener,
    address: String,
}

/// Connected workers in index order, with their process ids.
pub(crate) struct Connected {
    pub streams: Vec<TcpStream>,
    pub pids: Vec<u32>,
}

impl WorkerListener {
    /// A listener on loopback, for workers on this machine.
    pub fn bind() -> Result<WorkerListener> {
        WorkerListener::bind_on(IpAddr::V4(Ipv4Addr::LOCALHOST))
    }

    /// A listener on `ip`, any free port.
    pub fn bind_on(ip: IpAddr) -> Result<WorkerListener> {
        let name = format!("{ip}:0");
        let listener = TcpListener::bind((ip, 0)).map_err(|e| EnvError::io(&name, e))?;
        let address = listener
            .local_addr()
            .map_err(|e| EnvError::io(&name, e))?
            .to_string();
        Ok(WorkerListener { listener, address })
    }

    /// `IP:PORT` workers connect to.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// Starts worker `index` (`schedlab real-process --role worker`), dying with this process.
    pub fn spawn_worker(&self, index: usize) -> Result<Child> {
        let args = [
            "--role",
            "worker",
            "--connect",
            &self.address,
            "--index",
            &index.to_string(),
        ]
        .map(String::from);
        process::spawn(&args, false)
    }

    /// The `n` workers' connections in index order, each sent `scenario`'s workload, its index
    /// and `seed`, and ready; `None` once `stopped()`. While waiting, `check` fails the start
    /// (a started process that exited).
    pub fn connect(
        &self,
        n: usize,
        (scenario, seed): (&Scenario, u64),
        mut check: impl FnMut() -> std::result::Result<(), StartFailure>,
        stopped: impl Fn() -> bool,
    ) -> std::result::Result<Option<Connected>, StartFailure> {
        let Some(Connected { mut streams, pids }) = self.accept(n, &mut check, &stopped)? else {
            return Ok(None);
        };
        let path = std::path::absolute(&scenario.path).unwrap_or_else(|_| scenario.path.clone());
        let lost = |index: usize, e: std::io::Error| StartFailure::Worker {
            index,
            error: e.to_string(),
        };
        for (index, stream) in streams.iter_mut().enumerate() {
            let setup = ToWorker::Setup {
                workload: Box::new(scenario.workload.clone()),
                path: path.clone(),
                seed,
                index,
            };
            send(stream, &setup, &[]).map_err(|e| lost(index, e))?;
        }
        for (index, stream) in streams.iter_mut().enumerate() {
            match receive::<FromWorker>(stream) {
                Ok((FromWorker::Ready, _)) => {}
                Err(_) if stopped() => return Ok(None),
                Ok(_) => {
                    return Err(StartFailure::Worker {
                        index,
                        error: "it answered its setup out of turn".into(),
                    });
                }
                Err(e) => return Err(lost(index, e)),
            }
            stream.set_read_timeout(None).map_err(|e| lost(index, e))?;
        }
        Ok(Some(Connected { streams, pids }))
    }

    fn accept(
        &self,
        n: usize,
        check: &mut impl FnMut() -> std::result::Result<(), StartFailure>,
        stopped: &impl Fn() -> bool,
    ) -> std::result::Result<Option<Connected>, StartFailure> {
        let failed = StartFailure::Connecting;
        self.listener
            .set_nonblocking(true)
            .map_err(|e| failed(format!("{}: {e}", self.address)))?;
        let deadline = Instant::now() + START_TIMEOUT;
        let mut streams: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
        let mut pids = vec![0; n];
        let mut connected = 0;
        while connected < n {
            if stopped() {
                return Ok(None);
            }
            match self.listener.accept() {
                Ok((mut stream, _)) => {
                    let lost = |e: std::io::Error| failed(format!("a worker's first message: {e}"));
                    stream.set_nonblocking(false).map_err(lost)?;
                    stream.set_nodelay(true).map_err(lost)?;
                    stream.set_read_timeout(Some(START_TIMEOUT)).map_err(lost)?;
                    let FromWorker::Hello { index, pid } =
                        receive::<FromWorker>(&mut stream).map_err(lost)?.0
                    else {
                        return Err(failed("a worker did not say hello first".into()));
                    };
                    if index >= n || streams[index].is_some() {
                        return Err(failed(format!("a second or unknown worker {index}")));
                    }
                    streams[index] = Some(stream);
                    pids[index] = pid;
                    connected += 1;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    check()?;
                    if Instant::now() > deadline {
                        return Err(failed(format!(
                            "{connected} of {n} workers connected within {} s",
                            START_TIMEOUT.as_secs()
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(failed(format!("accepting workers: {e}"))),
            }
        }
        Ok(Some(Connected {
            streams: streams.into_iter().flatten().collect(),
            pids,
        }))
    }
}
