//! Policies by name, for the command line and experiment files.
//!
//! A spec is a name with optional inline options, `raes:solver=heuristic:predictor=ewma`;
//! options shared by several specs (the CLI's undotted `--set` keys) go to every policy that
//! accepts them.

use crate::policy::{Policy, PolicyContext};
use crate::raes::scheduler::{OPTIONS as RAES_OPTIONS, RaesOptions, RaesPolicy};
use crate::{GreedyPolicy, PeriodicPolicy, RandomPolicy, StaticPolicy};

#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("unknown policy `{name}`; available: {}", names().join(", "))]
    Unknown { name: String },
    #[error("policy `{policy}`: option `{key}={value}`: expected {expected}")]
    Option {
        policy: String,
        key: String,
        value: String,
        expected: String,
    },
    #[error("unknown policy `{name}` for a jobs workload; available: {}", crate::jobs::registry::names().join(", "))]
    UnknownForJobs { name: String },
    #[error("policy `raes`: {0}")]
    Predictor(String),
}

/// The names [`by_name`] accepts.
pub fn names() -> Vec<&'static str> {
    vec!["static", "periodic", "greedy", "random", "raes"]
}

/// The option keys policy `name` accepts (none for unknown names).
pub fn accepted_options(name: &str) -> &'static [&'static str] {
    match name {
        "raes" => &RAES_OPTIONS,
        _ => &[],
    }
}

/// `key=value` pairs for a policy, applied in order.
pub type PolicyOptions = Vec<(String, String)>;

/// Splits `name:key=value:key=value` into the name and its options.
pub fn parse_spec(spec: &str) -> Result<(&str, PolicyOptions), PolicyError> {
    let mut parts = spec.split(':');
    let name = parts.next().unwrap_or_default();
    let options = parts
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .ok_or_else(|| PolicyError::Option {
                    policy: name.to_owned(),
                    key: kv.to_owned(),
                    value: String::new(),
                    expected: "KEY=VALUE after the policy name".into(),
                })
        })
        .collect::<Result<_, _>>()?;
    Ok((name, options))
}

/// The policy of `spec`, given the `shared` options it accepts and then its inline ones.
pub fn by_name(
    spec: &str,
    ctx: PolicyContext,
    shared: &[(String, String)],
) -> Result<Box<dyn Policy>, PolicyError> {
    let (name, inline) = parse_spec(spec)?;
    if !names().contains(&name) {
        return Err(PolicyError::Unknown {
            name: name.to_owned(),
        });
    }
    let accepted = accepted_options(name);
    if let Some((key, value)) = inline.iter().find(|(k, _)| !accepted.contains(&k.as_str())) {
        return Err(PolicyError::Option {
            policy: name.to_owned(),
            key: key.clone(),
            value: value.clone(),
            expected: if accepted.is_empty() {
                "no options: this policy takes none".into()
            } else {
                format!("one of the keys {}", accepted.join(", "))
            },
        });
    }
    let options: PolicyOptions = shared
        .iter()
        .filter(|(k, _)| accepted.contains(&k.as_str()))
        .chain(&inline)
        .cloned()
        .collect();
    match name {
        "static" => Ok(Box::new(StaticPolicy::new(ctx))),
        "random" => Ok(Box::new(RandomPolicy::new(ctx))),
        "greedy" => Ok(Box::new(GreedyPolicy::new(ctx))),
        "periodic" => Ok(Box::new(PeriodicPolicy::new(ctx))),
        "raes" => Ok(Box::new(RaesPolicy::new(
            ctx,
            RaesOptions::from_pairs(&options)?,
        )?)),
        _ => unreachable!("`{name}` is in names()"),
    }
}
