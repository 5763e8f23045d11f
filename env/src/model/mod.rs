//! Models whose gradients the workers compute for real. Parameters are one flat `f32`
//! vector owned by the parameter server; each model documents its layout.

mod differentiable;
#[cfg(test)]
pub(crate) mod gradcheck;
mod linear;
mod mlp;
#[cfg(test)]
mod tests;

pub use differentiable::{Model, batch_objective};
pub use linear::{LinearLoss, LinearModel};
pub use mlp::Mlp;
