//! A markov workload, loaded: its task and sizes.

use super::schema::{MarkovSpec, MarkovWorkloadSpec};

#[derive(Debug, Clone)]
pub struct MarkovWorkload {
    pub spec: MarkovWorkloadSpec,
}

impl MarkovWorkload {
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn task(&self) -> &MarkovSpec {
        &self.spec.markov
    }
}
