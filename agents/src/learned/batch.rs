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

/// A mask as 1 (allowed) and 0 (masked), the form the masked heads take.
pub fn mask_values(mask: &[bool]) -> impl Iterator<Item = f32> + '_ {
    mask.iter().map(|&m| f32::from(u8::from(m)))
}

/// 1 at each row's chosen level of every dimension, 0 elsewhere, `[rows, mask_len]`: picks
/// the chosen entries out of per-level outputs (log-probabilities, Q values).
pub fn chosen_one_hot(space: &ActionSpace, actions: &[usize]) -> Vec<f32> {
    let width = space.mask_len();
    let rows = actions.len() / space.dims();
    let mut chosen = vec![0.0f32; rows * width];
    for (row, action) in actions.chunks(space.dims()).enumerate() {
        for (d, &level) in action.iter().enumerate() {
            chosen[row * width + space.mask_offset(d) + level] = 1.0;
        }
    }
    chosen
}
