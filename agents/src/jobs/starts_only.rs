//! A jobs policy restricted to starts: it sees, and so chooses among, only the one-choice
//! choices that start a queued job or `advance`; running jobs keep their containers until
//! they finish, as an online list scheduler's do. A learner trained so cannot churn (preempt
//! and restart the same jobs, docs/ppo-from-scratch.md), at the price of never resizing.

use schedlab_env::Observation;
use schedlab_env::jobs::ChoiceLayout;

use crate::context::EnvContext;
use crate::policy::Policy;

/// The one-choice layout of `env`, which the restriction needs; `Err` names why there is none.
pub fn starts_only_layout(env: &EnvContext) -> Result<ChoiceLayout, String> {
    let EnvContext::Jobs(ctx) = env else {
        return Err(format!(
            "starts_only needs a jobs workload; this is a {} workload",
            env.kind().name()
        ));
    };
    ctx.one_choice.clone().ok_or_else(|| {
        "starts_only needs the one-choice interface (`window.interface = \"one-choice\"`)".into()
    })
}

pub struct StartsOnly {
    inner: Box<dyn Policy>,
    layout: ChoiceLayout,
}

impl StartsOnly {
    /// `inner` restricted to starts through `layout`, or as it is without one.
    pub fn wrap(inner: Box<dyn Policy>, layout: Option<ChoiceLayout>) -> Box<dyn Policy> {
        match layout {
            Some(layout) => Box::new(StartsOnly { inner, layout }),
            None => inner,
        }
    }
}

impl Policy for StartsOnly {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn reset(&mut self, seed: u64) {
        self.inner.reset(seed);
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let mut restricted = observation.clone();
        self.layout
            .clear_running_changes(&mut restricted.action_mask);
        self.inner.act(&restricted)
    }
}
