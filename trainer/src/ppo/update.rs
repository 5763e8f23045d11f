//! CleanRL's third phase, the update: the clipped objective over shuffled minibatches for
//! `epochs` passes, each gradient clipped by its global norm before the optimiser's step (Adam,
//! or RMSprop for SB3's A2C), and what the phase saw as CleanRL charts it. It owns the
//! optimiser's state and the device the loss runs on.

use burn::optim::ModuleOptimizer;
use burn::tensor::Device;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use schedlab_agents::learned::actor_critic::{PpoBatch, PpoLossConfig};
use schedlab_agents::learned::batch::stack;
use schedlab_agents::ppo::PpoAgent;
use schedlab_env::ActionSpace;

use super::advantages::Row;
use super::config::{Optimizer, PpoConfig};
use super::shards::sharded_loss;
use crate::grad_norm::clip_global_norm;

/// The update phase's state.
pub(super) struct Update {
    pub(super) optim: ModuleOptimizer,
    device: Device,
}

impl Update {
    pub(super) fn new(device: Device, optimizer: Optimizer) -> Self {
        Update {
            optim: optimizer.init(),
            device,
        }
    }

    /// Where the loss runs (the warm start fits there too).
    pub(super) fn device(&self) -> &Device {
        &self.device
    }

    /// Optimises `agent`'s clipped objective on `rows` at rate `lr` and entropy bonus
    /// `entropy_coef`; returns what it saw and the gradient steps taken.
    pub(super) fn fit(
        &mut self,
        agent: &mut PpoAgent,
        action_space: &ActionSpace,
        rows: &[Row],
        (lr, entropy_coef): (f64, f32),
        config: &PpoConfig,
        shuffle: &mut StdRng,
    ) -> (FitStats, u64) {
        let loss_config = PpoLossConfig::new()
            .with_clip(config.clip as f32)
            .with_value_coef(config.value_coef as f32)
            .with_entropy_coef(entropy_coef)
            .with_clip_value(config.clip_value);
        let per_batch = match config.minibatch_size {
            0 => rows.len().div_ceil(config.minibatches.max(1)),
            size => size,
        };
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let (mut sums, mut count) = ([0f32; 6], 0.0);
        let mut epochs_run = 0;
        for _ in 0..config.epochs {
            order.shuffle(shuffle);
            epochs_run += 1;
            let (epoch_kl, epoch_batches) = (sums[3], count);
            for chunk in order.chunks(per_batch) {
                let batch = minibatch(rows, chunk, config.normalize_advantages);
                let loss =
                    sharded_loss(&agent.net, action_space, &batch, &loss_config, &self.device);
                for (sum, term) in sums.iter_mut().zip(loss.terms) {
                    *sum += term;
                }
                count += 1.0;
                let mut grads = loss.grads;
                sums[5] += clip_global_norm(&agent.net, &mut grads, config.max_grad_norm as f32);
                let net = agent.net.clone();
                agent.net = self.optim.step(lr, net, grads);
            }
            let kl = (sums[3] - epoch_kl) / (count - epoch_batches);
            if config.target_kl > 0.0 && f64::from(kl) > config.target_kl {
                break;
            }
        }
        let [
            policy_loss,
            value_loss,
            entropy,
            approx_kl,
            clip_fraction,
            grad_norm,
        ] = sums.map(|x| x / count);
        let stats = FitStats {
            policy_loss,
            value_loss,
            entropy,
            approx_kl,
            clip_fraction,
            grad_norm,
            explained_variance: explained_variance(rows),
            entropy_coef,
            epochs_run: (config.target_kl > 0.0).then_some(epochs_run),
        };
        (stats, count as u64)
    }
}

/// What one optimisation phase saw, as CleanRL charts it.
pub(super) struct FitStats {
    pub(super) policy_loss: f32,
    pub(super) value_loss: f32,
    pub(super) entropy: f32,
    pub(super) approx_kl: f32,
    pub(super) clip_fraction: f32,
    /// Mean over minibatches of the gradients' global norm before clipping.
    pub(super) grad_norm: f32,
    pub(super) explained_variance: Option<f32>,
    /// The entropy bonus this phase optimised with.
    pub(super) entropy_coef: f32,
    /// Epochs run before the KL bound stopped them, when there is one.
    pub(super) epochs_run: Option<usize>,
}

/// `1 - Var(G - V) / Var(G)` of the critic's values at collection against the value
/// targets: 1 predicts them exactly, 0 no better than their mean, below 0 worse. None where
/// the targets do not vary (not charted: a non-finite curve would read as divergence).
pub(super) fn explained_variance(rows: &[Row]) -> Option<f32> {
    let variance = |v: &mut dyn Iterator<Item = f64>| {
        let v: Vec<f64> = v.collect();
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64
    };
    let targets = variance(&mut rows.iter().map(|r| r.2 as f64));
    let residual = variance(&mut rows.iter().map(|r| (r.2 - r.0.value) as f64));
    (targets > 0.0).then(|| (1.0 - residual / targets) as f32)
}

/// Gathers rows into a batch, standardising the advantages within it if asked.
pub(super) fn minibatch(rows: &[Row], chunk: &[usize], normalize: bool) -> PpoBatch {
    let advantages: Vec<f32> = chunk.iter().map(|&k| rows[k].1).collect();
    let (mean, std) = if normalize {
        let mean = advantages.iter().sum::<f32>() / advantages.len() as f32;
        let var =
            advantages.iter().map(|a| (a - mean).powi(2)).sum::<f32>() / advantages.len() as f32;
        (mean, var.sqrt() + 1e-8)
    } else {
        (0.0, 1.0)
    };
    let (observations, masks, actions) = stack(
        chunk
            .iter()
            .map(|&k| (&rows[k].0.observation, rows[k].0.action.as_slice())),
    );
    PpoBatch {
        observations,
        masks,
        actions,
        old_log_probs: chunk.iter().map(|&k| rows[k].0.log_prob).collect(),
        old_values: chunk.iter().map(|&k| rows[k].0.value).collect(),
        advantages: advantages.iter().map(|a| (a - mean) / std).collect(),
        returns: chunk.iter().map(|&k| rows[k].2).collect(),
    }
}
