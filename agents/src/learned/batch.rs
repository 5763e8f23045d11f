//! Observations as network input, on the inference device of a module.

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use schedlab_env::{ActionSpace, Observation};

/// The module's device without autodiff: acting needs no gradients.
pub fn inference_device(module: &impl Module) -> Device {
    module
        .devices()
        .first()
        .cloned()
        .unwrap_or_else(Device::flex)
        .without_autodiff()
}

/// Features `[rows, observation length]`.
pub fn features(observations: &[&Observation], device: &Device) -> Tensor<2> {
    let width = observations[0].features.len();
    let values: Vec<f32> = observations
        .iter()
        .flat_map(|o| o.features.iter().copied())
        .collect();
    Tensor::from_data(TensorData::new(values, [observations.len(), width]), device)
}

/// Decisions `(observation, chosen levels)` as flat host rows, the form the losses take:
/// features `[rows, observation length]`, masks as 1/0 `[rows, mask_len]`, levels
/// `[rows, dims]`.
pub fn stack<'a>(
    decisions: impl Iterator<Item = (&'a Observation, &'a [usize])>,
) -> (Vec<f32>, Vec<f32>, Vec<usize>) {
    let (mut observations, mut masks, mut actions) = (Vec::new(), Vec::new(), Vec::new());
    for (observation, action) in decisions {
        observations.extend_from_slice(&observation.features);
        masks.extend(mask_values(&observation.action_mask));
        actions.extend_from_slice(action);
    }
    (observations, masks, actions)
}

/// A mask as 1 (allowed) and 0 (masked), the form the masked heads take.
pub fn mask_values(mask: &[bool]) -> impl Iterator<Item = f32> + '_ {
    mask.iter().map(|&m| f32::from(u8::from(m)))
}

/// `values[k]` at the chosen level of row `k / dims`, dimension `k % dims`, and 0 elsewhere,
/// `[rows, mask_len]`: places per-choice values (1 for a selector, TD targets) where the
/// per-level outputs (log-probabilities, Q values) of the chosen levels are.
pub fn at_chosen(
    space: &ActionSpace,
    actions: &[usize],
    values: impl Fn(usize) -> f32,
) -> Vec<f32> {
    let width = space.mask_len();
    let dims = space.dims();
    let mut placed = vec![0.0f32; actions.len() / dims * width];
    for (k, &level) in actions.iter().enumerate() {
        placed[k / dims * width + space.mask_offset(k % dims) + level] = values(k);
    }
    placed
}

/// 1 at each row's chosen level of every dimension, 0 elsewhere, `[rows, mask_len]`.
pub fn chosen_one_hot(space: &ActionSpace, actions: &[usize]) -> Vec<f32> {
    at_chosen(space, actions, |_| 1.0)
}
