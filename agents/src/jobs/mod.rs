//! Schedulers for the multi-job cluster ([`schedlab_env::jobs::JobsEnv`]), behind the same
//! [`Policy`](crate::Policy) trait: they read the window of queued and running jobs from the
//! observation and answer, per slot, `[workers level, size level, placement]`.

mod ordering;
mod periodic;
mod pollux;
mod raes;
pub mod registry;
mod view;

pub use ordering::{Order, OrderingPolicy};
pub use periodic::OptimusPolicy;
pub use pollux::PolluxPolicy;
pub use raes::JobsRaesPolicy;
pub use view::{JobsContext, SlotView};
