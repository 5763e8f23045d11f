//! Policies by name, for the command line and experiment files.

use crate::policy::{Policy, PolicyContext};
use crate::{GreedyPolicy, PeriodicPolicy, RandomPolicy, StaticPolicy};

#[derive(Debug, thiserror::Error)]
#[error("unknown policy `{name}`; available: {}", names().join(", "))]
pub struct PolicyError {
    pub name: String,
}

/// The names [`by_name`] accepts.
pub fn names() -> Vec<&'static str> {
    vec!["static", "periodic", "greedy", "random"]
}

pub fn by_name(name: &str, ctx: PolicyContext) -> Result<Box<dyn Policy>, PolicyError> {
    match name {
        "static" => Ok(Box::new(StaticPolicy::new(ctx))),
        "random" => Ok(Box::new(RandomPolicy::new(ctx))),
        "greedy" => Ok(Box::new(GreedyPolicy::new(ctx))),
        "periodic" => Ok(Box::new(PeriodicPolicy::new(ctx))),
        _ => Err(PolicyError {
            name: name.to_owned(),
        }),
    }
}
