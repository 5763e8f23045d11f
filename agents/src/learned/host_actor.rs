//! The per-unit actor's greedy choice computed on the host, without burn. Evolution strategies
//! (trainer/src/es.rs) play whole episodes of many perturbed weight vectors one decision at a
//! time, where a burn forward pass of one observation costs about a millisecond; this one is
//! plain loops over the same weights. It chooses as `PpoAgent`'s greedy play of the same
//! weights does (tested against it), so a run trained on it plays as a PPO network.

use super::masked::argmax_allowed;

/// How a per-unit actor reads an observation and lays out its weights.
#[derive(Debug, Clone, PartialEq)]
pub struct ActorShape {
    pub units: usize,
    pub unit_features: usize,
    /// The observation's columns in the order the actor reads them; empty: as they come.
    pub columns: Vec<usize>,
    /// Whether the last choice is `advance`, scored as the mean of the units' advance scores.
    pub advance: bool,
    /// Tanh torso layers; false: ReLU.
    pub tanh: bool,
    /// `(inputs, outputs)` of the torso's input and output layers and of the policy head.
    pub layers: [(usize, usize); 3],
}

impl ActorShape {
    /// The number of actor weights (per layer `inputs x outputs` and `outputs` biases).
    pub fn parameters(&self) -> usize {
        self.layers.iter().map(|(i, o)| i * o + o).sum()
    }
}

/// An actor of `shape` with the flat weights `params` (`ActorCritic::actor_parameters`'s
/// order), with buffers reused across decisions.
pub struct HostActor<'a> {
    shape: &'a ActorShape,
    params: &'a [f32],
    input: Vec<f32>,
    /// The observation in the actor's column order, where it has one.
    ordered: Vec<f32>,
    hidden: [Vec<f32>; 3],
    logits: Vec<f32>,
}

impl<'a> HostActor<'a> {
    pub fn new(shape: &'a ActorShape, params: &'a [f32]) -> Self {
        assert_eq!(params.len(), shape.parameters(), "one weight per parameter");
        HostActor {
            shape,
            params,
            input: Vec::new(),
            ordered: Vec::new(),
            hidden: Default::default(),
            logits: Vec::new(),
        }
    }

    /// The allowed choice of highest logit for an observation's `features` and `mask`, picked
    /// as greedy play picks it (`masked::argmax_allowed`).
    pub fn greedy(&mut self, features: &[f32], mask: &[bool]) -> usize {
        let mut ordered = std::mem::take(&mut self.ordered);
        let choice = if self.shape.columns.is_empty() {
            self.greedy_in_order(features, mask)
        } else {
            ordered.clear();
            ordered.extend(self.shape.columns.iter().map(|&c| features[c]));
            self.greedy_in_order(&ordered, mask)
        };
        self.ordered = ordered;
        choice
    }

    /// [`Self::greedy`] for features already in the actor's column order.
    fn greedy_in_order(&mut self, features: &[f32], mask: &[bool]) -> usize {
        let ActorShape {
            units,
            unit_features: per,
            advance,
            layers,
            ..
        } = *self.shape;
        let outputs = layers[2].1;
        let options = if advance { outputs - 1 } else { outputs };
        let advance_allowed = advance && mask[units * options];
        self.logits.clear();
        self.logits.resize(mask.len(), f32::NEG_INFINITY);
        let mut advance_sum = 0.0f32;
        let global = &features[units * per..];
        for unit in 0..units {
            let choices = unit * options..(unit + 1) * options;
            // the advance score averages every unit; otherwise only units with a choice count
            if !advance_allowed && !mask[choices.clone()].iter().any(|&m| m) {
                continue;
            }
            self.input.clear();
            self.input
                .extend_from_slice(&features[unit * per..(unit + 1) * per]);
            self.input.extend_from_slice(global);
            self.score_input();
            let scores = &self.hidden[2];
            self.logits[choices].copy_from_slice(&scores[..options]);
            if advance {
                advance_sum += scores[options];
            }
        }
        if advance {
            self.logits[units * options] = advance_sum / units as f32;
        }
        argmax_allowed(&self.logits, mask)
    }

    /// The policy head's outputs for `self.input`, into `self.hidden[2]`: two ReLU (or tanh)
    /// layers, then a linear one.
    fn score_input(&mut self) {
        let (params, layers) = (self.params, &self.shape.layers);
        let torso: fn(f32) -> f32 = if self.shape.tanh {
            tanh_by_sigmoid
        } else {
            |o| o.max(0.0)
        };
        let [first, second, head] = &mut self.hidden;
        let mut at = 0;
        dense(&self.input, params, &mut at, layers[0], first, Some(torso));
        dense(first, params, &mut at, layers[1], second, Some(torso));
        dense(second, params, &mut at, layers[2], head, None);
    }
}

/// tanh as the burn network computes it, 2σ(2x) − 1 with flex's sigmoid
/// (agents/src/learned/actor_critic.rs, `tanh_by_sigmoid`), so the two choose alike.
fn tanh_by_sigmoid(x: f32) -> f32 {
    let z = 2.0 * x;
    let sigmoid = if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    };
    sigmoid * 2.0 - 1.0
}

/// `out = x W + b` (then `activation` where there is one) with `W` and `b` read from
/// `params` at `at`, which moves past them.
fn dense(
    x: &[f32],
    params: &[f32],
    at: &mut usize,
    (inputs, outputs): (usize, usize),
    out: &mut Vec<f32>,
    activation: Option<fn(f32) -> f32>,
) {
    let weight = &params[*at..*at + inputs * outputs];
    *at += inputs * outputs;
    out.clear();
    out.extend_from_slice(&params[*at..*at + outputs]);
    *at += outputs;
    for (&xi, row) in x.iter().zip(weight.chunks_exact(outputs)) {
        if xi != 0.0 {
            out.iter_mut().zip(row).for_each(|(o, w)| *o += xi * w);
        }
    }
    if let Some(activate) = activation {
        out.iter_mut().for_each(|o| *o = activate(*o));
    }
}

#[cfg(test)]
mod tests {
    use burn::tensor::{Device, Tensor, TensorData};
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use schedlab_env::gym::Field;
    use schedlab_env::{ActionSpace, ObservationSpace};

    use super::*;
    use crate::learned::actor_critic::ActorCriticConfig;
    use crate::learned::masked::argmax;

    /// On random observations and masks the host pass chooses what the burn network's logits
    /// choose, with and without `advance`, with a second unit group read per unit, and after
    /// its weights are written back.
    #[test]
    fn the_host_pass_chooses_as_the_network_does() {
        let device = Device::flex();
        device.seed(3);
        let mut rng = StdRng::seed_from_u64(9);
        for (options, advance, tanh, extra) in [
            (4, 1, false, 0),
            (3, 0, false, 0),
            (4, 1, true, 0),
            (4, 1, false, 2),
        ] {
            let (units, per, global) = (5, 3, 2);
            let mut observation = ObservationSpace::new(&[
                ("unit", units, per),
                ("global", 1, global),
                ("extra", units, extra),
            ]);
            if extra > 0 {
                observation = observation.with_unit_groups(&["extra"]);
            }
            let choices = units * options + advance;
            let space = ActionSpace::grid("decision", 1, vec![Field::new("choice", choices)]);
            let net = ActorCriticConfig::per_unit(&observation, &space)
                .unwrap()
                .with_hidden(8)
                .with_tanh(tanh)
                .init(&device);
            let shape = net.actor_shape().unwrap();
            assert_eq!(shape.tanh, tanh);
            // a bolder policy head than the near-uniform start, so choices differ by state
            let params: Vec<f32> = net
                .actor_parameters()
                .iter()
                .map(|w| w + rng.random_range(-0.5..0.5))
                .collect();
            assert_eq!(params.len(), shape.parameters());
            let net = net.with_actor_parameters(&params);
            assert_eq!(net.actor_parameters(), params, "weights round-trip");
            let mut actor = HostActor::new(&shape, &params);
            let mut differing = std::collections::BTreeSet::new();
            for _ in 0..200 {
                let features: Vec<f32> = (0..observation.len())
                    .map(|_| rng.random_range(-2.0..2.0))
                    .collect();
                let mut mask: Vec<bool> = (0..choices).map(|_| rng.random_bool(0.5)).collect();
                mask[0] = true;
                let (logits, _) = net.forward(Tensor::from_data(
                    TensorData::new(features.clone(), [1, features.len()]),
                    &device,
                ));
                let logits = logits.into_data().try_to_vec::<f32>().unwrap();
                let chosen = actor.greedy(&features, &mask);
                assert_eq!(chosen, argmax(&space, &logits, &mask)[0]);
                differing.insert(chosen);
            }
            assert!(differing.len() > 3, "choices vary with the state");
        }
    }
}
