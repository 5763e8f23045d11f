//! A jobs policy restricted to some of the one-choice choices: it sees, and so chooses among,
//! only those its [`Restriction`] leaves. Starts only: running jobs keep their containers
//! until they finish, as an online list scheduler's do. Grow only: running jobs may also be
//! scaled up into idle capacity, as `raes` grows them. Neither can churn (preempt and restart
//! the same jobs, docs/ppo-from-scratch.md).

use schedlab_env::Observation;
use schedlab_env::jobs::{ChoiceLayout, Restriction};

use crate::context::EnvContext;
use crate::policy::Policy;

/// A restriction of the one-choice choices of one env.
#[derive(Debug, Clone, PartialEq)]
pub struct ChoiceRestriction {
    layout: ChoiceLayout,
    restriction: Restriction,
}

/// Why a learner's restriction options cannot be had on an env.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RestrictionError {
    #[error("{option} needs a jobs workload; this is a {kind} workload")]
    NotJobs {
        option: &'static str,
        kind: &'static str,
    },
    #[error("{option} needs the one-choice interface (`window.interface = \"one-choice\"`)")]
    NotOneChoice { option: &'static str },
}

impl ChoiceRestriction {
    /// The restriction a learner asks for on `env` (its option `starts_only` or `grow_only`):
    /// `None` where it asks for none; `Err` names why it cannot be had.
    pub fn of(
        env: &EnvContext,
        restriction: Option<Restriction>,
    ) -> Result<Option<Self>, RestrictionError> {
        let Some(restriction) = restriction else {
            return Ok(None);
        };
        let option = match restriction {
            Restriction::StartsOnly => "starts_only",
            Restriction::GrowOnly => "grow_only",
        };
        let EnvContext::Jobs(ctx) = env else {
            return Err(RestrictionError::NotJobs {
                option,
                kind: env.kind().name(),
            });
        };
        let layout = ctx
            .one_choice
            .clone()
            .ok_or(RestrictionError::NotOneChoice { option })?;
        Ok(Some(ChoiceRestriction {
            layout,
            restriction,
        }))
    }

    /// Clears from `observation`'s mask what the restriction leaves out.
    pub fn apply(&self, observation: &mut Observation) {
        self.layout.restrict(self.restriction, observation);
    }
}

pub struct Restricted {
    inner: Box<dyn Policy>,
    restriction: ChoiceRestriction,
}

impl Restricted {
    /// `inner` restricted by `restriction`, or as it is without one.
    pub fn wrap(inner: Box<dyn Policy>, restriction: Option<ChoiceRestriction>) -> Box<dyn Policy> {
        match restriction {
            Some(restriction) => Box::new(Restricted { inner, restriction }),
            None => inner,
        }
    }
}

impl Policy for Restricted {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn reset(&mut self, seed: u64) {
        self.inner.reset(seed);
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let mut restricted = observation.clone();
        self.restriction.apply(&mut restricted);
        self.inner.act(&restricted)
    }
}
