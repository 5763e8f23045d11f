//! `ppo`: proximal policy optimisation over factorised, masked categorical heads (one per
//! node and resource). This file holds the agent, how it acts; the training loop that
//! updates it lives in `schedlab-trainer`.

use burn::module::Module;
use burn::tensor::{Tensor, TensorData};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rayon::prelude::*;
use schedlab_env::{ActionSpace, Observation};

use crate::context::PolicyContext;
use crate::learned::actor_critic::ActorCritic;
use crate::learned::batch::{features, inference_device, mask_values};
use crate::learned::masked::{argmax, masked_log_probs, sample};
use crate::policy::Policy;

/// Rows one inference pass takes: a vector env's copies are split into pieces of this many,
/// one per thread (on 2 cores, 256 copies ran their one pass on one thread).
const INFERENCE_ROWS: usize = 64;

/// What acting on a batch of observations yields, per row.
pub struct Acted {
    pub actions: Vec<Vec<usize>>,
    /// Joint log-probability of each action (summed over dimensions).
    pub log_probs: Vec<f32>,
    pub values: Vec<f32>,
}

pub struct PpoAgent {
    /// The network on the training device (autodiff).
    pub net: ActorCritic,
    space: ActionSpace,
    rng: StdRng,
    /// Evaluation mode: the most probable allowed level instead of a sample.
    pub deterministic: bool,
}

impl PpoAgent {
    pub fn new(net: ActorCritic, ctx: &PolicyContext, seed: u64) -> Self {
        PpoAgent {
            net,
            space: ctx.action_space.clone(),
            rng: StdRng::seed_from_u64(seed),
            deterministic: false,
        }
    }

    pub fn space(&self) -> &ActionSpace {
        &self.space
    }

    /// Masked log-probabilities `[rows x mask_len]` and values, without autodiff: in pieces
    /// of [`INFERENCE_ROWS`] on the rayon pool, whose cut depends on the rows alone, so any
    /// thread count gives the same numbers.
    fn evaluate(&self, observations: &[&Observation]) -> (Vec<f32>, Vec<f32>) {
        if observations.len() <= INFERENCE_ROWS {
            return self.evaluate_rows(observations);
        }
        let pieces: Vec<(Vec<f32>, Vec<f32>)> = observations
            .par_chunks(INFERENCE_ROWS)
            .map(|rows| self.evaluate_rows(rows))
            .collect();
        let (mut log_probs, mut values) = (Vec::new(), Vec::new());
        for (l, v) in pieces {
            log_probs.extend(l);
            values.extend(v);
        }
        (log_probs, values)
    }

    fn evaluate_rows(&self, observations: &[&Observation]) -> (Vec<f32>, Vec<f32>) {
        let device = inference_device(&self.net);
        let rows = observations.len();
        let masks: Vec<f32> = observations
            .iter()
            .flat_map(|o| mask_values(&o.action_mask))
            .collect();
        let (logits, values) = self.net.valid().forward(features(observations, &device));
        let mask = Tensor::from_data(
            TensorData::new(masks, [rows, self.space.mask_len()]),
            &device,
        );
        let log_probs = masked_log_probs(&self.space, logits, mask);
        (
            log_probs
                .into_data()
                .try_to_vec::<f32>()
                .expect("f32 log-probabilities"),
            values.into_data().try_to_vec::<f32>().expect("f32 values"),
        )
    }

    /// Samples (or, deterministic, picks) an action for each observation.
    pub fn act_batch(&mut self, observations: &[&Observation]) -> Acted {
        let (log_probs, values) = self.evaluate(observations);
        let width = self.space.mask_len();
        let mut acted = Acted {
            actions: Vec::new(),
            log_probs: Vec::new(),
            values,
        };
        for (row, obs) in observations.iter().enumerate() {
            let lp = &log_probs[row * width..(row + 1) * width];
            let action = if self.deterministic {
                argmax(&self.space, lp, &obs.action_mask)
            } else {
                sample(&self.space, lp, &obs.action_mask, &mut self.rng)
            };
            let joint = action
                .iter()
                .enumerate()
                .map(|(d, &l)| lp[self.space.mask_offset(d) + l])
                .sum();
            acted.actions.push(action);
            acted.log_probs.push(joint);
        }
        acted
    }

    /// `V(s)` for each observation.
    pub fn values(&self, observations: &[&Observation]) -> Vec<f32> {
        self.evaluate(observations).1
    }
}

impl Policy for PpoAgent {
    fn name(&self) -> &str {
        "ppo"
    }

    fn reset(&mut self, seed: u64) {
        self.rng = StdRng::seed_from_u64(seed ^ 0x9e0);
    }

    fn act(&mut self, observation: &Observation) -> Vec<usize> {
        self.act_batch(&[observation]).actions.remove(0)
    }
}

#[cfg(test)]
mod tests {
    use burn::tensor::Device;

    use super::*;
    use crate::context::SchedulingEnv;
    use crate::learned::actor_critic::ActorCriticConfig;
    use crate::single_job::test_envs::real::small_env;

    #[test]
    fn ppo_acts_only_within_the_mask_sampling_or_deterministic() {
        let mut env = small_env();
        let ctx = env.policy_context();
        let device = Device::flex().autodiff();
        let net = ActorCriticConfig::new(ctx.observation_space.len(), ctx.action_space.mask_len())
            .init(&device);
        let mut agent = PpoAgent::new(net, &ctx, 1);
        let (obs, _) = env.reset(0).unwrap();
        for deterministic in [false, true] {
            agent.deterministic = deterministic;
            for _ in 0..50 {
                let acted = agent.act_batch(&[&obs, &obs]);
                for action in &acted.actions {
                    for (d, &l) in action.iter().enumerate() {
                        assert!(
                            obs.mask_of(&ctx.action_space, d)[l],
                            "dimension {d} level {l} is masked"
                        );
                    }
                }
                assert!(
                    acted
                        .log_probs
                        .iter()
                        .all(|lp| lp.is_finite() && *lp <= 0.0)
                );
                assert_eq!(acted.values.len(), 2);
            }
        }
        // deterministic acting is a function of the observation
        assert_eq!(agent.act(&obs), agent.act(&obs));
    }
}
