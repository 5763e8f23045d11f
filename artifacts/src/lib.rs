//! What every schedlab crate writes and reads as files, in one place: writes that replace a
//! file whole or not at all (`atomic`), one writer per output folder (`folder_lock`), content
//! hashes (`hash`), a jobs workload's Parquet job table (`job_table`), and reading through
//! third-party readers that panic on damaged input (`panic_guard`).
//!
//! It knows files and their formats only: no environment, model, policy or run. Every other
//! crate of the workspace, and the Python binding, use it; it uses none of them.

pub mod atomic;
pub mod folder_lock;
pub mod hash;
pub mod job_table;
pub mod panic_guard;

pub use atomic::{write_atomic, write_atomic_with};
pub use folder_lock::{FolderLock, LockError};
pub use hash::{sha256_bytes, sha256_file, to_hex};
pub use job_table::{CellError, JobRecord, TableError, read_job_table};
pub use panic_guard::{Panicked, without_panic};
