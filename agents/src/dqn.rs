//! `dqn`: Double DQN with action branching (one Q head per node and resource over a shared
//! torso, Tavakoli et al. 2018). Masked levels are never chosen and never used as targets.
//! This file holds the network, acting and the target; the replay and update loop live in
//! `schedlab-trainer`.

use burn::config::Config;
use burn::module::Module;
use burn::nn::loss::HuberLossConfig;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use schedlab_env::{ActionSpace, Observation};

use crate::context::PolicyContext;
use crate::learned::batch::{at_chosen, chosen_one_hot, inference_device};
use crate::learned::masked::argmax;
use crate::policy::Policy;

#[derive(Config, Debug)]
pub struct BranchingQConfig {
    pub inputs: usize,
    /// Total action levels (the mask length): one Q value per level of every dimension.
    pub outputs: usize,
    #[config(default = 128)]
    pub hidden: usize,
    /// The second hidden layer's width; 0: `hidden`.
    #[config(default = 0)]
    pub hidden_out: usize,
}

#[derive(Module, Debug)]
pub struct BranchingQ {
    torso_in: Linear,
    torso_out: Linear,
    q: Linear,
}

impl BranchingQConfig {
    pub fn init(&self, device: &Device) -> BranchingQ {
        let second = if self.hidden_out == 0 {
            self.hidden
        } else {
            self.hidden_out
        };
        BranchingQ {
            torso_in: LinearConfig::new(self.inputs, self.hidden).init(device),
            torso_out: LinearConfig::new(self.hidden, second).init(device),
            q: LinearConfig::new(second, self.outputs).init(device),
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
/// `y_d = r + gamma * (1 - terminal) * Q_target(s', argmax_{allowed l} Q_online(s', l))_d`,
/// `gamma` being the transition's own discount. Given the target network's values as
/// `online_next` too, it is plain DQN's `max_l Q_target(s', l)` (CleanRL's dqn.py).
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

/// Linear exploration schedule: `start` to `end` over the first `steps` env rounds, then
/// `end`. Counted in absolute rounds so that a resumed run continues the same schedule.
#[derive(Debug, Clone, Copy)]
pub struct EpsilonSchedule {
    pub start: f64,
    pub end: f64,
    pub steps: u64,
}

impl EpsilonSchedule {
    pub fn at(&self, step: u64) -> f64 {
        let t = (step as f64 / self.steps.max(1) as f64).min(1.0);
        self.start + t * (self.end - self.start)
    }
}

/// A replayed minibatch for the TD update, flat row-major host data.
#[derive(Debug, Clone)]
pub struct DqnBatch {
    pub observations: Vec<f32>,
    /// The chosen level per dimension, `[rows, dims]`.
    pub actions: Vec<usize>,
    /// The Double-DQN target per dimension, `[rows, dims]`.
    pub targets: Vec<f32>,
}

/// The TD loss and, for logging, the mean Q value of the chosen levels.
pub struct TdLoss {
    pub loss: Tensor<1>,
    pub chosen_q: Tensor<1>,
}

/// Huber loss (threshold `delta`) between each dimension's Q value of the chosen level and
/// its target, averaged over rows and dimensions. Only chosen levels receive gradient.
pub fn td_loss(
    net: &BranchingQ,
    space: &ActionSpace,
    batch: &DqnBatch,
    delta: f32,
    device: &Device,
) -> TdLoss {
    let rows = batch.actions.len() / space.dims();
    let width = space.mask_len();
    let q = net.forward(Tensor::from_data(
        TensorData::new(
            batch.observations.clone(),
            [rows, batch.observations.len() / rows],
        ),
        device,
    ));
    let levels = |v: Vec<f32>| Tensor::<2>::from_data(TensorData::new(v, [rows, width]), device);
    let chosen_q = q * levels(chosen_one_hot(space, &batch.actions));
    let spread_targets = levels(at_chosen(space, &batch.actions, |k| batch.targets[k]));
    // residuals are 0 off the chosen levels, where the Huber loss is 0 too
    let residuals = spread_targets - chosen_q.clone();
    let count = (rows * space.dims()) as f32;
    TdLoss {
        loss: HuberLossConfig::new(delta)
            .init()
            .forward_residuals(residuals)
            .sum()
            .div_scalar(count),
        chosen_q: chosen_q.sum().div_scalar(count),
    }
}

/// Q values `[rows, mask_len]` of flat features `[rows, observation length]`, without autodiff.
pub fn q_values_of(net: &BranchingQ, features: Vec<f32>, rows: usize) -> Vec<f32> {
    let device = inference_device(net);
    let width = features.len() / rows;
    net.valid()
        .forward(Tensor::from_data(
            TensorData::new(features, [rows, width]),
            &device,
        ))
        .into_data()
        .try_to_vec::<f32>()
        .expect("f32 Q values")
}

impl BranchingQ {
    /// Polyak averaging toward `online`: `self <- tau * online + (1 - tau) * self`, so
    /// `tau = 1` is the periodic hard copy and a small `tau` the soft update.
    pub fn blended_toward(self, online: &BranchingQ, tau: f32) -> BranchingQ {
        BranchingQ {
            torso_in: blend(self.torso_in, &online.torso_in, tau),
            torso_out: blend(self.torso_out, &online.torso_out, tau),
            q: blend(self.q, &online.q, tau),
        }
    }
}

fn blend(target: Linear, online: &Linear, tau: f32) -> Linear {
    Linear {
        weight: target.weight.map(|w| mix(w, online.weight.val(), tau)),
        bias: match (target.bias, &online.bias) {
            (Some(b), Some(o)) => Some(b.map(|b| mix(b, o.val(), tau))),
            (b, _) => b,
        },
    }
}

fn mix<const D: usize>(target: Tensor<D>, online: Tensor<D>, tau: f32) -> Tensor<D> {
    target.mul_scalar(1.0 - tau) + online.mul_scalar(tau)
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
        let rows = observations.len();
        let flat = observations
            .iter()
            .flat_map(|o| o.features.iter().copied())
            .collect();
        q_values_of(&self.net, flat, rows)
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
    use crate::context::SchedulingEnv;
    use crate::single_job::test_envs::fixtures::one_node_space as space;
    use crate::single_job::test_envs::real::small_env;

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
        // plain DQN: the target network both chooses and values (the best allowed level)
        let y = double_dqn_targets(&space, 1.0, false, 0.5, &target, &target, &mask);
        assert_eq!(y, vec![1.0 + 0.5 * 4.0, 1.0 + 0.5 * 2.0, 1.0 + 0.5 * 0.7]);
    }

    #[test]
    fn epsilon_decays_linearly_then_holds() {
        let s = EpsilonSchedule {
            start: 1.0,
            end: 0.05,
            steps: 500,
        };
        assert_eq!(s.at(0), 1.0);
        assert!((s.at(250) - 0.525).abs() < 1e-12);
        assert!((s.at(500) - 0.05).abs() < 1e-12 && (s.at(900) - 0.05).abs() < 1e-12);
    }

    fn tiny_net(device: &Device, seed: u64) -> BranchingQ {
        device.seed(seed);
        BranchingQConfig::new(2, space().mask_len())
            .with_hidden(8)
            .init(device)
    }

    #[test]
    fn the_td_loss_is_the_mean_huber_of_the_chosen_levels_only() {
        let space = space();
        let device = Device::flex().autodiff();
        let net = tiny_net(&device, 1);
        let observations = vec![0.4, -0.3, 1.0, 0.2];
        let q = q_values_of(&net, observations.clone(), 2);
        let actions = vec![2, 0, 1, 0, 1, 0];
        // one residual inside the quadratic zone, the others far in the linear zone
        let targets = vec![q[2] + 0.5, q[3] - 4.0, q[6] + 3.0, 10.0, -10.0, 10.0];
        let batch = DqnBatch {
            observations,
            actions: actions.clone(),
            targets: targets.clone(),
        };
        let loss = td_loss(&net, &space, &batch, 1.0, &device);
        let huber = |r: f32| {
            if r.abs() <= 1.0 {
                0.5 * r * r
            } else {
                r.abs() - 0.5
            }
        };
        let mut expected = 0.0;
        let mut chosen = 0.0;
        for (k, (&level, &target)) in actions.iter().zip(&targets).enumerate() {
            let (row, d) = (k / space.dims(), k % space.dims());
            let value = q[row * 7 + space.mask_offset(d) + level];
            expected += huber(target - value) / 6.0;
            chosen += value / 6.0;
        }
        let grads = loss.loss.clone().backward();
        assert!((loss.loss.into_scalar::<f32>() - expected).abs() < 1e-5);
        assert!((loss.chosen_q.into_scalar::<f32>() - chosen).abs() < 1e-5);
        // the head's bias gradient is zero exactly at the levels no row chose
        let bias = net.q.bias.as_ref().unwrap().val().grad(&grads).unwrap();
        let bias: Vec<f32> = bias.into_data().try_to_vec().unwrap();
        let picked = [0, 2, 3, 4, 5, 6];
        for (level, g) in bias.iter().enumerate() {
            assert_eq!(*g != 0.0, picked.contains(&level), "level {level}: {g}");
        }
    }

    #[test]
    fn blending_with_tau_one_copies_and_with_a_half_averages() {
        let device = Device::flex();
        let (online, target) = (tiny_net(&device, 1), tiny_net(&device, 2));
        let x = vec![0.3, -0.7];
        let q = |net: &BranchingQ| q_values_of(net, x.clone(), 1);
        assert_ne!(q(&online), q(&target));
        assert_eq!(q(&target.clone().blended_toward(&online, 1.0)), q(&online));
        let weights = |net: &BranchingQ| -> Vec<f32> {
            net.torso_in.weight.val().into_data().try_to_vec().unwrap()
        };
        let half = target.clone().blended_toward(&online, 0.5);
        for ((h, o), t) in weights(&half)
            .iter()
            .zip(weights(&online))
            .zip(weights(&target))
        {
            assert!((h - (o + t) / 2.0).abs() < 1e-6);
        }
    }

    #[test]
    fn exploring_or_greedy_the_agent_stays_inside_the_mask() {
        let mut env = small_env();
        let ctx = env.policy_context();
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
