//! A real single-job run's control groups: one per node, with a `job` group for its worker and
//! a `background` group for its tenant, and the real cores they share out.

use crate::cluster::NodeSpec;
use crate::error::Result;
use crate::real::cgroup::{Group, LiveCpuGroup};
use crate::single_job::sim::rules;

/// The groups of a node.
pub(super) struct NodeGroups {
    pub(super) node: Group,
    pub(super) job: LiveCpuGroup,
    pub(super) background: LiveCpuGroup,
}

/// `k`: real cores per virtual GFLOP/s, so that every node's full capacity takes `cores`.
pub fn cores_per_rate(nodes: &[NodeSpec], cores: f64) -> f64 {
    let total: f64 = nodes
        .iter()
        .map(|n| rules::nominal_rate(n, &n.capacity()))
        .sum();
    cores / total.max(f64::MIN_POSITIVE)
}

/// The groups of every node with their memory limits; CPU limits come once every process
/// has started (`RealTraining::launch`).
pub(super) fn make_node_groups(
    run: &Group,
    nodes: &[NodeSpec],
    mb_per_gb: f64,
) -> Result<Vec<NodeGroups>> {
    run.set_cpu(None)?;
    nodes
        .iter()
        .enumerate()
        .map(|(n, node)| {
            let group = run.child(&format!("node-{n}"))?;
            group.delegate()?;
            group.set_memory(mebibytes(node.mem_gb, mb_per_gb))?;
            let job = LiveCpuGroup::new(group.child("job")?)?;
            job.outer().set_memory(mebibytes(node.mem_gb, mb_per_gb))?;
            let background = LiveCpuGroup::new(group.child("background")?)?;
            Ok(NodeGroups {
                node: group,
                job,
                background,
            })
        })
        .collect()
}

pub(super) fn mebibytes(gb: f64, mb_per_gb: f64) -> u64 {
    (gb * mb_per_gb * 1024.0 * 1024.0) as u64
}
