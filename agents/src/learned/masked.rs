//! Factorised categorical distributions over a multi-discrete action with a mask: one
//! categorical per dimension, masked levels getting no probability at all.

use burn::tensor::Tensor;
use burn::tensor::activation::log_softmax;
use rand::RngExt;
use rand::rngs::StdRng;
use schedlab_env::ActionSpace;

/// Added to the logit of a masked level: `exp` of it underflows to exactly 0 in `f32`.
pub const MASKED_LOGIT: f32 = -1.0e9;

/// Per-dimension log-probabilities for a batch: `logits` and `mask` are `[batch, mask_len]`
/// laid out like [`ActionSpace::mask_offset`], `mask` holding 1 for allowed levels and 0 for
/// masked ones. Masked levels come out at about `MASKED_LOGIT`.
pub fn masked_log_probs(space: &ActionSpace, logits: Tensor<2>, mask: Tensor<2>) -> Tensor<2> {
    let penalised = logits + (mask - 1.0).mul_scalar(-MASKED_LOGIT);
    let [batch, _] = penalised.dims();
    let pieces: Vec<Tensor<2>> = (0..space.dims())
        .map(|d| {
            let start = space.mask_offset(d);
            let width = space.choices(d);
            log_softmax(penalised.clone().slice([0..batch, start..start + width]), 1)
        })
        .collect();
    Tensor::cat(pieces, 1)
}

/// Draws one level per dimension from flat log-probabilities (one row of
/// [`masked_log_probs`]); only allowed levels can come out.
pub fn sample(
    space: &ActionSpace,
    log_probs: &[f32],
    mask: &[bool],
    rng: &mut StdRng,
) -> Vec<usize> {
    (0..space.dims())
        .map(|d| {
            let start = space.mask_offset(d);
            let levels = start..start + space.choices(d);
            let probs: Vec<f32> = levels
                .clone()
                .map(|k| if mask[k] { log_probs[k].exp() } else { 0.0 })
                .collect();
            let total: f32 = probs.iter().sum();
            let mut u = rng.random_range(0.0..1.0f32) * total;
            let last_allowed = (0..probs.len())
                .rev()
                .find(|&l| mask[start + l])
                .unwrap_or(0);
            probs
                .iter()
                .position(|&p| {
                    u -= p;
                    u < 0.0 && p > 0.0
                })
                .unwrap_or(last_allowed)
        })
        .collect()
}

/// The allowed level with the largest score (log-probability, Q value) per dimension.
pub fn argmax(space: &ActionSpace, log_probs: &[f32], mask: &[bool]) -> Vec<usize> {
    (0..space.dims())
        .map(|d| {
            let levels = space.mask_offset(d)..space.mask_offset(d) + space.choices(d);
            argmax_allowed(&log_probs[levels.clone()], &mask[levels])
        })
        .collect()
}

/// The allowed level with the largest of one dimension's `scores` (the last of equal ones), 0
/// where none is allowed.
pub fn argmax_allowed(scores: &[f32], allowed: &[bool]) -> usize {
    (0..scores.len())
        .filter(|&l| allowed[l])
        .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use burn::tensor::{Device, TensorData};
    use rand::SeedableRng;

    use super::*;
    use crate::single_job::test_envs::fixtures::one_node_space as space;

    #[test]
    fn masked_levels_get_no_probability_and_are_never_chosen() {
        let space = space();
        let device = Device::flex();
        // the masked level 1 of the CPU dimension has by far the largest logit
        let logits = vec![0.0, 50.0, 0.5, 1.0, -1.0, 0.2, 0.1];
        let mask = vec![true, false, true, true, true, false, true];
        let as_tensor = |v: Vec<f32>| Tensor::<2>::from_data(TensorData::new(v, [1, 7]), &device);
        let log_probs = masked_log_probs(
            &space,
            as_tensor(logits),
            as_tensor(crate::learned::batch::mask_values(&mask).collect()),
        );
        let log_probs: Vec<f32> = log_probs.into_data().try_to_vec::<f32>().unwrap();
        assert_eq!(log_probs[1].exp(), 0.0);
        assert_eq!(log_probs[5].exp(), 0.0);
        for (d, range) in [(0, 0..3), (1, 3..5), (2, 5..7)] {
            let total: f32 = log_probs[range].iter().map(|l| l.exp()).sum();
            assert!((total - 1.0).abs() < 1e-5, "dimension {d} sums to {total}");
        }
        let mut rng = StdRng::seed_from_u64(0);
        for _ in 0..2000 {
            let a = sample(&space, &log_probs, &mask, &mut rng);
            assert!(mask[a[0]] && mask[3 + a[1]] && mask[5 + a[2]], "{a:?}");
        }
        assert_eq!(argmax(&space, &log_probs, &mask), vec![2, 0, 1]);
    }
}
