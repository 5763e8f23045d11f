//! The global L2 norm of a module's gradients before clipping: CleanRL's `grad_norm` chart,
//! which shows whether updates are large, clipped or vanishing. burn clips each parameter
//! tensor's gradient by its own norm (`GradientClippingConfig::Norm`), not their joint norm as
//! PyTorch's `clip_grad_norm_` does, so this is the figure to read beside `max_grad_norm`.

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
}
