//! The cluster: nodes, the resources a container takes, the ladder of container sizes, and
//! the background load of other tenants over virtual time.

mod background;
mod ladder;
mod node;
mod resource;
mod trace_v2018;

pub use background::{Background, BackgroundSpec, LoadSeries, hash_task};
pub use ladder::Ladder;
pub use node::NodeSpec;
pub(crate) use node::one;
pub use resource::{Amounts, Resource};
pub use trace_v2018::{
    TaskName, TraceStats, TraceTask, V2018_COLUMNS, load_v2018_tasks, parse_task_name,
};
