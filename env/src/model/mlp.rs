//! A small multilayer perceptron (ReLU hidden layers) whose forward and backward passes run
//! in burn. Layout: for each layer, `W` (inputs x outputs, row-major) then `b`.
//!
//! The parameter server owns a flat vector, so each gradient builds burn tensors from the
//! worker's snapshot, runs the forward and a hand-written backward pass (which also yields
//! per-sample gradient norms) and copies the gradients back out.

use burn::tensor::activation::{log_softmax, relu};
use burn::tensor::{Device, Tensor, TensorData};
use rand::RngExt;
use rand::rngs::StdRng;

use super::Model;
use crate::data::{Dataset, Task};

#[derive(Debug, Clone)]
pub struct Mlp {
    /// Widths from input to output, e.g. `[784, 64, 10]`.
    widths: Vec<usize>,
    task: Task,
    device: Device,
}

impl Mlp {
    /// A classifier (softmax output) or a regressor (one linear output, squared error).
    pub fn new(cols: usize, hidden: &[usize], task: Task, device: Device) -> Self {
        let out = match task {
            Task::Classification { classes } => classes,
            Task::Regression => 1,
        };
        let widths = std::iter::once(cols)
            .chain(hidden.iter().copied())
            .chain([out])
            .collect();
        Mlp {
            widths,
            task,
            device,
        }
    }

    fn layer_shapes(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.widths.windows(2).map(|w| (w[0], w[1]))
    }

    /// Where each layer's weights begin in the flat parameters (its biases follow them).
    fn layer_offsets(&self) -> Vec<usize> {
        self.layer_shapes()
            .scan(0, |at, (i, o)| {
                let start = *at;
                *at += i * o + o;
                Some(start)
            })
            .collect()
    }

    fn batch_tensors(
        &self,
        data: &Dataset,
        rows: &[usize],
        device: &Device,
    ) -> (Tensor<2>, Tensor<2>) {
        let cols = self.widths[0];
        let mut x = vec![0.0f32; rows.len() * cols];
        for (k, &i) in rows.iter().enumerate() {
            data.features
                .row(i)
                .write_dense(&mut x[k * cols..(k + 1) * cols]);
        }
        let out = *self.widths.last().unwrap();
        let target: Vec<f32> = match self.task {
            Task::Classification { .. } => {
                let mut t = vec![0.0; rows.len() * out];
                for (k, &i) in rows.iter().enumerate() {
                    t[k * out + data.labels[i] as usize] = 1.0;
                }
                t
            }
            Task::Regression => rows.iter().map(|&i| data.labels[i]).collect(),
        };
        (
            Tensor::from_data(TensorData::new(x, [rows.len(), cols]), device),
            Tensor::from_data(TensorData::new(target, [rows.len(), out]), device),
        )
    }

    /// Parameter tensors on a device.
    fn parameters(&self, params: &[f32], device: &Device) -> Vec<(Tensor<2>, Tensor<2>)> {
        let mut offset = 0;
        self.layer_shapes()
            .map(|(i, o)| {
                let w = Tensor::from_data(
                    TensorData::new(params[offset..offset + i * o].to_vec(), [i, o]),
                    device,
                );
                offset += i * o;
                let b = Tensor::from_data(
                    TensorData::new(params[offset..offset + o].to_vec(), [1, o]),
                    device,
                );
                offset += o;
                (w, b)
            })
            .collect()
    }

    /// Summed loss of a batch.
    fn forward_loss(
        &self,
        layers: &[(Tensor<2>, Tensor<2>)],
        x: Tensor<2>,
        target: Tensor<2>,
    ) -> Tensor<1> {
        let last = layers.len() - 1;
        let mut h = x;
        for (k, (w, b)) in layers.iter().enumerate() {
            h = h.matmul(w.clone()) + b.clone();
            if k < last {
                h = relu(h);
            }
        }
        match self.task {
            Task::Classification { .. } => (log_softmax(h, 1) * target).sum().neg(),
            Task::Regression => {
                let r = h - target;
                (r.clone() * r).sum().mul_scalar(0.5)
            }
        }
    }
}

/// Each row's sum as a column, by a product with ones (a vectorised kernel, where a row
/// reduction runs one element at a time).
fn row_sums(t: Tensor<2>, device: &Device) -> Tensor<2> {
    let width = t.dims()[1];
    t.matmul(Tensor::ones([width, 1], device))
}

impl Model for Mlp {
    fn name(&self) -> &str {
        "mlp"
    }

    fn num_params(&self) -> usize {
        self.layer_shapes().map(|(i, o)| i * o + o).sum()
    }

    /// He-uniform weights (suited to ReLU), zero biases, from the episode's RNG.
    fn init_params(&self, rng: &mut StdRng) -> Vec<f32> {
        let mut params = Vec::with_capacity(self.num_params());
        for (i, o) in self.layer_shapes() {
            let bound = (6.0 / i as f32).sqrt();
            params.extend((0..i * o).map(|_| rng.random_range(-bound..bound)));
            params.extend(std::iter::repeat_n(0.0, o));
        }
        params
    }

    /// The backward pass by hand (no autodiff graph): the output layer's error is
    /// `softmax - onehot` (or the residual), each layer's weight gradient `a^T delta`, and a
    /// sample's squared gradient norm per layer `|delta_i|^2 (|a_i|^2 + 1)`, since its gradient
    /// is the outer product `(a_i, 1) delta_i`.
    fn accumulate(
        &self,
        params: &[f32],
        data: &Dataset,
        rows: &[usize],
        grad: &mut [f32],
        norms: bool,
    ) -> (f64, f64) {
        let device = self.device.clone().without_autodiff();
        let layers = self.parameters(params, &device);
        let (x, target) = self.batch_tensors(data, rows, &device);
        let last = layers.len() - 1;
        // each layer's input, and the hidden layers' pre-activations
        let mut inputs = Vec::with_capacity(layers.len());
        let mut pre = Vec::with_capacity(last);
        let mut h = x;
        for (k, (w, b)) in layers.iter().enumerate() {
            inputs.push(h.clone());
            let z = h.matmul(w.clone()) + b.clone();
            h = if k < last {
                pre.push(z.clone());
                relu(z)
            } else {
                z
            };
        }
        let (loss, mut delta) = match self.task {
            Task::Classification { .. } => {
                let log_p = log_softmax(h, 1);
                let loss = (log_p.clone() * target.clone()).sum().neg();
                (loss, log_p.exp() - target)
            }
            Task::Regression => {
                let r = h - target;
                ((r.clone() * r.clone()).sum().mul_scalar(0.5), r)
            }
        };
        let offsets = self.layer_offsets();
        let mut squared_norms = 0.0;
        for k in (0..layers.len()).rev() {
            let a = &inputs[k];
            let gw = a.clone().transpose().matmul(delta.clone()).into_data();
            let gb = delta.clone().sum_dim(0).into_data();
            let gw = gw.as_slice::<f32>().expect("float gradients");
            let gb = gb.as_slice::<f32>().expect("float gradients");
            let at = offsets[k];
            // a layer's weights, then its biases
            add(&mut grad[at..at + gw.len()], gw);
            add(&mut grad[at + gw.len()..at + gw.len() + gb.len()], gb);
            if norms {
                // the input layer's |a_i|^2 are the data's row norms, computed once
                let input_norms = if k == 0 {
                    let sq: Vec<f32> = rows.iter().map(|&i| data.squared_norm(i)).collect();
                    Tensor::from_data(TensorData::new(sq, [rows.len(), 1]), &device)
                } else {
                    row_sums(a.clone().square(), &device)
                };
                let per_sample =
                    row_sums(delta.clone().square(), &device) * input_norms.add_scalar(1.0);
                squared_norms += per_sample.sum().into_scalar::<f32>() as f64;
            }
            if k > 0 {
                delta = delta
                    .matmul(layers[k].0.clone().transpose())
                    .mask_fill(pre[k - 1].clone().lower_equal_scalar(0.0), 0.0);
            }
        }
        (loss.into_scalar::<f32>() as f64, squared_norms)
    }

    fn mean_loss(&self, params: &[f32], data: &Dataset) -> f64 {
        let device = self.device.clone().without_autodiff();
        let layers = self.parameters(params, &device);
        let rows: Vec<usize> = (0..data.len()).collect();
        let total: f64 = rows
            .chunks(1024)
            .map(|chunk| {
                let (x, target) = self.batch_tensors(data, chunk, &device);
                self.forward_loss(&layers, x, target).into_scalar::<f32>() as f64
            })
            .sum();
        total / data.len().max(1) as f64
    }

    fn add_l2(&self, params: &[f32], l2: f32, grad: &mut [f32]) {
        let mut offset = 0;
        for (i, o) in self.layer_shapes() {
            let w = offset..offset + i * o;
            grad[w.clone()]
                .iter_mut()
                .zip(&params[w])
                .for_each(|(g, p)| *g += l2 * p);
            offset += i * o + o;
        }
    }
}

/// `into += from`, element by element.
fn add(into: &mut [f32], from: &[f32]) {
    into.iter_mut().zip(from).for_each(|(g, v)| *g += v);
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;
    use crate::data::Features;
    use crate::model::gradcheck::max_rel_error;

    fn data(task: Task, sparse: bool) -> Dataset {
        let mut rng = StdRng::seed_from_u64(1);
        let (n, d) = (8, 5);
        let dense: Vec<f32> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
        let features = if sparse {
            Features::Sparse {
                cols: d,
                indptr: (0..=n).map(|r| r * d).collect(),
                indices: (0..n).flat_map(|_| 0..d as u32).collect(),
                values: dense,
            }
        } else {
            Features::Dense {
                cols: d,
                values: dense,
            }
        };
        let labels = (0..n)
            .map(|i| match task {
                Task::Classification { classes } => (i % classes) as f32,
                Task::Regression => rng.random_range(-1.0..1.0),
            })
            .collect();
        Dataset::new(features, labels, task)
    }

    #[test]
    fn mlp_gradient_matches_finite_differences() {
        for task in [Task::Classification { classes: 3 }, Task::Regression] {
            for sparse in [false, true] {
                let data = data(task, sparse);
                let mlp = Mlp::new(5, &[6], task, Device::flex());
                let params = mlp.init_params(&mut StdRng::seed_from_u64(2));
                let rows: Vec<usize> = (0..data.len()).collect();
                let err = max_rel_error(&mlp, &params, &data, &rows, 0.01);
                assert!(err < 3e-2, "{task:?} sparse={sparse}: relative error {err}");
            }
        }
    }

    #[test]
    fn mean_loss_agrees_with_the_training_loss() {
        let data = data(Task::Classification { classes: 3 }, false);
        let mlp = Mlp::new(5, &[4, 4], data.task, Device::flex());
        let params = mlp.init_params(&mut StdRng::seed_from_u64(3));
        let rows: Vec<usize> = (0..data.len()).collect();
        let mut grad = vec![0.0; params.len()];
        let summed = mlp.accumulate_grad(&params, &data, &rows, &mut grad);
        assert!((summed / data.len() as f64 - mlp.mean_loss(&params, &data)).abs() < 1e-5);
    }
}
