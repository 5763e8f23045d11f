//! `consensus`: the CPUs `static` would rent in all, split across the nodes by the network's
//! all-time-feasible dynamics (`schedlab_env::network`) instead of a central solver. Node
//! `n`'s cost of `x` CPUs over a round is their price plus the value of its round's compute
//! time under the Amdahl model, its work scaled by its observed speed and the CPU share
//! background load takes (`time_value * work / (speed (1 - background)) * (s + (1 - s) / x)`),
//! so slower or busier nodes are worth more CPUs. The nodes exchange marginal costs over a
//! ring with Metropolis weights, through the chosen quantiser, for `iterations` per round;
//! each node then takes the largest feasible CPU level within its share. Memory and GPU
//! levels are `static`'s.

use schedlab_env::Observation;
use schedlab_env::network::{CentreCost, Dynamics, Quantizer, Weights, graph::ring, uniform};
use schedlab_env::single_job::features::{NODE_BACKGROUND_CPU, NODE_SPEED};

use crate::context::EnvContext;
use crate::context::SingleJobContext;
use crate::options::{OptionSpec, OptionType, Options, PolicyError};
use crate::policy::Policy;
use crate::scheduler_row::SchedulerRow;
use schedlab_env::EnvKind;

pub const ROW: SchedulerRow = SchedulerRow {
    name: "consensus",
    kinds: &[EnvKind::SingleJob],
    help: "static's CPU total split across nodes by all-time-feasible consensus on marginal costs",
    options: &[
        OptionSpec {
            key: "iterations",
            kind: OptionType::Positive,
            default: "300",
            help: "consensus iterations per round",
        },
        OptionSpec {
            key: "rho",
            kind: OptionType::NonNegative,
            default: "0",
            help: "log quantiser of the messages (0: exact)",
        },
        OptionSpec {
            key: "serial",
            kind: OptionType::Share,
            default: "0.1",
            help: "Amdahl serial share of a node's work",
        },
    ],
    build,
};

fn build(ctx: &EnvContext, options: &Options) -> Result<Box<dyn Policy>, PolicyError> {
    let rho = options.number("rho");
    Ok(Box::new(ConsensusPolicy {
        ctx: SingleJobContext::part_of(ctx).clone(),
        iterations: options.number("iterations") as usize,
        quantizer: if rho > 0.0 {
            Quantizer::Log {
                rho,
                smallest: 1e-9,
                largest: 1e9,
            }
        } else {
            Quantizer::Exact
        },
        serial: options.number("serial"),
    }))
}

pub struct ConsensusPolicy {
    ctx: SingleJobContext,
    iterations: usize,
    quantizer: Quantizer,
    serial: f64,
}

impl ConsensusPolicy {
    /// Each node's CPUs: the consensus split of `static`'s total.
    fn shares(&self, observation: &Observation) -> Vec<f64> {
        let nodes = self.ctx.nodes();
        let cpu_dim = |n| self.ctx.dim(n, 0);
        let budget: f64 = (0..nodes)
            .map(|n| {
                let d = cpu_dim(n);
                self.ctx
                    .size_of(d, self.ctx.middle_feasible(observation, d))
            })
            .sum();
        if nodes < 2 || budget <= 0.0 {
            return vec![budget; nodes];
        }
        let smallest = self.ctx.level_sizes[0]
            .iter()
            .copied()
            .filter(|&s| s > 0.0)
            .fold(f64::INFINITY, f64::min);
        let price = self.ctx.prices_per_s[0] * self.ctx.round_interval_s;
        let costs: Vec<CentreCost> = (0..nodes)
            .map(|n| {
                let block = self.ctx.node_features(observation, n);
                let busy = f64::from(block[NODE_BACKGROUND_CPU]).clamp(0.0, 0.95);
                let speed = f64::from(block[NODE_SPEED]).max(1e-3) * (1.0 - busy);
                let capacity = self.ctx.node_capacity[n][0] * (1.0 - busy);
                CentreCost {
                    price,
                    // a round of one core's work per unit speed, valued at the price of the
                    // whole budget: time then weighs as much as money
                    work_s: self.ctx.round_interval_s / speed,
                    serial: self.serial,
                    time_value: price * budget / self.ctx.round_interval_s,
                    min: smallest,
                    max: capacity.max(smallest),
                    penalty: price * budget,
                }
            })
            .collect();
        let pairs_graph = ring(nodes, Weights::Metropolis);
        let mut dynamics = Dynamics::new(&costs, self.quantizer);
        let mut x = uniform(nodes, budget);
        for _ in 0..self.iterations {
            if dynamics.step(&pairs_graph, &mut x).is_err() {
                break;
            }
        }
        x
    }
}

impl Policy for ConsensusPolicy {
    fn name(&self) -> &str {
        "consensus"
    }

    fn reset(&mut self, _seed: u64) {}

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        let shares = self.shares(observation);
        (0..self.ctx.action_space.dims())
            .map(|d| {
                let (node, field) = (
                    self.ctx.action_space.unit_of(d),
                    self.ctx.action_space.field_of(d),
                );
                let middle = self.ctx.middle_feasible(observation, d);
                match field {
                    // a node static would run keeps at least the smallest container
                    0 => self
                        .ctx
                        .level_within(observation, d, shares[node])
                        .max(middle.min(1)),
                    _ => middle,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::SchedulingEnv;
    use crate::single_job::test_envs::real::small_env;

    /// The split keeps static's total exactly, gives the slowest effective node the most
    /// CPUs short of its capacity, and every level it picks is allowed.
    #[test]
    fn consensus_splits_statics_total_towards_the_slower_nodes() {
        let mut env = small_env();
        let EnvContext::SingleJob(ctx) = env.context() else {
            unreachable!()
        };
        let options = Options::parse("consensus", ROW.options, &[]).unwrap();
        let mut policy = build(&env.context(), &options).unwrap();
        let consensus = ConsensusPolicy {
            ctx: ctx.clone(),
            iterations: 2000,
            quantizer: Quantizer::Exact,
            serial: 0.1,
        };
        for seed in 0..4 {
            let (observation, _) = env.reset(seed).unwrap();
            let budget: f64 = (0..ctx.nodes())
                .map(|n| {
                    let d = ctx.dim(n, 0);
                    ctx.size_of(d, ctx.middle_feasible(&observation, d))
                })
                .sum();
            let shares = consensus.shares(&observation);
            let total: f64 = shares.iter().sum();
            assert!(
                (total - budget).abs() <= 1e-9 * budget,
                "{total} against {budget}"
            );
            let effective: Vec<f64> = (0..ctx.nodes())
                .map(|n| {
                    let block = ctx.node_features(&observation, n);
                    f64::from(block[NODE_SPEED]) * (1.0 - f64::from(block[NODE_BACKGROUND_CPU]))
                })
                .collect();
            // among the two 16-core nodes, the slower gets more
            let (fast, small) = (0, 3);
            if effective[small] < effective[fast] {
                assert!(shares[small] > shares[fast], "{shares:?} {effective:?}");
            }
            let action = policy.act(&observation);
            for (d, &level) in action.iter().enumerate() {
                assert!(
                    observation.mask_of(&ctx.action_space, d)[level],
                    "{action:?}"
                );
            }
        }
    }
}
