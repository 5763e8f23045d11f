//! Single-job contexts and envs for the schedulers' tests.

pub(crate) mod fixtures {
    use schedlab_env::{ActionSpace, ObservationSpace};

    use schedlab_env::Observation;
    use schedlab_env::single_job::features::NODE_GROUP;
    use schedlab_env::single_job::workload::RewardSpec;

    use crate::context::{PolicyContext, SingleJobContext};

    /// A node-major `[cpu, mem, gpu]` action space of `nodes` nodes.
    pub fn node_space(nodes: usize, levels: [usize; 3]) -> ActionSpace {
        use schedlab_env::gym::Field;
        ActionSpace::grid(
            "node",
            nodes,
            vec![
                Field::new("cpu", levels[0]),
                Field::new("mem", levels[1]),
                Field::new("gpu", levels[2]),
            ],
        )
    }

    /// One node with levels `[3, 2, 2]`: the smallest space with every kind of head.
    pub fn one_node_space() -> ActionSpace {
        node_space(1, [3, 2, 2])
    }

    /// Two nodes, levels `[5, 3, 3]`; node 1 cannot take CPU levels above 2 nor any GPU.
    pub fn context_and_observation() -> (SingleJobContext, Observation) {
        let action_space = node_space(2, [5, 3, 3]);
        let mut mask = vec![true; action_space.mask_len()];
        let node1_cpu = action_space.mask_offset(action_space.dim(1, 0));
        mask[node1_cpu + 3] = false;
        mask[node1_cpu + 4] = false;
        let node1_gpu = action_space.mask_offset(action_space.dim(1, 2));
        mask[node1_gpu + 1] = false;
        mask[node1_gpu + 2] = false;
        let ctx = SingleJobContext {
            common: PolicyContext::new(action_space, ObservationSpace::new(&[(NODE_GROUP, 2, 1)])),
            level_sizes: [
                vec![0.0, 1.0, 2.0, 4.0, 8.0],
                vec![0.0, 4.0, 8.0],
                vec![0.0, 0.5, 1.0],
            ],
            node_capacity: vec![[8.0, 8.0, 1.0], [2.0, 8.0, 0.0]],
            round_interval_s: 1.0,
            prices_per_s: [1.0, 0.1, 10.0],
            reward: RewardSpec::default(),
        };
        (
            ctx,
            Observation {
                features: vec![0.0, 0.0],
                action_mask: mask,
            },
        )
    }
}

pub(crate) mod real {
    use std::path::PathBuf;

    use schedlab_env::{Scenario, SingleJobEnv};

    /// A fresh env on the shipped small-4node workload.
    pub fn small_env() -> SingleJobEnv {
        let path =
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/workloads/small-4node.toml");
        SingleJobEnv::new(Scenario::load(&path).unwrap())
    }
}
