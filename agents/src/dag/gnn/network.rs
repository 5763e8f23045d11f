//! The learned DAG scheduler's network: a message-passing embedding of the instance's tasks
//! along the DAG's successor edges (as Decima, Mao et al. 2019, "Learning Scheduling
//! Algorithms for Data Processing Clusters", embeds a job's stages), and one scorer for every
//! (task, GPU) choice. Every weight is shared by all tasks and all GPUs: the network plays
//! DAGs of any size on any GPU count, and relabelling the tasks relabels its scores.
//!
//! Each round adds what a task's successors hold, so after `rounds` rounds a task's embedding
//! has seen `rounds` levels below it; the upward rank among its inputs carries the rest of
//! the critical path.

use burn::config::Config;
use burn::module::Module;
use burn::nn::{Initializer, Linear, LinearConfig};
use burn::tensor::activation::relu;
use burn::tensor::{Device, Tensor, TensorData};

use super::inputs::{CHOICE_INPUTS, TASK_INPUTS, TaskInputs};

/// The network's shape; its defaults are the learner's (`trainer/src/gnn.rs`, `GnnConfig`).
#[derive(Config, Debug)]
pub struct DagGnnConfig {
    /// Width of a task's embedding.
    pub embedding: usize,
    /// Message-passing rounds along the successor edges.
    pub rounds: usize,
    /// Width of the scorer's hidden layers.
    pub hidden: usize,
}

#[derive(Module, Debug)]
pub struct DagGnn {
    input: Linear,
    own: Vec<Linear>,
    message: Vec<Linear>,
    score_input: Linear,
    score_hidden: Linear,
    score_output: Linear,
}

impl DagGnnConfig {
    /// Freshly initialised weights (burn's defaults), to train.
    pub fn init(&self, device: &Device) -> DagGnn {
        self.build(device, None)
    }

    /// Zero weights, for a network a saved record replaces at once (nothing drawn: see
    /// `ActorCriticConfig::init_for_record`).
    pub fn init_for_record(&self, device: &Device) -> DagGnn {
        self.build(device, Some(Initializer::Zeros))
    }

    fn build(&self, device: &Device, initializer: Option<Initializer>) -> DagGnn {
        let linear = |inputs: usize, outputs: usize| {
            let config = LinearConfig::new(inputs, outputs);
            match &initializer {
                Some(init) => config.with_initializer(init.clone()),
                None => config,
            }
            .init(device)
        };
        let e = self.embedding;
        DagGnn {
            input: linear(TASK_INPUTS, e),
            own: (0..self.rounds).map(|_| linear(e, e)).collect(),
            message: (0..self.rounds).map(|_| linear(e, e)).collect(),
            score_input: linear(CHOICE_INPUTS + e, self.hidden),
            score_hidden: linear(self.hidden, self.hidden),
            score_output: linear(self.hidden, 1),
        }
    }
}

impl DagGnn {
    /// The instance's task embeddings, `[tasks, embedding]`.
    pub fn embed(&self, inputs: &TaskInputs, device: &Device) -> Tensor<2> {
        let n = inputs.tasks;
        let features = Tensor::<2>::from_data(
            TensorData::new(inputs.features.clone(), [n, TASK_INPUTS]),
            device,
        );
        let successors =
            Tensor::<2>::from_data(TensorData::new(inputs.successors.clone(), [n, n]), device);
        let mut h = relu(self.input.forward(features));
        for (own, message) in self.own.iter().zip(&self.message) {
            h = relu(own.forward(h.clone()) + message.forward(successors.clone().matmul(h)));
        }
        h
    }

    /// One score per choice row: `choices` `[rows, CHOICE_INPUTS]` and the embedding of each
    /// row's task `[rows, embedding]`; `[rows]`.
    pub fn score(&self, choices: Tensor<2>, task_embeddings: Tensor<2>) -> Tensor<1> {
        let x = Tensor::cat(vec![choices, task_embeddings], 1);
        let x = relu(self.score_input.forward(x));
        let x = relu(self.score_hidden.forward(x));
        self.score_output.forward(x).squeeze_dim(1)
    }

    /// The embedding width.
    pub fn embedding_width(&self) -> usize {
        self.input.weight.dims()[1]
    }
}
