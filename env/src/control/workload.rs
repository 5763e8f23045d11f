//! A control workload, loaded: its task and time limit.

use super::schema::ControlWorkloadSpec;

#[derive(Debug, Clone)]
pub struct ControlWorkload {
    pub spec: ControlWorkloadSpec,
}

impl ControlWorkload {
    pub fn name(&self) -> &str {
        &self.spec.name
    }
}
