//! The policies every study of the section plays: each spec with its row's display name.

use crate::reproduce::protocol::DagProtocol;

/// The display name of each policy spec, in row order: a protocol scheduler's plain name, a
/// trained run's learner label and seed.
pub(super) type Labels = Vec<(String, String)>;

/// A scheduler spec with the protocol's evaluation budget where it takes one, and WORL-RTGS's
/// guide named, so a sweep's rows say which guide played them.
pub(super) fn budgeted(name: &str, p: &DagProtocol) -> String {
    match name {
        "worl-rtgs" => format!("{name}:evaluations={}:guide={}", p.evaluations, p.guide),
        "ga" | "woa" => format!("{name}:evaluations={}", p.evaluations),
        _ => name.to_owned(),
    }
}

/// The spec of the protocol scheduler `name`.
pub(super) fn spec_of<'a>(labels: &'a Labels, name: &str) -> &'a str {
    labels
        .iter()
        .find(|(_, label)| label == name)
        .map(|(spec, _)| spec.as_str())
        .expect("the protocol names its reference among its policies")
}
