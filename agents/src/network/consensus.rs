//! `consensus` on the network: the all-time-feasible dynamics
//! (`schedlab_env::network::allocation`), each edge moving `eta w_ij (q(g_i) - q(g_j))` CPUs
//! from centre i to j, with `q(g)` the marginal costs the centres sent through the channel;
//! the flow is the ladder's nearest allowed one.
//!
//! `step=theory` takes the iteration's `eta = 1 / (L lambda)` from the observation, `L` the
//! costs' curvature at half their lower bounds: safe anywhere, and slow where allocations sit
//! far above their lower bounds. `step=local` (a heuristic, no convergence proof) gives edge
//! ij `1 / (lambda max(h_i, h_j))`, `h_i` centre i's own curvature at half its current
//! allocation: each centre knows its cost and its allocation (followed by the flows chosen).

use schedlab_env::Observation;
use schedlab_env::network::{CentreCost, uniform};

use crate::context::EnvContext;
use crate::context::NetworkContext;
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "consensus",
    kinds: &[EnvKind::Network],
    help: "all-time-feasible dynamics on the marginal costs the centres send",
    options: &[OptionSpec {
        key: "step",
        kind: OptionType::Choice(&["theory", "local"]),
        default: "theory",
        help: "1/(L lambda) from the costs' global curvature bound, or per edge from the ends' own",
    }],
    build,
};

fn build(ctx: &EnvContext, options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    Ok(Box::new(ConsensusFlows {
        ctx: NetworkContext::part_of(ctx).clone(),
        local: options.choice("step") == 1,
        costs: Vec::new(),
        x: Vec::new(),
    }))
}

pub struct ConsensusFlows {
    ctx: NetworkContext,
    local: bool,
    /// The episode's costs and the allocation so far (for `step=local`).
    costs: Vec<CentreCost>,
    x: Vec<f64>,
}

impl Policy for ConsensusFlows {
    fn name(&self) -> &str {
        "consensus"
    }

    fn reset(&mut self, seed: u64) {
        let w = &self.ctx.workload;
        if self.local {
            self.costs = w.costs(seed);
            self.x = uniform(w.centres(), w.demand());
        }
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let space = &self.ctx.observation_space;
        let w = &self.ctx.workload;
        let eta = f64::from(space.group("network").block(&observation.features, 0)[0]);
        let edges = space.group("edge");
        let present = self.ctx.present(observation);
        let steps: Vec<f64> = if self.local {
            let lambda = self.ctx.laplacian_bound(&present);
            let h: Vec<f64> = self
                .costs
                .iter()
                .zip(&self.x)
                .map(|(c, &x)| c.curvature(0.5 * x) + c.penalty)
                .collect();
            w.base
                .edges()
                .iter()
                .map(|&(i, j, _)| 1.0 / (lambda * h[i].max(h[j])))
                .collect()
        } else {
            vec![eta; present.len()]
        };
        let desired: Vec<f64> = present
            .iter()
            .enumerate()
            .map(|(k, weight)| {
                let block = edges.block(&observation.features, k);
                let (sent_i, sent_j) = (f64::from(block[2]), f64::from(block[3]));
                weight.map_or(0.0, |w| steps[k] * w * (sent_i - sent_j))
            })
            .collect();
        let action = self.ctx.choose(&desired, observation);
        if self.local {
            self.ctx.follow(&action, &mut self.x);
        }
        action
    }
}
