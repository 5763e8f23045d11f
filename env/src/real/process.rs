//! The processes of a real run: started from the schedlab binary, tied to their parent's
//! life, and killed by id.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use crate::error::{EnvError, Result};

/// The variable that names the schedlab binary to start workers from, where the running
/// program is not it (the Python binding, a test binary).
pub const BINARY_VARIABLE: &str = "SCHEDLAB_BIN";
/// The hidden subcommand a worker or background tenant runs.
pub const SUBCOMMAND: &str = "real-process";

/// The schedlab binary: `SCHEDLAB_BIN`, else the running program when it is schedlab.
pub fn schedlab_binary() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(BINARY_VARIABLE) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|e| EnvError::RealExecution {
        message: format!("the running program's path is unknown: {e}"),
    })?;
    let is_schedlab = exe
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("schedlab"));
    if is_schedlab {
        Ok(exe)
    } else {
        Err(EnvError::RealExecution {
            message: format!(
                "real execution starts its workers from the schedlab binary, and {} is not it: set {BINARY_VARIABLE} to the path of `schedlab`",
                exe.display()
            ),
        })
    }
}

/// Starts `schedlab real-process ARGS`, tied to this process (it dies with it); with `piped`
/// its standard input and output are pipes to this process (a tenant's start signal).
pub fn spawn(args: &[String], piped: bool) -> Result<Child> {
    let binary = schedlab_binary()?;
    let pipe = || if piped { Stdio::piped() } else { Stdio::null() };
    Command::new(&binary)
        .arg(SUBCOMMAND)
        .arg("--parent")
        .arg(std::process::id().to_string())
        .args(args)
        .stdin(pipe())
        .stdout(pipe())
        .spawn()
        .map_err(|e| EnvError::io(binary, e))
}

/// Called first in a child: it gets SIGKILL when its parent dies, and exits at once if the
/// parent `parent` died before this could be set.
pub fn die_with_parent(parent: u32) {
    // SAFETY: prctl(PR_SET_PDEATHSIG) and getppid have no memory preconditions
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() as u32 != parent {
            libc::_exit(1);
        }
    }
}

/// SIGKILL to `pid` (gone already is fine).
/// The process id in a run's folder name `{prefix}{pid}-{n}`.
pub fn run_pid(name: &str, prefix: &str) -> Option<u32> {
    name.strip_prefix(prefix)?.split('-').next()?.parse().ok()
}

/// Whether `pid` is a process other than this one that no longer exists: a run of it was
/// killed before it could clean up, and what it left may go.
pub fn is_gone(pid: u32) -> bool {
    pid != std::process::id() && !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Whether `pid` is a running process: listed in /proc and not a zombie waiting to be reaped.
pub fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
    })
}

pub fn kill(pid: u32) {
    // SAFETY: kill has no memory preconditions; a stale pid only fails with ESRCH
    unsafe {
        libc::kill(pid as libc::pid_t, libc::SIGKILL);
    }
}

/// CPU seconds this thread has run.
pub fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid, writable timespec
    unsafe {
        libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts);
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Spins until this thread has run `seconds` more of CPU time: emulated compute that a CPU
/// quota slows down exactly as it would real work.
pub fn burn_cpu(seconds: f64) {
    let until = thread_cpu_seconds() + seconds;
    let mut x = 1.0f64;
    while thread_cpu_seconds() < until {
        for _ in 0..256 {
            x = std::hint::black_box(x * 1.000_000_1 + 1e-9);
        }
    }
}

/// A background tenant: says `ready` once started, waits for a line on its input (the run
/// has set its quota by then; the end of the input means the run is gone), then burns CPU
/// until killed, as much as its group's quota lets it.
pub fn run_tenant() -> ! {
    println!("ready");
    let mut line = String::new();
    if std::io::stdin().read_line(&mut line).is_ok_and(|n| n > 0) {
        loop {
            burn_cpu(1.0);
        }
    }
    std::process::exit(0)
}

/// Reads a tenant's `ready` (see [`run_tenant`]).
pub fn await_tenant(child: &mut Child) -> Result<()> {
    use std::io::BufRead;
    let pid = child.id();
    let stdout = child
        .stdout
        .as_mut()
        .ok_or_else(|| EnvError::RealExecution {
            message: format!("tenant {pid} has no output pipe"),
        })?;
    let mut line = String::new();
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| EnvError::RealExecution {
            message: format!("tenant {pid}: {e}"),
        })?;
    if line.trim() == "ready" {
        Ok(())
    } else {
        Err(EnvError::RealExecution {
            message: format!("tenant {pid} did not start (it said `{}`)", line.trim()),
        })
    }
}

/// Lets a tenant that said `ready` start burning.
pub fn start_tenant(child: &mut Child) -> Result<()> {
    use std::io::Write;
    let pid = child.id();
    let failed = |e: std::io::Error| EnvError::RealExecution {
        message: format!("tenant {pid}: {e}"),
    };
    let stdin = child
        .stdin
        .as_mut()
        .ok_or_else(|| failed(std::io::Error::other("no input pipe")))?;
    stdin.write_all(b"go\n").map_err(failed)?;
    stdin.flush().map_err(failed)
}
