//! Every scheduler by name, as a table of rows: name, the kinds of env it acts in, typed
//! options with defaults and help, and its constructor. The rows live beside the schedulers
//! ([`crate::single_job::SCHEDULERS`], [`crate::jobs::SCHEDULERS`],
//! [`crate::dag::SCHEDULERS`], [`GENERIC`]); adding a
//! scheduler is one file and one row (see ARCHITECTURE.md, "Add a scheduler").
//!
//! A spec is a name with optional inline options, `raes:solver=heuristic:predictor=ewma`;
//! options shared by several specs (the CLI's undotted `--set` keys) go to every scheduler
//! that declares them, before its inline ones.

use crate::options::{Options, PolicyError, parse_spec};
use crate::policy::{EnvContext, EnvKind, Policy};
use crate::scheduler_row::SchedulerRow;

/// Resolving a spec is the registry's, so the context's file imports no scheduler.
impl EnvContext {
    /// The policy `spec` names in this env: a trained agent the loader knows, else a
    /// scheduler of the registry (with its inline options).
    pub fn resolve(&self, spec: &str) -> Result<Box<dyn Policy>, PolicyError> {
        let common = self.common();
        if let Some(loaded) = common.trained.as_ref().and_then(|l| (l.0)(spec, self)) {
            return loaded.map_err(|message| PolicyError::Trained {
                spec: spec.to_owned(),
                message,
            });
        }
        build(spec, self, &[])
    }
}

/// Schedulers that act in every kind of env through the declared spaces alone.
pub const GENERIC: &[SchedulerRow] = &[crate::random::ROW];

/// Every row: each kind's own, then the generic ones.
pub fn rows() -> impl Iterator<Item = &'static SchedulerRow> {
    crate::single_job::SCHEDULERS
        .iter()
        .chain(crate::jobs::SCHEDULERS)
        .chain(crate::dag::SCHEDULERS)
        .chain(crate::network::SCHEDULERS)
        .chain(GENERIC)
}

/// The names of the schedulers that act in `kind`, in table order.
pub fn names(kind: EnvKind) -> Vec<&'static str> {
    rows()
        .filter(|row| row.kinds.contains(&kind))
        .map(|row| row.name)
        .collect()
}

/// The row called `name` for `kind`.
pub fn row(name: &str, kind: EnvKind) -> Result<&'static SchedulerRow, PolicyError> {
    rows()
        .find(|row| row.name == name && row.kinds.contains(&kind))
        .ok_or_else(|| PolicyError::Unknown {
            name: name.to_owned(),
            for_kind: format!(" for {} workloads", kind.name()),
            available: names(kind).join(", "),
        })
}

/// Whether scheduler `name` of `kind` declares option `key`.
pub fn takes_option(name: &str, kind: EnvKind, key: &str) -> bool {
    row(name, kind).is_ok_and(|row| row.options.iter().any(|o| o.key == key))
}

/// The scheduler of `spec` for the env of `ctx`, given the `shared` options it declares and
/// then its inline ones.
pub fn build(
    spec: &str,
    ctx: &EnvContext,
    shared: &[(String, String)],
) -> Result<Box<dyn Policy>, PolicyError> {
    let (name, inline) = parse_spec(spec)?;
    let row = row(name, ctx.kind())?;
    let declared = |key: &str| row.options.iter().any(|o| o.key == key);
    let pairs: Vec<(String, String)> = shared
        .iter()
        .filter(|(k, _)| declared(k))
        .chain(&inline)
        .cloned()
        .collect();
    let options = Options::parse(row.name, row.options, &pairs)?;
    let policy = (row.build)(ctx, &options)?;
    // a kind's own schedulers plan in its native interface; the generic ones read the spaces
    let generic = GENERIC.iter().any(|g| g.name == row.name);
    Ok(if generic {
        policy
    } else {
        ctx.through_interface(policy)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_unique_per_kind_and_its_defaults_parse() {
        for kind in EnvKind::ALL {
            let names = names(kind);
            let mut unique = names.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{names:?}");
        }
        for row in rows() {
            Options::parse(row.name, row.options, &[]).unwrap();
        }
    }

    #[test]
    fn a_name_of_another_kind_is_refused_with_the_kinds_list() {
        let err = row("fifo", EnvKind::SingleJob).err().unwrap().to_string();
        assert_eq!(
            err,
            "unknown scheduler `fifo` for single-job workloads; available: static, greedy, periodic, raes, consensus, random"
        );
        assert!(row("fifo", EnvKind::Jobs).is_ok());
    }
}
