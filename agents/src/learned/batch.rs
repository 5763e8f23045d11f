//! Observations as network input, on the inference device of a module.

use burn::module::Module;
use burn::tensor::{Device, Tensor, TensorData};
use schedlab_env::Observation;

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
