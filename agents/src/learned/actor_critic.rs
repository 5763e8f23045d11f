//! The actor-critic network of A2C and PPO and the objectives trained on it: the PPO clipped
//! objective and behaviour cloning of a teacher (`imitation_loss`).
//!
//! Actor and critic are separate two-layer torsos, ReLU or (`tanh`) tanh (a shared torso lets
//! the value loss, large on long episodes, pull the policy's features around), orthogonally
//! initialised with CleanRL's gains: sqrt(2) in the torsos, 0.01 on the policy head
//! (near-uniform first policy), 1 on the value head.
//!
//! Flat (`units == 0`): one logit per action level (factorised: one categorical per node and
//! resource). Per unit (`units > 0`), for a one-choice space laid out unit-major with a last
//! `advance` choice (the jobs env's one-choice interface): the same actor scores every unit
//! from its own features and the global ones (the observation's first group is the units,
//! the rest global: cluster state and the queue beyond the window), giving each unit its
//! options' logits and an advance score; `advance` is the mean of those scores, and the
//! critic reads the mean of its per-unit features. So the network is the same for any order
//! of the units and any number of jobs behind the window, and a rule such as "shortest
//! first" is within its reach. A space of units x options without `advance` (the DAG env:
//! one option per GPU) takes the same network without the advance score: its weights do not
//! depend on the number of units, and "earliest finish" is within its reach.

use burn::config::Config;
use burn::module::{Module, Param};
use burn::nn::{Initializer, Linear, LinearConfig};
use burn::tensor::activation::{relu, sigmoid};
use burn::tensor::{Device, Int, Tensor, TensorData};
use schedlab_env::ActionSpace;

use super::batch::chosen_one_hot;
use super::host_actor::ActorShape;
use super::masked::masked_log_probs;

#[derive(Config, Debug)]
pub struct ActorCriticConfig {
    /// Observation length.
    pub inputs: usize,
    /// Total action levels (the mask length).
    pub outputs: usize,
    #[config(default = 128)]
    pub hidden: usize,
    /// 0: one flat network. Otherwise the number of units scored by a shared network.
    #[config(default = 0)]
    pub units: usize,
    /// Features per unit (the observation's unit groups, `ObservationSpace::unit_groups`),
    /// when `units > 0`.
    #[config(default = 0)]
    pub unit_features: usize,
    /// The observation's columns in the order the per-unit network reads them
    /// (`ObservationSpace::unit_major_columns`); empty: as they come, the units' blocks first.
    #[config(default = "Vec::new()")]
    pub columns: Vec<usize>,
    /// Per unit: whether the last choice is `advance` (the jobs env's one-choice interface);
    /// without it every choice is a unit's option (the DAG env's GPUs).
    #[config(default = true)]
    pub advance: bool,
    /// Tanh torsos, as CleanRL's ppo.py and SB3's actor-critics have; false: ReLU.
    #[config(default = false)]
    pub tanh: bool,
}

/// Two layers, ReLU or tanh.
#[derive(Module, Debug)]
pub struct Torso {
    input: Linear,
    output: Linear,
    tanh: bool,
}

impl Torso {
    fn new(inputs: usize, hidden: usize, tanh: bool, start: Start, device: &Device) -> Self {
        let gain = std::f64::consts::SQRT_2;
        Torso {
            input: linear(inputs, hidden, gain, start, device),
            output: linear(hidden, hidden, gain, start, device),
            tanh,
        }
    }

    fn forward<const D: usize>(&self, x: Tensor<D>) -> Tensor<D> {
        let activate = |x: Tensor<D>| {
            if self.tanh {
                tanh_by_sigmoid(x)
            } else {
                relu(x)
            }
        };
        activate(self.output.forward(activate(self.input.forward(x))))
    }
}

/// tanh as 2σ(2x) − 1, the same function: flex computes a sigmoid with one `expf` per
/// element where its tanh calls libm's `tanhf` (an `expm1f` inside), and autodiff recomputes
/// either in the backward pass. On CartPole with ppo.py's settings `tanhf` took 53% of PPO's
/// training time (docs/learned.md, "Tasks with known answers"). The host actor computes the
/// same expression (agents/src/learned/host_actor.rs).
pub(crate) fn tanh_by_sigmoid<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    sigmoid(x.mul_scalar(2.0)).mul_scalar(2.0).sub_scalar(1.0)
}

/// How a network's weights start.
#[derive(Debug, Clone, Copy)]
enum Start {
    /// Orthogonal, for training.
    Orthogonal,
    /// Zeros, for a network whose weights a saved record replaces at once: burn computes the
    /// orthogonal initialiser's QR in persistent allocations, which on flex stayed resident
    /// (about 17 MB per network built, so playing a saved policy episode after episode grew
    /// without bound).
    Zeros,
}

/// A linear layer with a zero bias and, to train, an orthogonal weight of `gain` (burn's
/// orthogonal initialiser takes matrices only, so the bias is set apart).
fn linear(inputs: usize, outputs: usize, gain: f64, start: Start, device: &Device) -> Linear {
    let mut layer = LinearConfig::new(inputs, outputs)
        .with_initializer(Initializer::Zeros)
        .init(device);
    if let Start::Orthogonal = start {
        layer.weight = Initializer::Orthogonal { gain }.init([inputs, outputs], device);
    }
    layer
}

#[derive(Module, Debug)]
pub struct ActorCritic {
    actor: Torso,
    critic: Torso,
    policy: Linear,
    value: Linear,
    units: usize,
    unit_features: usize,
    advance: bool,
    #[module(skip)]
    columns: Vec<usize>,
}

/// Spaces a per-unit network cannot lay out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeMismatch(pub String);

impl ActorCriticConfig {
    /// The per-unit layout of `observation` and a one-choice `action` space: `units` from the
    /// first feature group, `Err` when the space does not fit that layout.
    pub fn per_unit(
        observation: &schedlab_env::ObservationSpace,
        action: &ActionSpace,
    ) -> Result<Self, ShapeMismatch> {
        let group = observation
            .groups()
            .first()
            .ok_or_else(|| ShapeMismatch("the observation has no feature groups".into()))?;
        let choices = action.mask_len();
        let advance = (choices - 1).is_multiple_of(group.count);
        if group.offset != 0
            || action.dims() != 1
            || !(advance || choices.is_multiple_of(group.count))
        {
            return Err(ShapeMismatch(format!(
                "a per-unit network needs one choice dimension of units x options (+ advance) and the units first in the observation; got {} dimensions of {choices} levels and {} units of group `{}`",
                action.dims(),
                group.count,
                group.name
            )));
        }
        let unit_groups = observation.unit_groups();
        let columns = if unit_groups.len() > 1 {
            observation.unit_major_columns()
        } else {
            Vec::new()
        };
        Ok(ActorCriticConfig::new(observation.len(), choices)
            .with_units(group.count)
            .with_unit_features(unit_groups.iter().map(|g| g.width).sum())
            .with_columns(columns)
            .with_advance(advance))
    }

    /// A network to train, orthogonally initialised.
    pub fn init(&self, device: &Device) -> ActorCritic {
        self.build(Start::Orthogonal, device)
    }

    /// A network of the same shapes with zero weights, to load a saved record into.
    pub fn init_for_record(&self, device: &Device) -> ActorCritic {
        self.build(Start::Zeros, device)
    }

    fn build(&self, start: Start, device: &Device) -> ActorCritic {
        let (inputs, outputs) = if self.units > 0 {
            let global = self.inputs - self.units * self.unit_features;
            (
                self.unit_features + global,
                if self.advance {
                    (self.outputs - 1) / self.units + 1
                } else {
                    self.outputs / self.units
                },
            )
        } else {
            (self.inputs, self.outputs)
        };
        ActorCritic {
            actor: Torso::new(inputs, self.hidden, self.tanh, start, device),
            critic: Torso::new(inputs, self.hidden, self.tanh, start, device),
            policy: linear(self.hidden, outputs, 0.01, start, device),
            value: linear(self.hidden, 1, 1.0, start, device),
            units: self.units,
            unit_features: self.unit_features,
            advance: self.advance,
            columns: self.columns.clone(),
        }
    }
}

impl ActorCritic {
    /// The actor's layers in order: torso input, torso output, policy head.
    fn actor_layers(&self) -> [&Linear; 3] {
        [&self.actor.input, &self.actor.output, &self.policy]
    }

    /// How the actor reads an observation and lays out its weights, for the host forward
    /// pass of [`super::host_actor::HostActor`]; None for a flat network.
    pub fn actor_shape(&self) -> Option<ActorShape> {
        (self.units > 0).then(|| ActorShape {
            units: self.units,
            unit_features: self.unit_features,
            columns: self.columns.clone(),
            advance: self.advance,
            tanh: self.actor.tanh,
            layers: self.actor_layers().map(|layer| {
                let [inputs, outputs] = layer.weight.dims();
                (inputs, outputs)
            }),
        })
    }

    /// The actor's weights, flat in [`ActorShape`]'s order: per layer its weight (row-major
    /// `[inputs, outputs]`) then its bias.
    pub fn actor_parameters(&self) -> Vec<f32> {
        let mut flat = Vec::new();
        for layer in self.actor_layers() {
            flat.extend(host_values(layer.weight.val().into_data()));
            if let Some(bias) = &layer.bias {
                flat.extend(host_values(bias.val().into_data()));
            }
        }
        flat
    }

    /// The same network with the actor's weights `flat` (in [`Self::actor_parameters`]'s
    /// order); the critic is kept.
    pub fn with_actor_parameters(mut self, flat: &[f32]) -> Self {
        let mut at = 0;
        let mut take = |n: usize| {
            at += n;
            flat[at - n..at].to_vec()
        };
        for layer in [
            &mut self.actor.input,
            &mut self.actor.output,
            &mut self.policy,
        ] {
            let [inputs, outputs] = layer.weight.dims();
            let device = layer.weight.device();
            let weight = TensorData::new(take(inputs * outputs), [inputs, outputs]);
            layer.weight = Param::from_tensor(Tensor::from_data(weight, &device));
            if layer.bias.is_some() {
                let bias = TensorData::new(take(outputs), [outputs]);
                layer.bias = Some(Param::from_tensor(Tensor::from_data(bias, &device)));
            }
        }
        assert_eq!(at, flat.len(), "one weight per actor parameter");
        self
    }

    /// The shapes of its weight matrices: what a record must match to be played by it (a
    /// per-unit network's do not depend on the number of units).
    pub fn weight_shapes(&self) -> Vec<[usize; 2]> {
        [
            &self.actor.input,
            &self.actor.output,
            &self.critic.input,
            &self.critic.output,
            &self.policy,
            &self.value,
        ]
        .iter()
        .map(|layer| layer.weight.dims())
        .collect()
    }

    /// Logits `[batch, outputs]` and values `[batch]`.
    pub fn forward(&self, observations: Tensor<2>) -> (Tensor<2>, Tensor<1>) {
        if self.units > 0 {
            return self.forward_per_unit(observations);
        }
        (
            self.policy
                .forward(self.actor.forward(observations.clone())),
            self.value
                .forward(self.critic.forward(observations))
                .squeeze_dim(1),
        )
    }

    fn forward_per_unit(&self, observations: Tensor<2>) -> (Tensor<2>, Tensor<1>) {
        let observations = if self.columns.is_empty() {
            observations
        } else {
            let order: Vec<i64> = self.columns.iter().map(|&c| c as i64).collect();
            let len = order.len();
            let order =
                Tensor::<1, Int>::from_data(TensorData::new(order, [len]), &observations.device());
            observations.select(1, order)
        };
        let [batch, width] = observations.dims();
        let (units, per) = (self.units, self.unit_features);
        let unit_part = observations
            .clone()
            .narrow(1, 0, units * per)
            .reshape([batch, units, per]);
        let global = width - units * per;
        let global_part = observations
            .narrow(1, units * per, global)
            .reshape([batch, 1, global])
            .repeat_dim(1, units);
        // The layers see one row per (observation, unit): a 3-D input would make burn's
        // backward pass form a weight gradient per observation and then sum them.
        let inputs =
            Tensor::cat(vec![unit_part, global_part], 2).reshape([batch * units, per + global]);
        let scores = self.policy.forward(self.actor.forward(inputs.clone()));
        let outputs = scores.dims()[1];
        let scores = scores.reshape([batch, units, outputs]);
        let logits = if self.advance {
            let options = outputs - 1;
            let option_logits = scores
                .clone()
                .narrow(2, 0, options)
                .reshape([batch, units * options]);
            let advance = scores.narrow(2, options, 1).mean_dim(1).reshape([batch, 1]);
            Tensor::cat(vec![option_logits, advance], 1)
        } else {
            scores.reshape([batch, units * outputs])
        };
        let features = self.critic.forward(inputs);
        let hidden = features.dims()[1];
        let pooled = features.reshape([batch, units, hidden]).mean_dim(1);
        (
            logits,
            self.value
                .forward(pooled.reshape([batch, hidden]))
                .squeeze_dim(1),
        )
    }
}

/// For host rows `(features, masks as 1/0, chosen levels)`: the masked per-level
/// log-probabilities `[rows, mask_len]`, each row's joint log-probability of its chosen
/// action (summed over dimensions) `[rows]`, and the values `[rows]`.
fn chosen_log_probs(
    net: &ActorCritic,
    space: &ActionSpace,
    (observations, masks, actions): (&[f32], &[f32], &[usize]),
    device: &Device,
) -> (Tensor<2>, Tensor<1>, Tensor<1>) {
    let (rows, width) = (actions.len() / space.dims(), space.mask_len());
    let tensor2 =
        |v: Vec<f32>, cols: usize| Tensor::<2>::from_data(TensorData::new(v, [rows, cols]), device);
    let (logits, values) = net.forward(tensor2(observations.to_vec(), observations.len() / rows));
    let log_probs = masked_log_probs(space, logits, tensor2(masks.to_vec(), width));
    let chosen = (log_probs.clone() * tensor2(chosen_one_hot(space, actions), width))
        .sum_dim(1)
        .squeeze_dim(1);
    (log_probs, chosen, values)
}

fn host_values(data: TensorData) -> Vec<f32> {
    data.try_to_vec::<f32>().expect("f32 weights")
}

/// `mean (values - targets)^2`.
fn squared_error(values: Tensor<1>, targets: Tensor<1>) -> Tensor<1> {
    let error = values - targets;
    (error.clone() * error).mean()
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
    /// The critic's values at collection (for [`PpoLossConfig::clip_value`]).
    pub old_values: Vec<f32>,
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
    /// Clip the value update by `clip` around the values at collection (CleanRL's
    /// `clip_vloss`).
    #[config(default = false)]
    pub clip_value: bool,
}

/// The loss terms, and CleanRL's diagnostics of the update, for logging.
pub struct PpoLoss {
    pub total: Tensor<1>,
    pub policy: Tensor<1>,
    pub value: Tensor<1>,
    pub entropy: Tensor<1>,
    /// `mean((r - 1) - ln r)`: the low-variance estimator of KL(old || new).
    pub approx_kl: f32,
    /// Share of rows whose ratio the clip bounds (`|r - 1| > clip`).
    pub clip_fraction: f32,
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
    let tensor1 = |v: Vec<f32>| Tensor::<1>::from_data(TensorData::new(v, [rows]), device);
    let (log_probs, new_log_prob, values) = chosen_log_probs(
        net,
        space,
        (&batch.observations, &batch.masks, &batch.actions),
        device,
    );
    let log_ratio = new_log_prob - tensor1(batch.old_log_probs.clone());
    let ratio = log_ratio.clone().exp();
    let (approx_kl, clip_fraction) = {
        let (log_ratio, ratio) = (log_ratio.detach(), ratio.clone().detach());
        let kl = (ratio.clone() - log_ratio).sub_scalar(1.0).mean();
        let clipped = (ratio.sub_scalar(1.0).abs().greater_elem(config.clip))
            .float()
            .mean();
        (kl.into_scalar::<f32>(), clipped.into_scalar::<f32>())
    };
    let advantages = tensor1(batch.advantages.clone());
    let unclipped = ratio.clone() * advantages.clone();
    let clipped = ratio.clamp(1.0 - config.clip, 1.0 + config.clip) * advantages;
    let policy = unclipped.min_pair(clipped).mean().neg();
    let returns = tensor1(batch.returns.clone());
    let value = if config.clip_value {
        let old = tensor1(batch.old_values.clone());
        let clipped = old.clone() + (values.clone() - old).clamp(-config.clip, config.clip);
        let unclipped = (values - returns.clone()).powi_scalar(2);
        let clipped = (clipped - returns).powi_scalar(2);
        unclipped.max_pair(clipped).mean()
    } else {
        squared_error(values, returns)
    };
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
        approx_kl,
        clip_fraction,
    }
}

/// A teacher's decisions for behaviour cloning, flat row-major host data.
#[derive(Debug, Clone)]
pub struct ImitationBatch {
    pub observations: Vec<f32>,
    /// 1 for allowed levels, 0 for masked ones, `[rows, mask_len]`.
    pub masks: Vec<f32>,
    /// The teacher's level per dimension, `[rows, dims]`.
    pub actions: Vec<usize>,
    /// What the critic should predict: the teacher's return from each state.
    pub value_targets: Vec<f32>,
}

/// The terms of the cloning objective, for logging.
pub struct ImitationLoss {
    pub total: Tensor<1>,
    pub cross_entropy: Tensor<1>,
    pub value: Tensor<1>,
}

/// `-mean log pi(a_teacher | s) + c_v mean (V(s) - G)^2`: the actor learns the teacher's
/// choices (cross-entropy over the masked heads) and the critic the teacher's returns, so
/// PPO fine-tuning starts with a critic that already values the cloned policy.
pub fn imitation_loss(
    net: &ActorCritic,
    space: &ActionSpace,
    batch: &ImitationBatch,
    value_coef: f32,
    device: &Device,
) -> ImitationLoss {
    let rows = batch.value_targets.len();
    let (_, chosen, values) = chosen_log_probs(
        net,
        space,
        (&batch.observations, &batch.masks, &batch.actions),
        device,
    );
    let cross_entropy = chosen.mean().neg();
    let targets = TensorData::new(batch.value_targets.clone(), [rows]);
    let value = squared_error(values, Tensor::<1>::from_data(targets, device));
    ImitationLoss {
        total: cross_entropy.clone() + value.clone().mul_scalar(value_coef),
        cross_entropy,
        value,
    }
}

#[cfg(test)]
mod tests {
    use burn::optim::{AdamConfig, GradientsParams};
    use burn::tensor::Gradients;

    use super::*;
    use crate::learned::masked::argmax;
    use crate::single_job::test_envs::fixtures::node_space;

    /// The gradient of `layer`'s weight in `grads`, flattened.
    fn weight_gradient(layer: &Linear, grads: &Gradients) -> Vec<f32> {
        layer
            .weight
            .val()
            .grad(grads)
            .unwrap()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap()
    }

    /// Per unit: permuting the units (the jobs env's window slots, the DAG env's GPUs)
    /// permutes their options' logits and leaves the advance logit, where the space has one,
    /// and the value as they were.
    /// The sigmoid form is tanh, in value and in gradient, from saturation through 0.
    #[test]
    fn tanh_by_sigmoid_is_tanh_and_has_its_gradient() {
        let device = Device::flex().autodiff();
        let xs: Vec<f32> = (-200..=200)
            .map(|k| k as f32 * 0.05)
            .chain([-60.0, 60.0])
            .collect();
        let n = xs.len();
        let input =
            || Tensor::<1>::from_data(TensorData::new(xs.clone(), [n]), &device).require_grad();
        let x = input();
        let y = tanh_by_sigmoid(x.clone());
        let gradient = x.grad(&y.clone().sum().backward()).unwrap();
        let values = y.into_data().try_to_vec::<f32>().unwrap();
        let gradients = gradient.into_data().try_to_vec::<f32>().unwrap();
        for ((x, y), g) in xs.iter().zip(&values).zip(&gradients) {
            assert!(
                (y - x.tanh()).abs() <= 2e-7,
                "tanh({x}): {y} against {}",
                x.tanh()
            );
            let exact = 1.0 - x.tanh().powi(2);
            assert!((g - exact).abs() <= 1e-6, "tanh'({x}): {g} against {exact}");
        }
    }

    #[test]
    fn permuting_the_units_permutes_their_scores_and_nothing_else() {
        use schedlab_env::ObservationSpace;
        use schedlab_env::gym::Field;
        let device = Device::flex();
        device.seed(5);
        for (options, advance) in [(2, 1), (1, 0)] {
            let (units, per, global) = (3, 2, 2);
            let observation = ObservationSpace::new(&[("unit", units, per), ("global", 1, global)]);
            let action = ActionSpace::grid(
                "decision",
                1,
                vec![Field::new("choice", units * options + advance)],
            );
            let net = ActorCriticConfig::per_unit(&observation, &action)
                .unwrap()
                .with_hidden(8)
                .init(&device);
            let features: Vec<f32> = vec![0.3, -1.0, 0.8, 0.1, -0.5, 0.7, 0.2, -0.4];
            let order = [2, 0, 1];
            let mut permuted = Vec::new();
            for &u in &order {
                permuted.extend_from_slice(&features[u * per..(u + 1) * per]);
            }
            permuted.extend_from_slice(&features[units * per..]);
            let run = |f: Vec<f32>| {
                let (logits, value) =
                    net.forward(Tensor::from_data(TensorData::new(f, [1, 8]), &device));
                (
                    logits.into_data().try_to_vec::<f32>().unwrap(),
                    value.into_data().try_to_vec::<f32>().unwrap()[0],
                )
            };
            let (logits, value) = run(features.clone());
            let (moved, moved_value) = run(permuted);
            assert_eq!(logits.len(), units * options + advance);
            for (k, &u) in order.iter().enumerate() {
                for o in 0..options {
                    assert!((moved[k * options + o] - logits[u * options + o]).abs() < 1e-5);
                }
            }
            if advance == 1 {
                assert!((moved[units * options] - logits[units * options]).abs() < 1e-5);
            }
            assert!((moved_value - value).abs() < 1e-5);
            // the scores do read the unit's features
            let mut other = features;
            other[0] += 1.0;
            assert_ne!(run(other).0[..options], logits[..options]);
        }
    }

    /// A unit's block in a later unit group (a jobs slot's model speeds) is read with the
    /// unit: moving a unit's blocks in both groups moves its score, and its later block
    /// changes its own score only.
    #[test]
    fn a_units_blocks_in_every_unit_group_move_with_it() {
        use schedlab_env::ObservationSpace;
        use schedlab_env::gym::Field;
        let device = Device::flex();
        device.seed(6);
        let units = 3;
        let observation =
            ObservationSpace::new(&[("unit", units, 2), ("global", 1, 2), ("extra", units, 1)])
                .with_unit_groups(&["extra"]);
        let action = ActionSpace::grid("decision", 1, vec![Field::new("choice", units + 1)]);
        let config = ActorCriticConfig::per_unit(&observation, &action).unwrap();
        assert_eq!(config.unit_features, 3);
        let net = config.with_hidden(8).init(&device);
        let run = |f: Vec<f32>| {
            let n = f.len();
            let (logits, _) = net.forward(Tensor::from_data(TensorData::new(f, [1, n]), &device));
            logits.into_data().try_to_vec::<f32>().unwrap()
        };
        // units' pairs, the global pair, each unit's extra feature
        let features = vec![0.3, -1.0, 0.8, 0.1, -0.5, 0.7, 0.2, -0.4, 1.5, -2.0, 0.6];
        let logits = run(features.clone());
        // swap units 0 and 2 in both groups
        let mut swapped = features.clone();
        swapped[..2].copy_from_slice(&features[4..6]);
        swapped[4..6].copy_from_slice(&features[..2]);
        (swapped[8], swapped[10]) = (features[10], features[8]);
        let moved = run(swapped);
        assert!((moved[0] - logits[2]).abs() < 1e-5 && (moved[2] - logits[0]).abs() < 1e-5);
        assert!((moved[1] - logits[1]).abs() < 1e-5);
        let mut other = features;
        other[9] += 1.0;
        let changed = run(other);
        assert_ne!(changed[1], logits[1]);
        assert!((changed[0] - logits[0]).abs() < 1e-6 && (changed[2] - logits[2]).abs() < 1e-6);
    }

    /// A network built to load a record (zero weights, no orthogonal initialiser) has the
    /// trained one's shapes and, once the record is in, its outputs.
    #[test]
    fn a_network_built_for_a_record_plays_as_the_network_saved() {
        use burn::module::Module;
        let device = Device::flex();
        device.seed(9);
        let config = ActorCriticConfig::new(4, 3).with_hidden(8);
        let trained = config.init(&device);
        let empty = config.init_for_record(&device);
        assert_eq!(empty.weight_shapes(), trained.weight_shapes());
        let observations = || {
            Tensor::<2>::from_data(
                TensorData::new(vec![0.5f32, -1.0, 0.25, 2.0, 1.0, 0.0, -0.5, 0.75], [2, 4]),
                &device,
            )
        };
        let logits = |net: &ActorCritic| net.forward(observations()).0.into_data();
        assert_ne!(logits(&empty), logits(&trained));
        let loaded = empty.load_record(trained.clone().into_record());
        assert_eq!(logits(&loaded), logits(&trained));
    }

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
            old_values: vec![0.0],
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
        // the clipped value loss is the larger of the two errors: from an old value far
        // below the target, the clipped value lands short of it and its error counts
        let values = |net: &ActorCritic| -> f32 {
            let (_, v) = net.forward(Tensor::from_data(
                TensorData::new(observations.clone(), [1, 4]),
                &device,
            ));
            v.into_data().try_to_vec::<f32>().unwrap()[0]
        };
        let v = values(&net);
        let far = PpoBatch {
            old_values: vec![v - 10.0],
            returns: vec![v],
            ..batch.clone()
        };
        let plain = ppo_loss(&net, &space, &far, &config, &device).value;
        let clipped = ppo_loss(
            &net,
            &space,
            &far,
            &config.clone().with_clip_value(true),
            &device,
        )
        .value;
        let (plain, clipped) = (plain.into_scalar::<f32>(), clipped.into_scalar::<f32>());
        assert!(plain < 1e-8, "{plain}");
        let short = 10.0 - config.clip;
        assert!((clipped - short * short).abs() < 1e-3, "{clipped}");
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
            old_values: vec![0.0, 0.0],
            advantages: advantages.clone(),
            returns: vec![0.0, 0.0],
        };
        let ppo = ppo_loss(&net, &space, &batch, &PpoLossConfig::new(), &device).policy;
        let pg = (chosen_log_probs()
            * Tensor::<1>::from_data(TensorData::new(advantages.clone(), [2]), &device))
        .mean()
        .neg();
        let grad = |loss: Tensor<1>| weight_gradient(&net.policy, &loss.backward());
        let (a, b) = (grad(ppo), grad(pg));
        assert!(
            a.iter().any(|v| v.abs() > 1e-4),
            "the gradient is not trivially zero"
        );
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-5, "{x} vs {y}");
        }
    }

    /// The root Cargo.toml turns on burn-flex's `rayon` feature, so that large products split
    /// over the pool. A training-sized minibatch of the per-job network (256 observations of 16
    /// window slots: products of 4096 x 128 x 128) gives the same bits in pools of one and two
    /// threads, forward and backward.
    #[test]
    fn flex_products_are_the_same_at_any_thread_count() {
        use schedlab_env::ObservationSpace;
        use schedlab_env::gym::Field;
        let (units, per, global, batch) = (16, 15, 10, 256);
        let observation = ObservationSpace::new(&[("slot", units, per), ("cluster", 1, global)]);
        let action = ActionSpace::grid("decision", 1, vec![Field::new("choice", units * 19 + 1)]);
        let width = units * per + global;
        let features: Vec<f32> = (0..batch * width)
            .map(|k| ((k * 7919) % 1000) as f32 / 500.0 - 1.0)
            .collect();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let device = Device::flex().autodiff();
                device.seed(3);
                let net = ActorCriticConfig::per_unit(&observation, &action)
                    .unwrap()
                    .with_hidden(128)
                    .init(&device);
                let inputs = TensorData::new(features.clone(), [batch, width]);
                let (logits, values) = net.forward(Tensor::from_data(inputs, &device));
                let scores = logits.clone().into_data().try_to_vec::<f32>().unwrap();
                let grads = (logits.powi_scalar(2).mean() + values.mean()).backward();
                (scores, weight_gradient(&net.actor.output, &grads))
            })
        };
        let one = run(1);
        assert!(
            one.1.iter().any(|g| *g != 0.0),
            "the gradient reaches the hidden layer"
        );
        assert!(one == run(2), "the same bits on one thread and on two");
    }
}
