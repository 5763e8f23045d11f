//! Schedulers that steer the allocation to a fixed split by quantised averaging: each centre
//! sends its excess over its target, `e_i = x_i - t_i`, through the channel, and each edge
//! moves `w_ij (q(e_i) - q(e_j)) / lambda` CPUs, `lambda` the Laplacian bound of the
//! iteration's graph. The excesses sum to zero (both splits meet the demand), so averaging
//! drives every one to zero: each centre reaches its target without a central solver.
//!
//! `rikos` targets the split Rikos et al. 2021's distributed CPU scheduler reaches (every
//! centre at the same share of its capacity), after their quantised averaging; the exact
//! finite-time protocol is not reproduced (docs/network.md).
//! `proportional` targets the split by work (the data each centre holds); `optimum` is the
//! oracle steering to the centralised optimum, a reference, not a distributed method.
//! A centre knows its own allocation: the policy follows it by the flows it chose.

use schedlab_env::Observation;
use schedlab_env::network::{capacity_proportional, optimum, proportional, uniform};

use crate::context::EnvContext;
use crate::context::NetworkContext;
use crate::options::{Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

/// Which split a [`Tracking`] scheduler steers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Capacity,
    Work,
    Optimum,
}

pub const RIKOS: SchedulerRow = SchedulerRow {
    name: "rikos",
    kinds: &[EnvKind::Network],
    help: "capacity-proportional split (Rikos et al. 2021) by quantised averaging",
    options: &[],
    build: |ctx, options| build(ctx, options, Target::Capacity),
};

pub const PROPORTIONAL: SchedulerRow = SchedulerRow {
    name: "proportional",
    kinds: &[EnvKind::Network],
    help: "data-proportional split by quantised averaging",
    options: &[],
    build: |ctx, options| build(ctx, options, Target::Work),
};

pub const OPTIMUM: SchedulerRow = SchedulerRow {
    name: "optimum",
    kinds: &[EnvKind::Network],
    help: "oracle: steers to the centralised optimum by averaging (a reference)",
    options: &[],
    build: |ctx, options| build(ctx, options, Target::Optimum),
};

fn build(ctx: &EnvContext, _: &Options, target: Target) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(Tracking {
        ctx: NetworkContext::part_of(ctx).clone(),
        target,
        goal: Vec::new(),
        x: Vec::new(),
    }))
}

pub struct Tracking {
    ctx: NetworkContext,
    target: Target,
    /// The episode's target split and the allocation so far.
    goal: Vec<f64>,
    x: Vec<f64>,
}

impl Policy for Tracking {
    fn name(&self) -> &str {
        match self.target {
            Target::Capacity => "rikos",
            Target::Work => "proportional",
            Target::Optimum => "optimum",
        }
    }

    fn reset(&mut self, seed: u64) {
        let w = &self.ctx.workload;
        let costs = w.costs(seed);
        let demand = w.demand();
        self.goal = match self.target {
            Target::Capacity => capacity_proportional(&costs, demand),
            Target::Work => proportional(&costs, demand),
            Target::Optimum => optimum(&costs, demand).0,
        };
        self.x = uniform(w.centres(), demand);
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let w = &self.ctx.workload;
        let q = w.spec.channel;
        let present = self.ctx.present(observation);
        let sent: Vec<f64> = self
            .x
            .iter()
            .zip(&self.goal)
            .map(|(x, t)| q.quantize(x - t))
            .collect();
        let lambda = self.ctx.laplacian_bound(&present);
        let desired: Vec<f64> = w
            .base
            .edges()
            .iter()
            .zip(&present)
            .map(|(&(i, j, _), weight)| weight.map_or(0.0, |w| w * (sent[i] - sent[j]) / lambda))
            .collect();
        let action = self.ctx.choose(&desired, observation);
        self.ctx.follow(&action, &mut self.x);
        action
    }
}
