//! Every scheduler by name, as a table of rows: name, the kinds of env it acts in, typed
//! options with defaults and help, and its constructor. The rows live beside the schedulers
//! (each kind's `SCHEDULERS` in its module, which env's table of kinds names, and
//! [`GENERIC`]); adding a scheduler is one file and one row (see ARCHITECTURE.md, "Add a
//! scheduler").
//!
//! A spec is a name with optional inline options, `raes:solver=heuristic:predictor=ewma`;
//! options shared by several specs (the CLI's undotted `--set` keys) go to every scheduler
//! that declares them, before its inline ones.

use std::sync::Arc;

use crate::context::EnvContext;
use crate::context::{DagContext, GuideResolver, TrainedLoader};
use crate::jobs::OneChoice;
use crate::options::{Options, PolicyError, parse_spec};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

/// Resolving a spec is the registry's, so the contexts' files import no scheduler.
impl EnvContext {
    /// The policy `spec` names in this env: for a DAG env with a guide resolver, what it
    /// resolves (a trained agent its loader knows, else a scheduler); else a scheduler of the
    /// registry (with its inline options).
    pub fn resolve(&self, spec: &str) -> Result<Box<dyn Policy>, PolicyError> {
        if let EnvContext::Dag(dag) = self
            && let Some(guides) = &dag.guides
        {
            return (guides.0)(spec, dag);
        }
        build(spec, self, &[])
    }

    /// This context with a loader of trained agents, which the DAG schedulers built on
    /// another policy (WORL-RTGS's guide) may then name; the other kinds have none.
    pub fn with_trained(self, loader: TrainedLoader) -> Self {
        match self {
            EnvContext::Dag(dag) => EnvContext::Dag(DagContext {
                guides: Some(guide_resolver(Some(loader))),
                ..dag
            }),
            other => other,
        }
    }

    /// A scheduler of this kind, planning in its native interface, as the env takes actions:
    /// with the jobs env's one-choice interface it acts through [`OneChoice`].
    fn through_interface(&self, policy: Box<dyn Policy>) -> Box<dyn Policy> {
        if let EnvContext::Jobs(ctx) = self
            && let Some(layout) = &ctx.one_choice
        {
            Box::new(OneChoice::new(policy, ctx.clone(), layout.clone()))
        } else {
            policy
        }
    }
}

/// Resolves a guide's spec: a trained agent `trained` knows, else a DAG scheduler of the
/// registry, built in a context that resolves its own guides the same way.
fn guide_resolver(trained: Option<TrainedLoader>) -> GuideResolver {
    GuideResolver(Arc::new(move |spec: &str, dag: &DagContext| {
        let ctx = EnvContext::Dag(DagContext {
            guides: Some(guide_resolver(trained.clone())),
            ..dag.clone()
        });
        if let Some(loaded) = trained.as_ref().and_then(|l| (l.0)(spec, &ctx)) {
            return loaded;
        }
        build(spec, &ctx, &[])
    }))
}

/// Schedulers that act in every kind of env through the declared spaces alone.
pub const GENERIC: &[SchedulerRow] = &[crate::random::ROW];

/// From env's table of kinds: each kind's `SCHEDULERS`, found in the kind's module, in the
/// table's order.
macro_rules! kind_schedulers {
    ([] $(($kind:ident, $module:ident, $name:literal, $doc:literal, $workload:ty, $env:ty, $context:ident)),+) => {
        const KIND_SCHEDULERS: [&[SchedulerRow]; EnvKind::ALL.len()] =
            [$(crate::$module::SCHEDULERS),+];
    };
}

schedlab_env::kinds_table!(callback kind_schedulers []);

/// Every row: each kind's own, then the generic ones.
pub fn rows() -> impl Iterator<Item = &'static SchedulerRow> {
    KIND_SCHEDULERS
        .into_iter()
        .flat_map(|rows| rows.iter())
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
    // a DAG scheduler built on another policy resolves it through the registry
    let with_guides;
    let ctx = match ctx {
        EnvContext::Dag(dag) if dag.guides.is_none() => {
            with_guides = EnvContext::Dag(DagContext {
                guides: Some(guide_resolver(None)),
                ..dag.clone()
            });
            &with_guides
        }
        _ => ctx,
    };
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
