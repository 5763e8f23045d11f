//! A minibatch's loss and gradient computed in shards on the rayon pool. The update's matrix
//! products split over threads only when they are large, and its element-wise work and autodiff
//! bookkeeping not at all: on 2 cores PPO used 1.26 of them (docs/learned.md, "Threads"). Each
//! shard is a contiguous run of rows whose loss is weighted by its share of the minibatch, so
//! the shards' gradients add up to the minibatch's. How a minibatch is cut depends on its rows
//! only, and the shards are summed in order: any thread count gives the same sums.

use std::ops::Range;

use burn::module::Module;
use burn::optim::{GradientsAccumulator, GradientsParams};
use burn::tensor::Device;
use rayon::prelude::*;
use schedlab_agents::learned::actor_critic::{ActorCritic, PpoBatch, PpoLossConfig, ppo_loss};
use schedlab_env::ActionSpace;

/// Rows per shard: fewer, and a shard's own costs (its graph, products too small to pay for
/// their blocking) outweigh what another thread gains.
const SHARD_ROWS: usize = 256;
/// The most shards a minibatch is cut into: enough to keep 16 threads busy.
const MAX_SHARDS: usize = 16;

/// A minibatch's gradient and its loss terms (means over its rows).
pub(super) struct ShardedLoss {
    pub grads: GradientsParams,
    /// Policy loss, value loss, entropy, approximate KL and clip fraction.
    pub terms: [f32; 5],
}

/// The rows of each shard of a minibatch of `rows` rows.
fn shard_ranges(rows: usize) -> Vec<Range<usize>> {
    let shards = (rows / SHARD_ROWS).clamp(1, MAX_SHARDS);
    (0..shards)
        .map(|k| k * rows / shards..(k + 1) * rows / shards)
        .collect()
}

/// The rows `range` of `batch`, whose observations, masks and actions are `[rows, width]`.
fn rows_of(batch: &PpoBatch, range: Range<usize>, space: &ActionSpace) -> PpoBatch {
    let rows = batch.advantages.len();
    let wide = |v: &[f32], width: usize| v[range.start * width..range.end * width].to_vec();
    let observation_len = batch.observations.len() / rows;
    let dims = space.dims();
    PpoBatch {
        observations: wide(&batch.observations, observation_len),
        masks: wide(&batch.masks, space.mask_len()),
        actions: batch.actions[range.start * dims..range.end * dims].to_vec(),
        old_log_probs: batch.old_log_probs[range.clone()].to_vec(),
        old_values: batch.old_values[range.clone()].to_vec(),
        advantages: batch.advantages[range.clone()].to_vec(),
        returns: batch.returns[range].to_vec(),
    }
}

/// The loss of `batch` and its gradient with respect to `net`'s parameters.
pub(super) fn sharded_loss(
    net: &ActorCritic,
    space: &ActionSpace,
    batch: &PpoBatch,
    config: &PpoLossConfig,
    device: &Device,
) -> ShardedLoss {
    let rows = batch.advantages.len();
    let ranges = shard_ranges(rows);
    let one_shard = |net: &ActorCritic, part: &PpoBatch, share: f32| {
        let loss = ppo_loss(net, space, part, config, device);
        let terms = [
            loss.policy.into_scalar::<f32>(),
            loss.value.into_scalar::<f32>(),
            loss.entropy.into_scalar::<f32>(),
            loss.approx_kl,
            loss.clip_fraction,
        ];
        let total = if ranges.len() == 1 {
            loss.total
        } else {
            loss.total.mul_scalar(share)
        };
        let grads = GradientsParams::from_grads(total.backward(), net);
        (grads, terms.map(|t| t * share))
    };
    if ranges.len() == 1 {
        let (grads, terms) = one_shard(net, batch, 1.0);
        return ShardedLoss { grads, terms };
    }
    let parts: Vec<(GradientsParams, [f32; 5])> = ranges
        .par_iter()
        .map(|range| {
            let share = range.len() as f32 / rows as f32;
            // a shard's own leaves: graphs that share a parameter's node are merged into one,
            // which two threads then deadlock on (burn-autodiff 0.22's graph locks)
            let own = net.clone().fork(device);
            one_shard(&own, &rows_of(batch, range.clone(), space), share)
        })
        .collect();
    let mut accumulator = GradientsAccumulator::new();
    let mut terms = [0f32; 5];
    for (grads, part_terms) in parts {
        accumulator.accumulate(net, grads);
        for (sum, t) in terms.iter_mut().zip(part_terms) {
            *sum += t;
        }
    }
    ShardedLoss {
        grads: accumulator.grads(),
        terms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_row_once_and_depend_on_the_rows_only() {
        for rows in [1, 255, 256, 511, 512, 1000, 4096, 100_000] {
            let ranges = shard_ranges(rows);
            assert_eq!(ranges.first().unwrap().start, 0);
            assert_eq!(ranges.last().unwrap().end, rows);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            assert!(ranges.len() <= MAX_SHARDS);
            assert!(ranges.len() == 1 || ranges.iter().all(|r| r.len() >= SHARD_ROWS));
        }
        assert_eq!(shard_ranges(4096).len(), 16);
    }
}
