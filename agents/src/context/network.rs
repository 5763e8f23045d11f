//! What a network scheduler knows of its env.

use std::ops::Deref;
use std::sync::Arc;

use schedlab_env::network::{FlowLadder, NetworkEnv, NetworkWorkload};
use schedlab_env::{Environment, Observation};

use super::common::PolicyContext;
use schedlab_env::EnvKind;

/// What a network scheduler knows: the spaces and the workload (its graph, flow ladder and
/// channel; the costs an episode's seed draws).
#[derive(Debug, Clone)]
pub struct NetworkContext {
    pub common: PolicyContext,
    pub workload: Arc<NetworkWorkload>,
}

impl Deref for NetworkContext {
    type Target = PolicyContext;
    fn deref(&self) -> &PolicyContext {
        &self.common
    }
}

impl NetworkContext {
    /// The kind of env this context is of.
    pub fn kind(&self) -> EnvKind {
        EnvKind::Network
    }

    /// What sets the shapes of this env's spaces, as `(setting, value)`.
    pub fn shape_settings(&self) -> Vec<(String, String)> {
        let s = &self.workload.spec;
        vec![
            ("centres.count".into(), s.centres.count.to_string()),
            ("edges".into(), self.workload.base.edges().len().to_string()),
        ]
    }

    pub fn of(env: &NetworkEnv) -> Self {
        NetworkContext {
            common: PolicyContext::new(env.action_space().clone(), env.observation_space().clone()),
            workload: Arc::clone(env.workload()),
        }
    }

    pub fn ladder(&self) -> FlowLadder {
        self.workload.spec.flows
    }

    /// Per base edge of `observation`: its weight in this iteration's graph, or `None`.
    pub fn present(&self, observation: &Observation) -> Vec<Option<f64>> {
        let edges = self.observation_space.group("edge");
        (0..self.workload.base.edges().len())
            .map(|k| {
                let block = edges.block(&observation.features, k);
                (block[0] > 0.5).then_some(f64::from(block[1]))
            })
            .collect()
    }

    /// Gershgorin's bound on the Laplacian of this iteration's graph (twice the largest
    /// weighted degree), from the weights of [`Self::present`].
    pub fn laplacian_bound(&self, present: &[Option<f64>]) -> f64 {
        let mut degree = vec![0.0f64; self.workload.centres()];
        for (&(i, j, _), weight) in self.workload.base.edges().iter().zip(present) {
            degree[i] += weight.unwrap_or(0.0);
            degree[j] += weight.unwrap_or(0.0);
        }
        2.0 * degree.iter().copied().fold(0.0, f64::max)
    }

    /// Moves the allocation `x` a centre follows by the flows of `action`, as the env does.
    pub fn follow(&self, action: &[usize], x: &mut [f64]) {
        let ladder = self.ladder();
        for (&(i, j, _), &choice) in self.workload.base.edges().iter().zip(action) {
            let flow = ladder.flow(choice);
            x[i] -= flow;
            x[j] += flow;
        }
    }

    /// The choice per edge nearest to each desired flow (from an edge's first centre to its
    /// second) among those the mask allows.
    pub fn choose(&self, desired: &[f64], observation: &Observation) -> Vec<usize> {
        let ladder = self.ladder();
        let choices = ladder.choices();
        desired
            .iter()
            .enumerate()
            .map(|(k, &flow)| {
                ladder.nearest(
                    flow,
                    &observation.action_mask[k * choices..(k + 1) * choices],
                )
            })
            .collect()
    }
}
