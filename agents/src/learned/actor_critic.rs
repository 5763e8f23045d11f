//! The actor-critic network of A2C and PPO: a shared two-layer torso, one logit per action
//! level (factorised: one categorical per node and resource) and a value head, and the PPO
//! clipped objective on top of it.

use burn::config::Config;
use burn::module::Module;
use burn::nn::{Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};
use schedlab_env::ActionSpace;

use super::batch::chosen_one_hot;
use super::masked::masked_log_probs;

#[derive(Config, Debug)]
pub struct ActorCriticConfig {
    /// Observation length.
    pub inputs: usize,
    /// Total action levels (the mask length).
    pub outputs: usize,
    #[config(default = 128)]
    pub hidden: usize,
}

#[derive(Module, Debug)]
pub struct ActorCritic {
    torso_in: Linear,
    torso_out: Linear,
    policy: Linear,
    value: Linear,
}

impl ActorCriticConfig {
    pub fn init(&self, device: &Device) -> ActorCritic {
        ActorCritic {
            torso_in: LinearConfig::new(self.inputs, self.hidden).init(device),
            torso_out: LinearConfig::new(self.hidden, self.hidden).init(device),
            policy: LinearConfig::new(self.hidden, self.outputs).init(device),
            value: LinearConfig::new(self.hidden, 1).init(device),
        }
    }
}

impl ActorCritic {
    /// Logits `[batch, outputs]` and values `[batch]`.
    pub fn forward(&self, observations: Tensor<2>) -> (Tensor<2>, Tensor<1>) {
        let h = relu(
            self.torso_out
                .forward(relu(self.torso_in.forward(observations))),
        );
        (
            self.policy.forward(h.clone()),
            self.value.forward(h).squeeze_dim(1),
        )
    }
}

/// A minibatch for the PPO update, flat row-major host data.
#[derive(Debug, Clone)]
pub struct PpoBatch {
    pub observations: Vec<f32>,
    /// 1 for allowed levels, 0 for masked ones, `[rows, mask_len]`.
    pub masks: Vec<f32>,
    /// The chosen level per dimension, `[rows, dims]`.
    pub actions: Vec<usize>,
    pub old_log_probs: Vec<f32>,
    pub advantages: Vec<f32>,
    pub returns: Vec<f32>,
}

/// Coefficients of the PPO objective.
#[derive(Config, Debug)]
pub struct PpoLossConfig {
    #[config(default = 0.2)]
    pub clip: f32,
    #[config(default = 0.5)]
    pub value_coef: f32,
    #[config(default = 0.01)]
    pub entropy_coef: f32,
}

/// The loss terms, for logging.
pub struct PpoLoss {
    pub total: Tensor<1>,
    pub policy: Tensor<1>,
    pub value: Tensor<1>,
    pub entropy: Tensor<1>,
}

/// `-min(r A, clip(r, 1-e, 1+e) A) + c_v (V - R)^2 - c_e H`, averaged over the batch, where
/// `r` is the ratio of the joint (summed over dimensions) action probabilities and `H` the
/// summed entropy of the masked per-dimension distributions.
pub fn ppo_loss(
    net: &ActorCritic,
    space: &ActionSpace,
    batch: &PpoBatch,
    config: &PpoLossConfig,
    device: &Device,
) -> PpoLoss {
    let rows = batch.advantages.len();
    let width = space.mask_len();
    let tensor2 =
        |v: Vec<f32>, cols: usize| Tensor::<2>::from_data(TensorData::new(v, [rows, cols]), device);
    let tensor1 = |v: Vec<f32>| Tensor::<1>::from_data(TensorData::new(v, [rows]), device);
    let (logits, values) = net.forward(tensor2(
        batch.observations.clone(),
        batch.observations.len() / rows,
    ));
    let log_probs = masked_log_probs(space, logits, tensor2(batch.masks.clone(), width));
    let chosen = chosen_one_hot(space, &batch.actions);
    let new_log_prob: Tensor<1> = (log_probs.clone() * tensor2(chosen, width))
        .sum_dim(1)
        .squeeze_dim(1);
    let ratio = (new_log_prob - tensor1(batch.old_log_probs.clone())).exp();
    let advantages = tensor1(batch.advantages.clone());
    let unclipped = ratio.clone() * advantages.clone();
    let clipped = ratio.clamp(1.0 - config.clip, 1.0 + config.clip) * advantages;
    let policy = unclipped.min_pair(clipped).mean().neg();
    let error = values - tensor1(batch.returns.clone());
    let value = (error.clone() * error).mean();
    let entropy = (log_probs.clone().exp() * log_probs)
        .sum_dim(1)
        .mean()
        .neg();
    let total = policy.clone() + value.clone().mul_scalar(config.value_coef)
        - entropy.clone().mul_scalar(config.entropy_coef);
    PpoLoss {
        total,
        policy,
        value,
        entropy,
    }
}

#[cfg(test)]
mod tests {
    use burn::optim::{AdamConfig, GradientsParams};

    use super::*;
    use crate::learned::masked::argmax;
    use crate::single_job::context::fixtures::node_space;

    #[test]
    fn ppo_steps_raise_the_probability_of_an_advantaged_action_and_never_of_a_masked_one() {
        let device = Device::flex().autodiff();
        device.seed(3);
        let space = node_space(1, [3, 2, 2]);
        let mut net = ActorCriticConfig::new(4, space.mask_len())
            .with_hidden(16)
            .init(&device);
        let mask = vec![1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let observations = vec![0.5, -0.2, 0.1, 0.9];
        let log_probs = |net: &ActorCritic| -> Vec<f32> {
            let (logits, _) = net.forward(Tensor::from_data(
                TensorData::new(observations.clone(), [1, 4]),
                &device,
            ));
            let m = Tensor::<2>::from_data(TensorData::new(mask.clone(), [1, 7]), &device);
            masked_log_probs(&space, logits, m)
                .into_data()
                .try_to_vec::<f32>()
                .unwrap()
        };
        let target = [2usize, 1, 0];
        let joint = |lp: &[f32]| lp[2] + lp[3 + 1] + lp[5];
        let before = log_probs(&net);
        let batch = PpoBatch {
            observations: observations.clone(),
            masks: mask.clone(),
            actions: target.to_vec(),
            old_log_probs: vec![joint(&before)],
            advantages: vec![1.0],
            returns: vec![1.0],
        };
        let config = PpoLossConfig::new();
        let mut optim = AdamConfig::new().init();
        for _ in 0..5 {
            let loss = ppo_loss(&net, &space, &batch, &config, &device);
            let grads = GradientsParams::from_grads(loss.total.backward(), &net);
            net = optim.step(1e-2, net, grads);
        }
        let after = log_probs(&net);
        assert!(
            joint(&after) > joint(&before),
            "{} -> {}",
            joint(&before),
            joint(&after)
        );
        // past 1 + clip the objective is flat: the policy term is -(1 + clip) A exactly
        let moved = joint(&after) - joint(&before);
        assert!(moved > (1.0f32 + config.clip).ln(), "moved {moved}");
        let policy = ppo_loss(&net, &space, &batch, &config, &device)
            .policy
            .into_scalar::<f32>();
        assert!(
            (policy + 1.0 + config.clip).abs() < 1e-5,
            "policy term {policy}"
        );
        assert_eq!(after[1].exp(), 0.0, "the masked level keeps probability 0");
        let allowed: Vec<bool> = mask.iter().map(|&m| m > 0.0).collect();
        assert_ne!(argmax(&space, &after, &allowed)[0], 1);
    }

    /// A2C is the PPO loop with one epoch and one minibatch: at ratio 1 the clipped objective's
    /// gradient must be the plain policy gradient `-mean(A grad log pi(a))`.
    #[test]
    fn at_ratio_one_the_clipped_objective_has_the_policy_gradient() {
        let device = Device::flex().autodiff();
        device.seed(5);
        let space = node_space(2, [3, 2, 2]);
        let net = ActorCriticConfig::new(3, space.mask_len())
            .with_hidden(8)
            .init(&device);
        let observations = vec![0.3, -0.1, 0.7, -0.5, 0.2, 0.1];
        let masks = vec![1.0; 2 * space.mask_len()];
        let actions = vec![2, 1, 0, 0, 0, 1, 1, 0, 1, 2, 1, 0];
        let advantages = vec![1.5, -0.5];
        let chosen_log_probs = || {
            let (logits, _) = net.forward(Tensor::from_data(
                TensorData::new(observations.clone(), [2, 3]),
                &device,
            ));
            let lp = masked_log_probs(
                &space,
                logits,
                Tensor::from_data(TensorData::new(masks.clone(), [2, 14]), &device),
            );
            let pick = chosen_one_hot(&space, &actions);
            (lp * Tensor::<2>::from_data(TensorData::new(pick, [2, 14]), &device))
                .sum_dim(1)
                .squeeze_dim::<1>(1)
        };
        let old: Vec<f32> = chosen_log_probs().into_data().try_to_vec::<f32>().unwrap();
        let batch = PpoBatch {
            observations: observations.clone(),
            masks: masks.clone(),
            actions: actions.clone(),
            old_log_probs: old,
            advantages: advantages.clone(),
            returns: vec![0.0, 0.0],
        };
        let ppo = ppo_loss(&net, &space, &batch, &PpoLossConfig::new(), &device).policy;
        let pg = (chosen_log_probs()
            * Tensor::<1>::from_data(TensorData::new(advantages.clone(), [2]), &device))
        .mean()
        .neg();
        let grad = |loss: Tensor<1>| -> Vec<f32> {
            let grads = loss.backward();
            net.policy
                .weight
                .val()
                .grad(&grads)
                .unwrap()
                .into_data()
                .try_to_vec::<f32>()
                .unwrap()
        };
        let (a, b) = (grad(ppo), grad(pg));
        assert!(
            a.iter().any(|v| v.abs() > 1e-4),
            "the gradient is not trivially zero"
        );
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-5, "{x} vs {y}");
        }
    }
}
