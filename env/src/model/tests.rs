use rand::SeedableRng;
use rand::rngs::StdRng;

use super::*;
use crate::data::{Dataset, Features, Task};

/// Every model's one-pass sum of squared per-sample gradient norms equals the sum of the
/// norms of the gradients taken one sample at a time.
#[test]
fn per_sample_norms_match_one_sample_at_a_time() {
    use rand::RngExt;
    let mut rng = StdRng::seed_from_u64(4);
    let (n, d) = (9, 6);
    let values: Vec<f32> = (0..n * d).map(|_| rng.random_range(-1.0..1.0)).collect();
    let dense = Features::Dense {
        cols: d,
        values: values.clone(),
    };
    let sparse = Features::Sparse {
        cols: d,
        indptr: (0..=n).map(|r| r * d).collect(),
        indices: (0..n).flat_map(|_| 0..d as u32).collect(),
        values,
    };
    let cases: Vec<(Box<dyn Model>, Task)> = vec![
        (
            Box::new(
                LinearModel::new(LinearLoss::Softmax, d, Task::Classification { classes: 3 })
                    .unwrap(),
            ),
            Task::Classification { classes: 3 },
        ),
        (
            Box::new(
                LinearModel::new(LinearLoss::Hinge, d, Task::Classification { classes: 2 })
                    .unwrap(),
            ),
            Task::Classification { classes: 2 },
        ),
        (
            Box::new(
                LinearModel::new(LinearLoss::Logistic, d, Task::Classification { classes: 2 })
                    .unwrap(),
            ),
            Task::Classification { classes: 2 },
        ),
        (
            Box::new(LinearModel::new(LinearLoss::Squared, d, Task::Regression).unwrap()),
            Task::Regression,
        ),
        (
            Box::new(Mlp::new(
                d,
                &[5, 4],
                Task::Classification { classes: 3 },
                burn::tensor::Device::flex(),
            )),
            Task::Classification { classes: 3 },
        ),
        (
            Box::new(Mlp::new(
                d,
                &[5],
                Task::Regression,
                burn::tensor::Device::flex(),
            )),
            Task::Regression,
        ),
    ];
    for (model, task) in cases {
        for features in [dense.clone(), sparse.clone()] {
            let labels = (0..n)
                .map(|i| match task {
                    Task::Classification { classes } => (i % classes) as f32,
                    Task::Regression => i as f32 / n as f32 - 0.5,
                })
                .collect();
            let data = Dataset::new(features, labels, task);
            let params: Vec<f32> = (0..model.num_params())
                .map(|_| rng.random_range(-0.5..0.5))
                .collect();
            let rows: Vec<usize> = (0..n).collect();
            let mut grad = vec![0.0; params.len()];
            let (loss, norms) = model.accumulate(&params, &data, &rows, &mut grad, true);
            let (mut each_loss, mut each_norms) = (0.0, 0.0);
            let mut summed = vec![0.0f32; params.len()];
            for &r in &rows {
                let mut g = vec![0.0; params.len()];
                each_loss += model.accumulate_grad(&params, &data, &[r], &mut g);
                each_norms += g.iter().map(|v| f64::from(*v).powi(2)).sum::<f64>();
                summed.iter_mut().zip(&g).for_each(|(s, v)| *s += v);
            }
            let name = model.name();
            assert!(
                (loss - each_loss).abs() < 1e-4 * (1.0 + loss.abs()),
                "{name}"
            );
            assert!(
                (norms - each_norms).abs() < 1e-4 * (1.0 + norms),
                "{name}: {norms} against {each_norms}"
            );
            for (a, b) in grad.iter().zip(&summed) {
                assert!((a - b).abs() < 1e-4, "{name}");
            }
        }
    }
}
