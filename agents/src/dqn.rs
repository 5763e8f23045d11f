//! `dqn`: Double DQN with action branching (one Q head per node and resource over a shared
//! torso, Tavakoli et al. 2018). Masked levels are never chosen and never used as targets.
//! This file holds the network, acting and the target; the replay and update loop live in
//! `schedlab-trainer`.

use burn::config::Config;
use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use schedlab_env::{ActionSpace, Observation};

use crate::learned::batch::{features, inference_device};
use crate::learned::masked::argmax;
use crate::policy::{Policy, PolicyContext};

#[derive(Config, Debug)]
pub struct BranchingQConfig {
    pub inputs: usize,
    /// Total action levels (the mask length): one Q value per level of every dimension.
    pub outputs: usize,
    #[config(default = 128)]
    pub hidden: usize,
}

#[derive(Module, Debug)]
pub struct BranchingQ {
    torso_in: Linear,
    torso_out: Linear,
    q: Linear,
}

impl BranchingQConfig {
    pub fn init(&self, device: &Device) -> BranchingQ {
        BranchingQ {
            torso_in: LinearConfig::new(self.inputs, self.hidden).init(device),
            torso_out: LinearConfig::new(self.hidden, self.hidden).init(device),
            q: LinearConfig::new(self.hidden, self.outputs).init(device),
        }
    }
}

impl BranchingQ {
    /// Q values `[batch, mask_len]`, laid out like the action mask.
    pub fn forward(&self, observations: Tensor<2>) -> Tensor<2> {
        self.q.forward(relu(
            self.torso_out
                .forward(relu(self.torso_in.forward(observations))),
        ))
    }
}

/// Double-DQN targets per dimension for one transition: the next action is chosen by the
/// online network among the next state's allowed levels, and valued by the target network:
/// `y_d = r + gamma * (1 - terminal) * Q_target(s', argmax_{allowed l} Q_online(s', l))_d`.
/// (Branching: every dimension shares the reward, as in Tavakoli et al.'s mean-free variant.)
pub fn double_dqn_targets(
    space: &ActionSpace,
    reward: f32,
    terminal: bool,
    gamma: f32,
    online_next: &[f32],
    target_next: &[f32],
    next_mask: &[bool],
) -> Vec<f32> {
    if terminal {
        return vec![reward; space.dims()];
    }
    argmax(space, online_next, next_mask)
        .iter()
        .enumerate()
        .map(|(d, &l)| reward + gamma * target_next[space.mask_offset(d) + l])
        .collect()
}

/// Linear exploration schedule: `start` to `end` over the first `fraction` of `total` steps.
#[derive(Debug, Clone, Copy)]
pub struct EpsilonSchedule {
    pub start: f64,
    pub end: f64,
    pub fraction: f64,
    pub total: u64,
}

impl EpsilonSchedule {
    pub fn at(&self, step: u64) -> f64 {
        let span = (self.fraction * self.total as f64).max(1.0);
        let t = (step as f64 / span).min(1.0);
        self.start + t * (self.end - self.start)
    }
}

/// The DQN agent: epsilon-greedy over allowed levels (greedy when evaluating).
pub struct DqnAgent {
    pub net: BranchingQ,
    space: ActionSpace,
    rng: StdRng,
    /// Exploration rate; 0 acts greedily.
    pub epsilon: f64,
}

impl DqnAgent {
    pub fn new(net: BranchingQ, ctx: &PolicyContext, seed: u64) -> Self {
        DqnAgent {
            net,
            space: ctx.action_space.clone(),
            rng: StdRng::seed_from_u64(seed),
            epsilon: 0.0,
        }
    }

    /// Q values of each observation, without autodiff.
    pub fn q_values(&self, observations: &[&Observation]) -> Vec<f32> {
        let device = inference_device(&self.net);
        self.net
            .valid()
            .forward(features(observations, &device))
            .into_data()
            .try_to_vec::<f32>()
            .expect("f32 Q values")
    }

    pub fn act_batch(&mut self, observations: &[&Observation]) -> Vec<Vec<usize>> {
        let q = self.q_values(observations);
        let width = self.space.mask_len();
        observations
            .iter()
            .enumerate()
            .map(|(row, obs)| {
                let greedy = argmax(
                    &self.space,
                    &q[row * width..(row + 1) * width],
                    &obs.action_mask,
                );
                greedy
                    .into_iter()
                    .enumerate()
                    .map(|(d, level)| {
                        if self.rng.random_bool(self.epsilon.clamp(0.0, 1.0)) {
                            let allowed = obs.allowed(&self.space, d);
                            allowed[self.rng.random_range(0..allowed.len())]
                        } else {
                            level
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

impl Policy for DqnAgent {
    fn name(&self) -> &str {
        "dqn"
    }

    fn reset(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed ^ 0xd0_d0);
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        self.act_batch(&[observation]).remove(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::real::small_env;

    fn space() -> ActionSpace {
        ActionSpace {
            nodes: 1,
            levels: [3, 2, 2],
        }
    }

    #[test]
    fn masked_levels_are_never_chosen_even_with_the_largest_q() {
        let space = space();
        let q = [0.0, 9.0, 1.0, 0.5, 0.1, 7.0, 0.2];
        let mask = [true, false, true, true, true, false, true];
        assert_eq!(argmax(&space, &q, &mask), vec![2, 0, 1]);
    }

    #[test]
    fn double_dqn_targets_take_the_online_argmax_and_the_target_value() {
        let space = space();
        // online prefers CPU level 2, memory level 1, GPU level 0 (level 1 masked despite 5.0)
        let online = [0.1, 0.3, 0.9, 0.0, 1.0, 0.2, 5.0];
        // the target network would prefer other levels: the target must not use its own argmax
        let target = [4.0, 3.0, 0.5, 2.0, -1.0, 0.7, 9.0];
        let mask = [true, true, true, true, true, true, false];
        let y = double_dqn_targets(&space, 1.0, false, 0.5, &online, &target, &mask);
        assert_eq!(y, vec![1.0 + 0.5 * 0.5, 1.0 - 0.5, 1.0 + 0.5 * 0.7]);
        assert_eq!(
            double_dqn_targets(&space, 2.0, true, 0.5, &online, &target, &mask),
            vec![2.0; 3]
        );
    }

    #[test]
    fn epsilon_decays_linearly_then_holds() {
        let s = EpsilonSchedule {
            start: 1.0,
            end: 0.05,
            fraction: 0.5,
            total: 1000,
        };
        assert_eq!(s.at(0), 1.0);
        assert!((s.at(250) - 0.525).abs() < 1e-12);
        assert!((s.at(500) - 0.05).abs() < 1e-12 && (s.at(900) - 0.05).abs() < 1e-12);
    }

    #[test]
    fn exploring_or_greedy_the_agent_stays_inside_the_mask() {
        let mut env = small_env();
        let ctx = PolicyContext::of(&env);
        let device = Device::flex().autodiff();
        let net = BranchingQConfig::new(ctx.observation_space.len(), ctx.action_space.mask_len())
            .with_hidden(16)
            .init(&device);
        let mut agent = DqnAgent::new(net, &ctx, 3);
        let (obs, _) = env.reset(0).unwrap();
        for epsilon in [1.0, 0.3, 0.0] {
            agent.epsilon = epsilon;
            for action in agent.act_batch(&vec![&obs; 50]) {
                for (d, &l) in action.iter().enumerate() {
                    assert!(
                        obs.mask_of(&ctx.action_space, d)[l],
                        "epsilon {epsilon}: dimension {d} level {l}"
                    );
                }
            }
        }
    }
}
