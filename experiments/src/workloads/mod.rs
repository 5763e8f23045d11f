//! The command line's side of the one dispatch over kinds (`schedlab_env::kinds`): [`load`]
//! reads a workload file of any kind into a [`Loaded`]; each kind implements [`Kind`]: its
//! env, its per-step log and its one-line summary (its metric columns are its metrics', in
//! env). Commands are written once, generic over [`Kind`], and [`with_kind!`] picks the kind
//! through env's `each_kind!`. Adding a kind of workload here is a file named for the kind's
//! module in env's table, implementing [`Kind`], and its `mod` line (ARCHITECTURE.md, "Add a
//! kind of environment").

mod bandit;
mod control;
mod dag;
mod jobs;
mod kind;
mod loaded;
mod markov;
mod network;
mod single_job;

pub use crate::with_kind;
pub use dag::Dag;
pub use jobs::Jobs;
pub use kind::{InfoOf, Kind, KindRow, MetricsOf};
pub use loaded::{Loaded, OfLoaded, declared_kind, kind_of_file, load, load_file};
pub use network::Network;
pub use single_job::SingleJob;

#[cfg(test)]
mod tests;
