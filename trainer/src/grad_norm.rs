//! The global L2 norm of a module's gradients (CleanRL's `grad_norm` chart, which shows
//! whether updates are large, clipped or vanishing) and clipping by it, as PyTorch's
//! `clip_grad_norm_` does in CleanRL: every gradient scaled by `max / norm` when the norm is
//! above `max`. burn's own `GradientClippingConfig::Norm` clips each parameter tensor by its
//! own norm, which lets the joint norm reach `sqrt(tensors) * max` and turns the direction.

use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::Tensor;

struct SquaredNorm<'a> {
    grads: &'a GradientsParams,
    sum: f64,
}

impl ModuleVisitor for SquaredNorm<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if let Some(grad) = self.grads.get::<D>(param.id) {
            self.sum += f64::from(grad.powi_scalar(2).sum().into_scalar::<f32>());
        }
    }
}

/// `sqrt(sum over parameters of |grad|^2)` of `grads` for `module`'s parameters.
pub fn global_norm<M: Module>(module: &M, grads: &GradientsParams) -> f32 {
    let mut visitor = SquaredNorm { grads, sum: 0.0 };
    module.visit(&mut visitor);
    visitor.sum.sqrt() as f32
}

struct Scale<'a> {
    grads: &'a mut GradientsParams,
    factor: f32,
}

impl ModuleVisitor for Scale<'_> {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        if let Some(grad) = self.grads.remove::<D>(param.id) {
            self.grads
                .register::<D>(param.id, grad.mul_scalar(self.factor));
        }
    }
}

/// Scales `grads` so that their global norm is at most `max` (none changes when it is);
/// returns the norm before clipping.
pub fn clip_global_norm<M: Module>(module: &M, grads: &mut GradientsParams, max: f32) -> f32 {
    let norm = global_norm(module, grads);
    // PyTorch's clip_grad_norm_ adds 1e-6 to the norm
    let factor = max / (norm + 1e-6);
    if factor < 1.0 {
        module.visit(&mut Scale { grads, factor });
    }
    norm
}

#[cfg(test)]
mod tests {
    use burn::nn::{Linear, LinearConfig};
    use burn::tensor::{Device, Tensor};

    use super::*;

    #[test]
    fn the_norm_joins_every_parameter_and_matches_a_hand_computed_case() {
        let device = Device::flex().autodiff();
        let layer: Linear = LinearConfig::new(2, 1).init(&device);
        let x = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &device);
        // loss = sum(x W + b): dW = column sums of x = (4, 6), db = 2 rows = 2
        let loss = layer.forward(x).sum();
        let grads = GradientsParams::from_grads(loss.backward(), &layer);
        let norm = global_norm(&layer, &grads);
        assert!(
            (norm - (16.0f32 + 36.0 + 4.0).sqrt()).abs() < 1e-5,
            "{norm}"
        );
    }

    /// The clip scales every tensor by one factor, so the direction stays and the joint norm
    /// ends at the bound; per-tensor clipping (burn's) would leave (4, 6) at norm 1 and 2 at
    /// 1, a joint norm of sqrt(2) and another direction.
    #[test]
    fn the_clip_bounds_the_joint_norm_and_keeps_the_direction() {
        let device = Device::flex().autodiff();
        let layer: Linear = LinearConfig::new(2, 1).init(&device);
        let x = Tensor::<2>::from_floats([[1.0, 2.0], [3.0, 4.0]], &device);
        let loss = layer.forward(x).sum();
        let mut grads = GradientsParams::from_grads(loss.backward(), &layer);
        let before = clip_global_norm(&layer, &mut grads, 1.0);
        let full = (16.0f32 + 36.0 + 4.0).sqrt();
        assert!((before - full).abs() < 1e-5, "{before}");
        assert!((global_norm(&layer, &grads) - 1.0).abs() < 1e-4);
        let weight = grads.get::<2>(layer.weight.id).unwrap();
        let w: Vec<f32> = weight.into_data().try_to_vec::<f32>().unwrap();
        let bias: Vec<f32> = grads
            .get::<1>(layer.bias.as_ref().unwrap().id)
            .unwrap()
            .into_data()
            .try_to_vec::<f32>()
            .unwrap();
        for (got, want) in w.iter().chain(&bias).zip([4.0, 6.0, 2.0]) {
            assert!((got - want / full).abs() < 1e-5, "{got} vs {}", want / full);
        }
        // under the bound nothing changes
        let loss = layer
            .forward(Tensor::<2>::from_floats([[1.0, 2.0]], &device))
            .sum();
        let mut small = GradientsParams::from_grads(loss.backward(), &layer);
        let norm = clip_global_norm(&layer, &mut small, 100.0);
        assert!((global_norm(&layer, &small) - norm).abs() < 1e-6);
    }
}
