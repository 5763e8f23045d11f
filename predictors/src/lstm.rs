//! `lstm`: the paper's predictor (eqs. 19-20). An LSTM reads the last [`WINDOW`] steps of
//! usage, scaled to `[0, 1]` per feature by the largest value seen in training; a linear
//! layer and a sigmoid on its last hidden state give the next step, scaled back to units.
//! Trained with Adam on mean squared error over every window of the training series.

use std::path::Path;

use burn::config::Config;
use burn::module::Module;
use burn::nn::{Linear, LinearConfig, Lstm, LstmConfig as BurnLstmConfig};
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::activation::sigmoid;
use burn::tensor::{Device, Tensor, TensorData};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

use crate::series::common_width;
use crate::{Predictor, PredictorError, Series, WINDOW};

#[derive(Config, Debug)]
pub struct LstmConfig {
    #[config(default = 32)]
    pub hidden: usize,
    #[config(default = 40)]
    pub epochs: usize,
    #[config(default = 64)]
    pub batch_size: usize,
    #[config(default = 5e-3)]
    pub lr: f64,
    #[config(default = 0)]
    pub seed: u64,
}

#[derive(Module, Debug)]
pub struct LstmNet {
    lstm: Lstm,
    head: Linear,
}

impl LstmNet {
    fn new(features: usize, hidden: usize, device: &Device) -> Self {
        LstmNet {
            lstm: BurnLstmConfig::new(features, hidden, true).init(device),
            head: LinearConfig::new(hidden, features).init(device),
        }
    }

    /// `[batch, WINDOW, features]` scaled inputs to `[batch, features]` scaled predictions.
    fn forward(&self, windows: Tensor<3>) -> Tensor<2> {
        let (_, state) = self.lstm.forward(windows, None);
        sigmoid(self.head.forward(state.hidden))
    }
}

/// What is saved beside the network's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LstmParams {
    hidden: usize,
    features: usize,
    /// Per feature: the value that maps to 1.
    scale: Vec<f32>,
    epochs: usize,
    lr: f64,
    seed: u64,
    /// Mean squared error (scaled) of the last epoch.
    final_loss: f32,
}

pub struct LstmPredictor {
    pub config: LstmConfig,
    state: Option<(LstmNet, LstmParams)>,
    device: Device,
}

impl LstmPredictor {
    pub fn new(config: LstmConfig) -> Self {
        LstmPredictor {
            config,
            state: None,
            device: Device::flex(),
        }
    }

    /// The training loss of the last epoch, once fitted.
    pub fn final_loss(&self) -> Option<f32> {
        self.state.as_ref().map(|(_, p)| p.final_loss)
    }

    /// A history as one scaled `[WINDOW, features]` window, left-padded with its oldest row.
    fn window(history: &[f32], features: usize, scale: &[f32]) -> Vec<f32> {
        let rows = history.len() / features;
        (0..WINDOW)
            .flat_map(|k| {
                let row = (rows + k).saturating_sub(WINDOW);
                history[row * features..(row + 1) * features]
                    .iter()
                    .zip(scale)
                    .map(|(x, s)| x / s)
            })
            .collect()
    }

    pub(crate) fn load(dir: &Path, params: serde_json::Value) -> crate::Result<Self> {
        let path = dir.join("lstm.json");
        let params: LstmParams =
            serde_json::from_value(params).map_err(|e| PredictorError::Format {
                path: path.clone(),
                message: e.to_string(),
            })?;
        let device = Device::flex();
        let record = dir.join("lstm.bpk");
        let net = LstmNet::new(params.features, params.hidden, &device)
            .try_load_file(&record)
            .map_err(|e| PredictorError::Format {
                path: record,
                message: e.to_string(),
            })?;
        let config = LstmConfig::new()
            .with_hidden(params.hidden)
            .with_epochs(params.epochs)
            .with_lr(params.lr)
            .with_seed(params.seed);
        Ok(LstmPredictor {
            config,
            state: Some((net, params)),
            device,
        })
    }
}

impl Predictor for LstmPredictor {
    fn name(&self) -> &'static str {
        "lstm"
    }

    fn fit(&mut self, series: &[Series]) -> crate::Result<()> {
        let features = common_width(series, "lstm")?;
        let mut scale = vec![f32::MIN_POSITIVE; features];
        for s in series {
            for row in s.values.chunks(features) {
                for (m, &x) in scale.iter_mut().zip(row) {
                    *m = m.max(x.abs());
                }
            }
        }
        let mut examples: Vec<(Vec<f32>, Vec<f32>)> = Vec::new();
        for s in series {
            for t in 1..s.len() {
                let target = s.row(t).iter().zip(&scale).map(|(y, m)| y / m).collect();
                examples.push((Self::window(s.history_before(t), features, &scale), target));
            }
        }
        let device = self.device.clone().autodiff();
        device.seed(self.config.seed);
        let mut net = LstmNet::new(features, self.config.hidden, &device);
        let mut optim = AdamConfig::new().init();
        let mut rng = StdRng::seed_from_u64(self.config.seed);
        let mut final_loss = f32::NAN;
        for _ in 0..self.config.epochs {
            examples.shuffle(&mut rng);
            let (mut sum, mut batches) = (0.0, 0);
            for batch in examples.chunks(self.config.batch_size.max(1)) {
                let rows = batch.len();
                let x: Vec<f32> = batch.iter().flat_map(|(x, _)| x.iter().copied()).collect();
                let y: Vec<f32> = batch.iter().flat_map(|(_, y)| y.iter().copied()).collect();
                let x =
                    Tensor::<3>::from_data(TensorData::new(x, [rows, WINDOW, features]), &device);
                let y = Tensor::<2>::from_data(TensorData::new(y, [rows, features]), &device);
                let error = net.forward(x) - y;
                let loss = (error.clone() * error).mean();
                sum += loss.clone().into_scalar::<f32>();
                batches += 1;
                let grads = GradientsParams::from_grads(loss.backward(), &net);
                net = optim.step(self.config.lr, net, grads);
            }
            final_loss = sum / batches as f32;
        }
        if !final_loss.is_finite() {
            return Err(PredictorError::Data {
                predictor: "lstm",
                message: format!("training loss is {final_loss}; lower lr"),
            });
        }
        let params = LstmParams {
            hidden: self.config.hidden,
            features,
            scale,
            epochs: self.config.epochs,
            lr: self.config.lr,
            seed: self.config.seed,
            final_loss,
        };
        self.state = Some((net.valid(), params));
        Ok(())
    }

    fn predict(&self, history: &[f32], features: usize) -> Vec<f32> {
        let (net, params) = self.state.as_ref().expect("fit or load the lstm first");
        assert_eq!(params.features, features, "fitted for other series");
        let window = Self::window(history, features, &params.scale);
        let x =
            Tensor::<3>::from_data(TensorData::new(window, [1, WINDOW, features]), &self.device);
        net.forward(x)
            .into_data()
            .try_to_vec::<f32>()
            .expect("f32 predictions")
            .iter()
            .zip(&params.scale)
            .map(|(p, s)| p * s)
            .collect()
    }

    fn save(&self, dir: &Path) -> crate::Result<()> {
        let (net, params) = self.state.as_ref().expect("fit the lstm before saving it");
        crate::files::write_record(dir, "lstm.bpk", net)?;
        crate::files::write_params(dir, self.name(), params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lstm_learns_a_sine_like_series_to_low_error() {
        // two features: a sine with period 12 steps and a phase-shifted one, in [0.1, 0.9]
        let series: Vec<Series> = (0..4)
            .map(|k| {
                let values = (0..120)
                    .flat_map(|t| {
                        let x = (t + 3 * k) as f32 * std::f32::consts::TAU / 12.0;
                        [0.5 + 0.4 * x.sin(), 0.5 + 0.4 * (x + 1.0).cos()]
                    })
                    .collect();
                Series::new(format!("sine {k}"), 2, values)
            })
            .collect();
        let (train, test) = series.split_at(3);
        let mut lstm = LstmPredictor::new(LstmConfig::new().with_epochs(60).with_seed(1));
        lstm.fit(train).unwrap();
        let (mut error, mut last_error, mut n) = (0.0, 0.0, 0);
        let s = &test[0];
        for t in WINDOW..s.len() {
            let history = s.history_before(t);
            let p = lstm.predict(history, 2);
            let last = &history[history.len() - 2..];
            for f in 0..2 {
                error += (p[f] - s.row(t)[f]).abs();
                last_error += (last[f] - s.row(t)[f]).abs();
                n += 1;
            }
        }
        let (mae, last_mae) = (error / n as f32, last_error / n as f32);
        assert!(mae < 0.03, "lstm MAE {mae}");
        assert!(mae < last_mae / 3.0, "lstm {mae} vs last value {last_mae}");
    }
}
