//! Building blocks the learned schedulers share: masked factorised categorical heads and
//! generalised advantage estimation.

pub mod gae;
pub mod masked;
