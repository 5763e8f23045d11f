//! Third-party readers that panic on some damaged files where they should refuse them (a
//! Parquet reader on a truncated table, burn on a mistagged record: both found by the fuzz
//! targets in fuzz/), called so that the panic comes back as an error.

/// The message of a reader that panicked on damaged input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct Panicked(pub String);

/// Runs `read` and returns its panic's message as `Err` instead.
pub fn without_panic<T>(read: impl FnOnce() -> T) -> Result<T, Panicked> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).map_err(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("no message")
            .to_owned();
        Panicked(message)
    })
}
