//! `uniform`: no flows, so the centres keep the even split the episode starts from.

use schedlab_env::Observation;

use crate::context::EnvContext;
use crate::context::NetworkContext;
use crate::options::{Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "uniform",
    kinds: &[EnvKind::Network],
    help: "keeps the even split of the demand (no flows)",
    options: &[],
    build,
};

fn build(ctx: &EnvContext, _: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    let ctx = NetworkContext::part_of(ctx);
    Ok(Box::new(Uniform {
        edges: ctx.workload.base.edges().len(),
        none: ctx.ladder().none(),
    }))
}

struct Uniform {
    edges: usize,
    none: usize,
}

impl Policy for Uniform {
    fn name(&self) -> &str {
        "uniform"
    }
    fn reset(&mut self, _seed: u64) {}
    fn act(&mut self, _observation: &Observation) -> Vec<usize> {
        vec![self.none; self.edges]
    }
}
