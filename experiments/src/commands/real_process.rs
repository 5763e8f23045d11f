//! `schedlab real-process` (hidden): a process of a real run, started by the run itself
//! (`schedlab_env::real`): a single-job worker, or a background tenant burning CPU.

use clap::{Args, ValueEnum};
use schedlab_env::real::process::{die_with_parent, run_tenant};
use schedlab_env::real::worker::run_worker;

#[derive(Clone, Copy, ValueEnum)]
pub enum Role {
    Worker,
    Tenant,
}

#[derive(Args)]
pub struct RealProcessArgs {
    /// The run's process: this one dies with it. A worker that Slurm starts has none; it ends
    /// when its server's connection closes.
    #[arg(long)]
    parent: Option<u32>,
    #[arg(long, value_enum)]
    role: Role,
    /// The server's address (workers).
    #[arg(long, required_if_eq("role", "worker"))]
    connect: Option<String>,
    /// The worker's node.
    #[arg(long, required_if_eq("role", "worker"))]
    index: Option<usize>,
}

pub fn run(args: RealProcessArgs) -> anyhow::Result<()> {
    if let Some(parent) = args.parent {
        die_with_parent(parent);
    }
    match args.role {
        Role::Tenant => run_tenant(),
        Role::Worker => {
            let connect = args.connect.expect("clap requires it for workers");
            let index = args.index.expect("clap requires it for workers");
            Ok(run_worker(&connect, index)?)
        }
    }
}
